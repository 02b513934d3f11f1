package front

import (
	"strconv"
	"strings"

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

// endCheck is the state of the end's check. Guarded by the lock.
type endCheck struct {
	running bool   // the store is being asked
	from    uint64 // Front.placed when the check began
	passed  bool   // the store agreed (or gave up): the crawl may say it ran dry
	passes  int    // how many times URLs were found and queued again
}

// endCheckPasses bounds the ends at which found URLs are queued again;
// endCheckRows the URLs one check reads, endCheckShown those it names.
const (
	endCheckPasses = 3
	endCheckRows   = 1000
	endCheckShown  = 5
)

// EndChecked tells whether the store agreed the crawl ran dry; false starts the
// check (or waits for the one running), which calls Crawl.CheckIdle again. A crawl
// with revisits waiting in memory (their rows unprocessed by design) is not
// checked. Nor does it end while revisits are on their way there (claimed, not
// placed: their rows read queued, their tasks in no queue): Requeue asks again
// once they are placed. It is the front's on one box and on a master (a worker's
// master checks its own). Lock held.
func (f *Front) EndChecked() bool {
	if f.claimed > 0 {
		return false
	}
	if f.end.passed || f.marks.Pending() > 0 {
		return true
	}
	if !f.end.running {
		f.end.from = f.placed.Load()
		f.end.running = f.crawl.Go(f.checkEnd)
	}
	return false
}

// checkEnd reads, once every write is committed, what the store still holds
// queued or in progress, and queues it again if the crawl is still dry.
func (f *Front) checkEnd() {
	// Deferrals (a budget's held-back URLs, a disabled host's) and withdrawals
	// wait in memory to be written: written first, they are no queued URL.
	f.crawl.FlushDeferred()
	err := f.Store.Flush()
	var rows []store.URL
	if err == nil {
		rows, err = f.Store.Unfinished(endCheckRows)
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.end.running = false
	if !f.crawl.Running() {
		return
	}
	if !f.crawl.Dry() || f.Spilled() {
		return // work came meanwhile: asked again at the next end
	}
	if f.placed.Load() != f.end.from || f.claimed > 0 {
		// Work was placed while the store was read, and may have ended already (a
		// revisit the scheduler queued, fetched and let go): a row read as queued
		// then is no lost URL now, and queued again it would be fetched twice. The
		// crawl is dry again, so no end is coming to ask: ask again now. So too
		// while revisits are claimed and not placed yet: their rows read queued.
		f.crawl.CheckIdle()
		return
	}
	switch {
	case err != nil:
		f.crawl.Logf(view.LevelWarn, "", "end of crawl: the store's queue could not be read to check that nothing was left behind: %v", err)
	case len(rows) == 0:
	case f.end.passes >= endCheckPasses:
		f.crawl.Logf(view.LevelError, "", "end of crawl: %d URLs still queued or in progress in the store after %d tries to queue them again, left for the next run on this database: %s",
			len(rows), f.end.passes, urlsShown(rows))
	default:
		f.end.passes++
		f.crawl.Logf(view.LevelError, "", "end of crawl: %d URLs the store holds queued or in progress were in no queue (lost on their way to it, a bug worth reporting): queued again: %s",
			len(rows), urlsShown(rows))
		for _, r := range rows {
			f.Place(TaskOf(r))
		}
		f.crawl.CheckIdle()
		return
	}
	f.end.passed = true
	f.crawl.CheckIdle()
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
