package engine

import (
	"strconv"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// A crawl that runs dry asks its store before it says so: every URL the store
// holds queued (unprocessed) or in progress must have been fetched or be in
// memory, and at the end nothing is in memory. A URL found there was lost on its
// way to the queue (a bug: its links were inserted but never confirmed, a queue
// that dropped it): it is named in an error, queued again, and the crawl goes on.
// The check runs again at the next end, endCheckPasses times at most, so a URL
// that cannot be queued never keeps a crawl from ending.

// endCheck is the state of the end's check. Guarded by e.mu.
type endCheck struct {
	running bool // the store is being asked
	passed  bool // the store agreed (or gave up): the crawl may say it ran dry
	passes  int  // how many times URLs were found and queued again
}

// endCheckPasses bounds the ends at which found URLs are queued again;
// endCheckRows the URLs one check reads, endCheckShown those it names.
const (
	endCheckPasses = 3
	endCheckRows   = 1000
	endCheckShown  = 5
)

// endChecked tells whether the store agreed the crawl ran dry; false starts the
// check (or waits for the one running), which calls checkIdle again. A crawl with
// revisits waiting in memory (their rows unprocessed by design) is not checked.
// It is the front's on one box and a master (a worker's master checks its own).
// Caller holds e.mu.
func (e *Engine) endChecked() bool {
	if e.end.passed || e.fr.Marks().Pending() > 0 {
		return true
	}
	if !e.end.running {
		e.end.running = true
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.checkEnd()
		}()
	}
	return false
}

// checkEnd reads, once every write is committed, what the store still holds
// queued or in progress, and queues it again if the crawl is still dry.
func (e *Engine) checkEnd() {
	// Deferrals (a budget's held-back URLs, a disabled host's) and withdrawals
	// wait in memory to be written: written first, they are no queued URL.
	e.lanes.FlushDeferred()
	err := e.st.Flush()
	var rows []store.URL
	if err == nil {
		rows, err = e.st.Unfinished(endCheckRows)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.end.running = false
	if e.state != view.StateRunning {
		return
	}
	if !e.discoveryIdle() || e.fr.Spilled() {
		return // work came meanwhile: asked again at the next end
	}
	switch {
	case err != nil:
		e.logf(view.LevelWarn, 0, "", "end of crawl: the store's queue could not be read to check that nothing was left behind: %v", err)
	case len(rows) == 0:
	case e.end.passes >= endCheckPasses:
		e.logf(view.LevelError, 0, "", "end of crawl: %d URLs still queued or in progress in the store after %d tries to queue them again, left for the next run on this database: %s",
			len(rows), e.end.passes, urlsShown(rows))
	default:
		e.end.passes++
		e.logf(view.LevelError, 0, "", "end of crawl: %d URLs the store holds queued or in progress were in no queue (lost on their way to it, a bug worth reporting): queued again: %s",
			len(rows), urlsShown(rows))
		for _, r := range rows {
			e.fr.Place(front.TaskOf(r))
		}
		e.checkIdle()
		return
	}
	e.end.passed = true
	e.checkIdle()
}

// urlsShown names the first endCheckShown URLs of rows, and how many more.
func urlsShown(rows []store.URL) string {
	var b strings.Builder
	for i, r := range rows {
		if i == endCheckShown {
			b.WriteString(" and " + strconv.Itoa(len(rows)-endCheckShown) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.URL)
	}
	return b.String()
}
