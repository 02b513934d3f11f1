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
	urls, err := f.Revisit.Tick(now)
	if err != nil {
		f.crawl.Logf(view.LevelError, "", "revisit: %v", err)
		return
	}
	if len(urls) == 0 {
		return
	}
	n, err := f.Requeue(urls, now, false)
	if err != nil {
		f.crawl.Logf(view.LevelError, "", "revisit: %v", err)
	}
	if n > 0 {
		f.crawl.Logf(view.LevelInfo, "", "revisit: %d due pages back in the queue", n)
	}
}

// Requeue puts stored pages back in the crawl queue as revisits (M2). They are in
// the store already (processed), so they bypass dedupe and the insert path: their
// state goes back to unprocessed and the task, rebuilt from the store with its
// original parent hash and depth so that M1 adjacency still holds, is placed on the
// board directly. Pages whose class window has closed are left parked for good
// unless force (the operator's :revisit now). It returns how many were requeued.
//
// The pages come parked (next = Never); any that cannot be queued now for a passing
// reason (a read error, the engine stopping) are made due again, never left parked.
//
// A scheduler's page (not forced) whose next is no longer Never had a fetch end
// since the tick parked it (a hint's, or one queued while the page was due again):
// its result stored its next due time, which stands, and it is not queued, or it
// would be fetched again right after. The URL states are read before the revisit
// states for this: a fetch's result writes the page's revisit state before its URL
// state, in one ordered queue of commits, so a URL read processed has its fetch's
// next due time in the read that follows, and a fetch not committed yet leaves the
// URL in progress, not queued here.
func (f *Front) Requeue(urls []string, now time.Time, force bool) (int, error) {
	rows, err := f.Store.URLStates(urls)
	var states []store.Revisit
	if err == nil {
		states, err = f.Store.Revisits(urls)
	}
	if err != nil {
		f.dueAgain(urls, now, force)
		return 0, err
	}
	stored := make(map[string]store.Revisit, len(states))
	for _, s := range states {
		stored[s.URL] = s
	}
	var tasks []frontier.Task
	var inQueue, busy []string // busy: marked queued already, not queued again, not left parked
	for _, r := range rows {
		s, ok := stored[r.URL]
		first := s.First
		if !ok && !(force && r.ErrKind == SkipSteeredOut) { // a source withdrawn unfetched, added back
			continue
		}
		if ok && !force && !s.Next.Equal(revisit.Never) {
			continue // fetched since the tick parked it: its next due time stands
		}
		if !force && !f.inWindow(r.Host, first, now) && !f.disc.IsSource(r.URL) {
			continue // M2/M3: past its class window, never revisited again
		}
		if r.State != store.Processed && r.State != store.Failed {
			inQueue = append(inQueue, r.URL) // already in the crawl queue (e.g. resumed after a restart)
			continue
		}
		t := TaskOf(r)
		t.Attempts = 0
		tasks = append(tasks, t)
	}
	// Store writes never happen under the lock (the writer's callbacks take it), so the
	// tasks are claimed, marked unprocessed, then placed.
	f.Mu.Lock()
	var claimed []frontier.Task
	var later []string
	for _, u := range inQueue {
		if f.marks.Queued(u) {
			busy = append(busy, u)
		}
	}
	for _, t := range tasks {
		switch {
		case !f.crawl.Running():
			later = append(later, t.URL)
		case f.marks.Mark(t.URL):
			claimed = append(claimed, t)
		default:
			busy = append(busy, t.URL)
		}
	}
	f.Mu.Unlock()
	if len(later) > 0 {
		f.dueAgain(later, now, force) // due again when the crawl runs next
	}
	// A page still marked as a queued revisit may be one whose fetch has ended and
	// stored its next due time, its lane not yet done with it (the mark goes when
	// the lane lets the task go, after the result is recorded; a 304's state may
	// still read in progress). Left parked, it would never be revisited again. Still
	// parked, it is due again now (no sooner than it was due: it was found due), and
	// the next tick queues it once the lane let go; one truly waiting in the queue
	// gets its next due time from its fetch. Only the scheduler's pages (not forced)
	// come parked: a hint's or a round's page in a lane's hand keeps the due time
	// its fetch is about to store.
	if len(busy) > 0 && !force {
		f.dueAgain(busy, now, false)
	}
	for _, t := range claimed {
		f.Store.SetState(t.URL, store.Unprocessed, 0, "") // a stop before the fetch resumes it
	}
	f.Mu.Lock()
	n := 0
	for _, t := range claimed {
		if f.crawl.Running() { // else unprocessed in the store: the next run resumes it
			f.Place(t)
			n++
		}
	}
	f.Mu.Unlock()
	f.Revisit.Requeued.Add(int64(n))
	f.crawl.FlushDeferred() // a disabled host's revisits were deferred, never dropped (M3)
	return n, nil
}

// dueAgain makes pages that Requeue did not queue due at now. The scheduler's
// pages (not forced) were parked by its tick, and only those still parked are made
// due: a page in a lane's hand may have had its fetch's result, with its next due
// time, written since the tick read it, and that time stands (overwritten with now,
// the page would be fetched again at the next tick, right after its fetch). A
// forced caller's pages are due now whatever their next.
func (f *Front) dueAgain(urls []string, now time.Time, force bool) {
	if force {
		f.Store.SetRevisitNext(urls, now)
		return
	}
	f.Store.SetRevisitNextIf(urls, revisit.Never, now)
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
	f.Store.SetRevisitNext([]string{u}, revisit.Never)
	n, err := f.Requeue([]string{u}, f.crawl.Now(), true)
	if err != nil {
		return fmt.Errorf("revisit now: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("revisit now: %s could not be queued", u)
	}
	f.crawl.Logf(view.LevelInfo, HostOf(u), "revisit now: %s queued by operator", u)
	return nil
}

// EndSteeredOut ends a withdrawn task in the store: skipped, kind steered_out. A
// stored page is kept (the URL stays processed) and is no longer revisited; its
// revisit plan comes back with the source (Requeue).
func (f *Front) EndSteeredOut(t frontier.Task) {
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
