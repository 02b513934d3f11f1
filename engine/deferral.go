package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// deferTask sets a task aside until a time (M3: disabled host). The store write
// happens in flushDeferred, outside e.mu. Caller holds e.mu.
func (e *Engine) deferTask(t frontier.Task, until time.Time) { e.deferred.Add(t, until) }

// flushDeferred writes pending deferrals to the front.
func (e *Engine) flushDeferred() {
	e.mu.Lock()
	list := e.deferred.Take()
	e.mu.Unlock()
	if len(list) > 0 {
		e.front.deferURLs(list)
	}
	e.fr.FlushSteeredOut() // withdrawn on their way to the board, like deferrals
}

// maintainDeferred keeps deferred URLs moving while the crawl runs: deferrals are
// written, expired host_disable_list entries removed (M3), and deferred URLs whose
// time has come (a disabled host, an unreachable robots.txt) are queued again.
func (e *Engine) maintainDeferred() {
	defer e.wg.Done()
	defer e.flushDeferred() // before Done: nothing deferred is left unwritten at Stop
	e.every(time.Second, func(now time.Time) {
		e.flushDeferred()
		if e.pool != nil {
			if removed := e.pool.BeginRound(now); len(removed) > 0 {
				e.logf(view.LevelInfo, 0, "", "host_disable_list: %d hosts back in the crawl", len(removed))
			}
		}
		e.front.requeueDeferred()
	})
}

// requeueDeferred brings back deferred URLs whose time has passed.
func (f localFront) requeueDeferred() {
	e := f.e
	rows, err := e.st.DueDeferred(1000)
	if err != nil || len(rows) == 0 {
		return
	}
	for _, r := range rows {
		e.st.SetState(r.URL, store.Unprocessed, 0, "")
	}
	e.mu.Lock()
	for _, r := range rows {
		e.fr.Place(front.TaskOf(r))
	}
	e.mu.Unlock()
	e.flushDeferred()
}
