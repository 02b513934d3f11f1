package engine

import (
	"errors"
	"sync"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
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
// The withdrawn URLs are kept in Engine.steered.out, which place checks: a task that
// reaches the board later (paged in from the store, back from a deferral, an insert
// confirmed after the command, a revisit) is withdrawn there. On a worker the set
// holds the lease of each hand-out the master withdrew, so a later hand-out of the
// same URL (the keyword added back) is fetched.

// SkipSteeredOut is the skip kind of a queued entry or search URL withdrawn because
// the operator removed its keyword or site while the crawl ran.
const SkipSteeredOut = front.SkipSteeredOut

// steeredSources are the sources live steering (engine/steer) added and withdrew,
// guarded by Engine.mu.
type steeredSources struct {
	// urgent are sources added live (seeds, entries, searches) that go to the head
	// of their lane's queue (Engine.addUrgent): a lane holding an ordinary task it has
	// not sent trades it for them, a pausing lane cuts its pause to delay_min for them
	// (Engine.pause), and they go first at the host's gate, so an operator's new
	// keyword is searched as soon as the host's gaps allow.
	urgent map[string]bool
	out    steerOut // queued sources withdrawn by :keyword rm and :site rm
}

// steerOut is the withdrawal state, guarded by Engine.mu.
type steerOut struct {
	urls    map[string]uint64 // withdrawn URL -> lease of the hand-out withdrawn (0: any, one box and master)
	pending []frontier.Task   // withdrawn, not yet ended on the frontier side (flushSteeredOut)
	// flushing is held (not under Engine.mu) while a flush hands its tasks to the
	// frontier side: a flush that finds nothing left waits for one under way, so its
	// caller knows every withdrawal so far is written (keepSources).
	flushing sync.Mutex
}

// markOut records URLs as withdrawn. Caller holds e.mu.
func (e *Engine) markOut(urls map[string]uint64) {
	if e.steered.out.urls == nil {
		e.steered.out.urls = map[string]uint64{}
	}
	for u, lease := range urls {
		e.steered.out.urls[u] = lease
	}
}

// unmarkOut forgets withdrawals of sources added back. Caller holds e.mu.
func (e *Engine) unmarkOut(items []revisit.Item) {
	for _, it := range items {
		delete(e.steered.out.urls, it.URL)
	}
}

// steeredOut is place's check: a withdrawn task is set aside for flushSteeredOut
// instead of queued. Caller holds e.mu.
func (e *Engine) steeredOut(t frontier.Task) bool {
	if !e.withdrawn(t) {
		return false
	}
	e.setOut(t)
	return true
}

// withdrawn tells whether t is a hand-out the operator's steering withdrew, without
// ending it (steeredOut does). Caller holds e.mu.
func (e *Engine) withdrawn(t frontier.Task) bool {
	if len(e.steered.out.urls) == 0 {
		return false
	}
	lease, ok := e.steered.out.urls[t.URL]
	return ok && lease == t.Lease
}

// setOut queues a withdrawn task for its end, out of the revisit bookkeeping (it is
// no longer queued). Caller holds e.mu; the task is on no board.
func (e *Engine) setOut(t frontier.Task) {
	delete(e.rv.queued, t.URL)
	delete(e.steered.urgent, t.URL)
	if len(e.steered.out.pending) == 0 && e.ctx.Err() == nil {
		// Ended at once, whoever placed it (a store callback confirming an insert, a
		// refill paging spilled URLs in): the crawl is not idle until then.
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.flushSteeredOut()
		}()
	}
	e.steered.out.pending = append(e.steered.out.pending, t)
}

// flushSteeredOut ends the tasks withdrawn so far on the frontier side (the store
// here; the master, as results, on a worker), outside e.mu.
func (e *Engine) flushSteeredOut() {
	e.steered.out.flushing.Lock()
	defer e.steered.out.flushing.Unlock()
	e.mu.Lock()
	list := e.steered.out.pending
	e.steered.out.pending = nil
	e.mu.Unlock()
	if len(list) == 0 {
		return
	}
	for _, t := range list {
		e.front.withdrawn(t)
	}
	e.mu.Lock()
	e.checkIdle()
	e.mu.Unlock()
}

// endSteeredOut ends a withdrawn task in the store: skipped, kind steered_out. A
// stored page is kept (the URL stays processed) and is no longer revisited; its
// revisit plan comes back with the source (requeue).
func (e *Engine) endSteeredOut(t frontier.Task) {
	_, _, err := e.st.PageValidators(t.URL)
	stored := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		stored = t.Refetch // unreadable: the master's mark, or none
	}
	state := store.Failed
	if stored {
		state = store.Processed
		e.st.SetRevisitNext([]string{t.URL}, revisit.Never)
	}
	e.finish(t, stored, 0, state, SkipSteeredOut)
}

func (f localFront) withdrawn(t frontier.Task) { f.e.endSteeredOut(t) }

// withdrawn reports a hand-out the master withdrew as a result of kind steered_out:
// the master ends it under its lease, as any other result.
func (f *remoteFront) withdrawn(t frontier.Task) {
	f.send(wire.Result{Task: t, Kind: SkipSteeredOut, At: f.e.now()})
}

// withdraw takes the sources a steering change removed out of the queue and keeps
// them out (see the top of this file). It returns how many were withdrawn now; those
// still on their way into the queue are withdrawn when they reach it. On a master it
// returns once every worker holding some has taken them off its board.
func (e *Engine) withdraw(items []revisit.Item) int {
	if len(items) == 0 {
		return 0
	}
	urls := make(map[string]uint64, len(items))
	for _, it := range items {
		urls[it.URL] = 0
	}
	return e.withdrawURLs(urls)
}

// withdrawURLs is withdraw for a set of URLs (the values are ignored: 0 is kept).
func (e *Engine) withdrawURLs(urls map[string]uint64) int {
	drop := func(t frontier.Task) bool { _, ok := urls[t.URL]; return ok }
	e.mu.Lock()
	for u := range urls {
		urls[u] = 0
	}
	e.markOut(urls)
	n, held := e.crew.withdraw(drop)
	e.checkIdle()
	e.mu.Unlock()
	e.flushSteeredOut()
	return n + held()
}

// keepSources forgets earlier withdrawals of sources added back. When some were
// withdrawn, their end is written and committed first, so that the caller's
// splitSources sees them finished and queues them again (rather than taking them for
// queued, which they no longer are).
func (e *Engine) keepSources(items []revisit.Item) {
	e.mu.Lock()
	back := false
	for _, it := range items {
		_, out := e.steered.out.urls[it.URL]
		back = back || out
	}
	e.unmarkOut(items)
	e.mu.Unlock()
	if back && e.st != nil {
		e.flushSteeredOut()
		if err := e.st.Flush(); err != nil && !errors.Is(err, store.ErrClosed) {
			e.logf(LevelWarn, 0, "", "steering: store: %v", err)
		}
	}
}
