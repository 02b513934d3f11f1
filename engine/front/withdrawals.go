package front

import (
	"errors"
	"sync"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Withdrawing queued sources. `:keyword rm SITE WORD` and `:site rm NAME`
// take searches and entries out of the rounds; the ones already queued — on the lane
// board, spilled to the store, deferred, on their way into the queue, at the master
// or in a worker's queue — are withdrawn too: not fetched, and counted as skipped
// under SkipSteeredOut, so the operator sees where they went (never silently
// dropped). A task already in a lane's hand is fetched, and counted so: each
// hand-out ends once at the master, fetched or withdrawn. The exception the master
// cannot see is a worker it took for dead (silent past the heartbeat timeout): what
// that worker held went back to the master's queue and is withdrawn there
// (steered_out), while the worker, alive after all, may have requested some of it;
// those results come late and are dropped, as any dead worker's are (M4: at least
// once). What was stored is kept: a withdrawn URL whose page is stored (a source
// fetched in an earlier round, queued again) stays processed, with its page, and
// counts as withdrawn too; one never fetched ends failed with kind steered_out, as
// robots.txt exclusions do. A later `:keyword add` or `:site add` of the same
// source queues it again (splitSources sees it finished).
//
// The withdrawn URLs are kept in Front.out, which Place checks: a task that
// reaches the board later (paged in from the store, back from a deferral, an insert
// confirmed after the command, a revisit) is withdrawn there. On a worker the set
// holds the lease of each hand-out the master withdrew, so a later hand-out of the
// same URL (the keyword added back) is fetched.

// steerOut is the withdrawal state, guarded by the engine's lock.
type steerOut struct {
	urls    map[string]uint64 // withdrawn URL -> lease of the hand-out withdrawn (0: any, one box and master)
	pending []frontier.Task   // withdrawn, not yet ended on the frontier side (FlushSteeredOut)
	// ending counts the tasks a flush took off pending and is ending now (outside
	// the lock): until their end is handed to the frontier side they are in
	// neither pending nor the store's writes, and the crawl is not idle.
	ending int
	// flushing is held (not under the engine's lock) while a flush hands its tasks
	// to the frontier side: a flush that finds nothing left waits for one under
	// way, so its caller knows every withdrawal so far is written (KeepSources).
	flushing sync.Mutex
}

// MarkUrgent marks a source added live (a seed, an entry, a search) to go to the
// head of its lane's queue: a lane holding an ordinary task it has not sent trades
// it for it, a pausing lane cuts its pause to delay_min for it, and it goes first
// at the host's gate, so an operator's new keyword is searched as soon as the
// host's gaps allow. Lock held.
func (f *Front) MarkUrgent(url string) {
	if f.urgent == nil {
		f.urgent = map[string]bool{}
	}
	f.urgent[url] = true
}

// TakeUrgent reports whether url was marked urgent, and takes the mark off. Lock held.
func (f *Front) TakeUrgent(url string) bool {
	if !f.urgent[url] {
		return false
	}
	delete(f.urgent, url)
	return true
}

// MarkOut records URLs as withdrawn, each with the lease of the hand-out withdrawn
// (0: any). Lock held.
func (f *Front) MarkOut(urls map[string]uint64) {
	if f.out.urls == nil {
		f.out.urls = map[string]uint64{}
	}
	for u, lease := range urls {
		f.out.urls[u] = lease
	}
}

// SteeredOut is Place's check: a withdrawn task is set aside for FlushSteeredOut
// instead of queued. Lock held.
func (f *Front) SteeredOut(t frontier.Task) bool {
	if !f.Withdrawn(t) {
		return false
	}
	f.SetOut(t)
	return true
}

// Withdrawn tells whether t is a hand-out the operator's steering withdrew, without
// ending it (SetOut does). Lock held.
func (f *Front) Withdrawn(t frontier.Task) bool {
	if len(f.out.urls) == 0 {
		return false
	}
	lease, ok := f.out.urls[t.URL]
	return ok && lease == t.Lease
}

// SetOut queues a withdrawn task for its end, out of the revisit bookkeeping (it is
// no longer queued). Lock held; the task is on no board.
func (f *Front) SetOut(t frontier.Task) {
	f.marks.drop(t.URL)
	delete(f.urgent, t.URL)
	if len(f.out.pending) == 0 {
		// Ended at once, whoever placed it (a store callback confirming an insert, a
		// refill paging spilled URLs in): the crawl is not idle until then.
		f.crawl.Go(f.FlushSteeredOut)
	}
	f.out.pending = append(f.out.pending, t)
}

// FlushSteeredOut ends the tasks withdrawn so far on the frontier side (the store
// here; the master, as results, on a worker), outside the lock.
func (f *Front) FlushSteeredOut() {
	f.out.flushing.Lock()
	defer f.out.flushing.Unlock()
	f.Mu.Lock()
	list := f.out.pending
	f.out.pending = nil
	f.out.ending += len(list)
	f.Mu.Unlock()
	if len(list) == 0 {
		return
	}
	for _, t := range list {
		f.crawl.Withdrawn(t)
	}
	f.Mu.Lock()
	f.out.ending -= len(list)
	f.crawl.CheckIdle()
	f.Mu.Unlock()
}

// Withdraw takes the sources a steering change removed out of the queue and keeps
// them out (see the top of this file). It returns how many were withdrawn now; those
// still on their way into the queue are withdrawn when they reach it. On a master it
// returns once every worker holding some has taken them off its board.
func (f *Front) Withdraw(items []revisit.Item) int {
	if len(items) == 0 {
		return 0
	}
	urls := make(map[string]uint64, len(items))
	for _, it := range items {
		urls[it.URL] = 0
	}
	return f.WithdrawURLs(urls)
}

// WithdrawURLs is Withdraw for a set of URLs (the values are ignored: 0 is kept).
func (f *Front) WithdrawURLs(urls map[string]uint64) int {
	drop := func(t frontier.Task) bool { _, ok := urls[t.URL]; return ok }
	f.Mu.Lock()
	for u := range urls {
		urls[u] = 0
	}
	f.MarkOut(urls)
	n, held := f.crawl.Withdraw(drop)
	f.crawl.CheckIdle()
	f.Mu.Unlock()
	f.FlushSteeredOut()
	return n + held()
}

// KeepSources forgets earlier withdrawals of sources added back. When some were
// withdrawn, their end is written and committed first, so that the caller's
// splitSources sees them finished and queues them again (rather than taking them for
// queued, which they no longer are).
func (f *Front) KeepSources(items []revisit.Item) {
	f.Mu.Lock()
	back := false
	for _, it := range items {
		_, out := f.out.urls[it.URL]
		back = back || out
		delete(f.out.urls, it.URL)
	}
	f.Mu.Unlock()
	if back {
		f.FlushSteeredOut()
		if err := f.Store.Flush(); err != nil && !errors.Is(err, store.ErrClosed) {
			f.crawl.Logf(view.LevelWarn, "", "steering: store: %v", err)
		}
	}
}
