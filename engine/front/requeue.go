package front

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// RevisitTick runs one tick of the revisit scheduler (M2, seed 001 step 3): the
// first m pages by ascending next, those due back in the crawl queue.
func (f *Front) RevisitTick(now time.Time) {
	due, err := f.Revisit.Tick(now)
	if err != nil {
		f.crawl.Logf(view.LevelError, "", "revisit: %v", err)
		return
	}
	if len(due) == 0 {
		return
	}
	n, err := f.RequeueDue(due, now)
	if err != nil {
		f.crawl.Logf(view.LevelError, "", "revisit: %v", err)
	}
	if n > 0 {
		f.crawl.Logf(view.LevelInfo, "", "revisit: %d due pages back in the queue", n)
	}
}

// Requeue puts stored pages back in the crawl queue as revisits now, whatever their
// next due time and their class window (a hint, a round, the operator). It returns
// how many were requeued.
func (f *Front) Requeue(urls []string, now time.Time) (int, error) {
	due := make([]revisit.Entry, len(urls))
	for i, u := range urls {
		due[i] = revisit.Entry{URL: u}
	}
	return f.requeue(due, now, true)
}

// RequeueDue puts the pages the scheduler found due (its tick's entries, each with
// the next it was read at) back in the crawl queue as revisits. Pages whose class
// window has closed are parked for good. It returns how many were requeued.
func (f *Front) RequeueDue(due []revisit.Entry, now time.Time) (int, error) {
	return f.requeue(due, now, false)
}

// requeue puts stored pages back in the crawl queue as revisits (M2). They are in
// the store already (processed), so they bypass dedupe and the insert path: their
// state goes back to unprocessed and the task, rebuilt from the store with its
// original parent hash and depth so that M1 adjacency still holds, is placed on the
// board directly. Unless force, pages whose class window has closed are parked for
// good (next = Never) instead.
//
// A queued page is parked (next = Never) in the store write that marks its URL
// unprocessed: the scheduler does not take it again while it waits, its fetch gives
// it its next due time, and no commit leaves it parked with its URL still processed
// (a kill between two writes left it so: never revisited again, and a store of such
// pages said "nothing to crawl").
//
// The scheduler's pages (not forced) are parked only if their next is still the one
// its tick read: a page whose fetch ended since (a hint's, or one queued while the
// page was due again) had its result store its next due time, which stands, and it
// is not queued, or it would be fetched again right after. The URL states are read
// before the revisit states for this: a fetch's result writes the page's revisit
// state before its URL state, in one ordered queue of commits, so a URL read
// processed has its fetch's next due time in the read that follows, and a fetch not
// committed yet leaves the URL in progress, not queued here. The write checks the
// next again, for a fetch ending after these reads.
func (f *Front) requeue(due []revisit.Entry, now time.Time, force bool) (int, error) {
	urls := make([]string, len(due))
	read := make(map[string]time.Time, len(due))
	for i, e := range due {
		urls[i] = e.URL
		read[e.URL] = e.Next
	}
	rows, err := f.Store.URLStates(urls)
	var states []store.Revisit
	if err == nil {
		states, err = f.Store.Revisits(urls)
	}
	if err != nil {
		if force {
			f.Store.SetRevisitNext(urls, now) // due now: the scheduler queues them
		}
		return 0, err // the scheduler's pages are still due: its next tick tries again
	}
	stored := make(map[string]store.Revisit, len(states))
	for _, s := range states {
		stored[s.URL] = s
	}
	var tasks []frontier.Task
	var retire, waiting []store.DueRevisit // parked, not queued: past their window, waiting in the queue
	for _, r := range rows {
		s, ok := stored[r.URL]
		first := s.First
		if !ok && !(force && r.ErrKind == SkipSteeredOut) { // a source withdrawn unfetched, added back
			continue
		}
		if ok && !force && !s.Next.Equal(read[r.URL]) {
			continue // fetched since the tick read it: its next due time stands
		}
		if !force && !f.inWindow(r.Host, first, now) && !f.disc.IsSource(r.URL) {
			retire = append(retire, store.DueRevisit{URL: r.URL, Next: s.Next}) // M2/M3: never revisited again
			continue
		}
		if r.State != store.Processed && r.State != store.Failed {
			// Already in the crawl queue (resumed after a restart, say): parked while
			// it waits, its fetch gives it its next due time. One in a lane's hand
			// keeps its due time: its fetch may have stored it already (a 304's URL
			// state still reads in progress), and parked, the page would stay so.
			if !force && r.State != store.InProgress {
				waiting = append(waiting, store.DueRevisit{URL: r.URL, Next: s.Next})
			}
			continue
		}
		t := TaskOf(r)
		t.Attempts = 0
		tasks = append(tasks, t)
	}
	// Store writes never happen under the lock (the writer's callbacks take it), so the
	// tasks are claimed, queued in the store, then placed.
	//
	// A page still marked as a queued revisit may be one whose fetch has ended and
	// stored its next due time, its lane not yet done with it (the mark goes when the
	// lane lets the task go, after the result is recorded): it is not queued again,
	// and keeps its due time; the next tick queues it once the lane let go. Pages
	// found while the crawl is not running stay due, for the first tick once it runs.
	f.Mu.Lock()
	var claimed []frontier.Task
	var later []string
	for _, t := range tasks {
		switch {
		case !f.crawl.Running():
			later = append(later, t.URL)
		case f.marks.Mark(t.URL):
			claimed = append(claimed, t)
		}
	}
	// Until placed, a claimed page's URL may read queued in the store with no task
	// in memory: the end check must not take it for a URL lost on its way to the
	// queue and queue it a second time.
	f.claimed += len(claimed)
	f.Mu.Unlock()
	if force && len(later) > 0 {
		f.Store.SetRevisitNext(later, now) // due now: the scheduler queues them once the crawl runs
	}
	var queued map[string]bool // nil when forced: every claimed page is queued
	if force {
		claimedURLs := make([]string, len(claimed))
		for i, t := range claimed {
			claimedURLs[i] = t.URL
		}
		f.Store.QueueRevisitsNow(claimedURLs, revisit.Never)
	} else if len(claimed)+len(retire)+len(waiting) > 0 {
		queue := make([]store.DueRevisit, len(claimed))
		for i, t := range claimed {
			queue[i] = store.DueRevisit{URL: t.URL, Next: read[t.URL]}
		}
		queued = map[string]bool{}
		for _, u := range f.Store.QueueRevisits(queue, append(retire, waiting...), revisit.Never) {
			queued[u] = true
		}
	}
	f.Mu.Lock()
	f.claimed -= len(claimed)
	n := 0
	for _, t := range claimed {
		switch {
		case queued != nil && !queued[t.URL]:
			f.marks.drop(t.URL) // its fetch ended since the tick read it (or the write failed): not queued
		case f.crawl.Running(): // else unprocessed in the store: the next run resumes it
			f.Place(t)
			n++
		}
	}
	if len(claimed) > 0 {
		// The crawl could not end while they were claimed (Busy): an end that came
		// meanwhile is asked again now, none being placed or fetched to ask it.
		f.crawl.CheckIdle()
	}
	f.Mu.Unlock()
	f.Revisit.Requeued.Add(int64(n))
	f.crawl.FlushDeferred() // a disabled host's revisits were deferred, never dropped (M3)
	return n, nil
}

// RevisitNow puts a stored page back in the crawl queue at once, whatever its next
// due time and its class window (`:revisit now URL`).
func (f *Front) RevisitNow(raw string) error {
	u, err := frontier.Normalize(strings.TrimSpace(raw))
	if err != nil {
		return fmt.Errorf("revisit now: %q: %w", raw, err)
	}
	f.Mu.Lock()
	running, queued := f.crawl.Running(), f.marks.Queued(u)
	f.Mu.Unlock()
	switch {
	case !running:
		return errors.New("revisit now: the crawl is not running")
	case queued:
		return fmt.Errorf("revisit now: %s is already queued for a revisit", u)
	}
	// Read what was written so far: a page fetched a moment ago is still on its way to
	// the store (writes are batched).
	if err := f.Store.Flush(); err != nil && !errors.Is(err, store.ErrClosed) {
		f.crawl.Logf(view.LevelWarn, "", "revisit now: store: %v", err)
	}
	row, err := f.Store.URLState(u)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("revisit now: %s is not in this crawl", u)
	} else if err != nil {
		return fmt.Errorf("revisit now: %w", err)
	}
	if row.State != store.Processed && row.State != store.Failed {
		return fmt.Errorf("revisit now: %s is %s: it is in the crawl queue already", u, row.State)
	}
	if _, err := f.Store.Revisit(u); errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("revisit now: %s has no stored page to revisit", u)
	}
	n, err := f.Requeue([]string{u}, f.crawl.Now())
	if err != nil {
		return fmt.Errorf("revisit now: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("revisit now: %s could not be queued", u)
	}
	f.crawl.Logf(view.LevelInfo, HostOf(u), "revisit now: %s queued by operator", u)
	return nil
}

// SetAside writes url, of host, deferred until until and counts it (Counters.
// Deferral) under kind, behind the held host behind if its site's robots.txt
// leads there: such a wait is kept as store.KindRobotsHeld, so that the next
// start asks its robots.txt again rather than let it wait out its time.
func (f *Front) SetAside(url, host string, until time.Time, kind, behind string) {
	keep := kind
	if behind != "" {
		keep = store.KindRobotsHeld
	}
	f.Store.DeferAs(url, until, keep)
	f.Counters.Deferral(kind, url, host, behind)
}

// EndSteeredOut ends a withdrawn task in the store: skipped, kind steered_out. A
// stored page is kept (the URL stays processed) and is no longer revisited; its
// revisit plan comes back with the source (Requeue).
func (f *Front) EndSteeredOut(t frontier.Task) {
	f.Counters.Settled(t.URL)
	_, _, err := f.Store.PageValidators(t.URL)
	stored := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		stored = t.Refetch // unreadable: the master's mark, or none
	}
	state := store.Failed
	if stored {
		state = store.Processed
		f.Store.SetRevisitNext([]string{t.URL}, revisit.Never)
	}
	f.Finish(t, stored, 0, state, SkipSteeredOut)
}
