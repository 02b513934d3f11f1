package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/refresh"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// newRevisitRuntime builds M2's parts from o (already validated) over st (nil on a
// worker): the tracker and policy, the classifier, the scheduler, the pane.
func (e *Engine) newRevisitRuntime(o config.RevisitOptions, st *store.Store) (*refresh.Runtime, error) {
	logf := func(level view.Level, format string, args ...any) { e.logf(level, 0, "", format, args...) }
	return refresh.New(o, st, logf)
}

// revisitView is the Revisit pane (refresh.Runtime.View) with the count of revisits
// queued now.
func (e *Engine) revisitView(now time.Time) *view.RevisitView {
	return e.rv.View(now, func() int {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.fr.Marks().Len()
	})
}

// runRevisit is the revisit scheduler (M2, seed 001 step 3): every revisit.every it
// takes the first m pages by ascending next and puts those due back in the crawl
// queue, until the engine stops.
func (e *Engine) runRevisit() {
	defer e.wg.Done()
	e.every(e.opts.Revisit.Every, e.fr.RevisitTick)
}

// RevisitNow implements Control: the page goes back in the crawl queue at once,
// whatever its next due time and its class window (`:revisit now URL`).
func (e *Engine) RevisitNow(raw string) error { return e.fr.RevisitNow(raw) }
