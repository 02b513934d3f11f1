package engine

import (
	"slices"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// RevisitView is what the console's Revisit pane shows (M2, seed 001; classes and
// windows from seed 003): the pages due next, what refetches found, each class's
// active window and how the learned revisit intervals (t/x) spread.
type RevisitView struct {
	Enabled   bool          // the scheduler requeues due pages (revisit.enabled)
	Policy    string        // "estimator" or "seed" (revisit.policy)
	Threshold int           // Hamming distance above which a page counts as changed
	Every     time.Duration // scheduler period (revisit.every)
	LastTick  time.Time     // when the scheduler last ran; zero before its first tick
	Ticks     int64         // scheduler ticks so far

	Tracked int64 // pages with revisit state (fetched at least once)
	Queued  int   // revisit tasks waiting for a lane or being fetched now

	Refetches   int64 // fetches of pages already stored, 304s included
	Changes     int64 // refetches whose main text changed (Hamming > threshold)
	NotModified int64 // refetches answered 304 to a conditional GET: unchanged, no body
	Unknown     int64 // refetches with no usable text or a failed fetch: nothing learned
	Requeued    int64 // pages put back in the crawl queue (scheduler and :revisit now)
	// FirstPlanned counts new pages whose first revisit the estimator planned from
	// what their site's earlier pages showed (revisit.FirstPlanner), instead of M2's
	// blind refetch revisit.initial later; FirstProbed, new pages of those sites
	// refetched after revisit.initial all the same, to keep that evidence current.
	FirstPlanned, FirstProbed int64

	// Due is the due queue: the first pages by next due time, soonest (or most
	// overdue) first, at most 50. Pages waiting in the crawl queue are counted in
	// Queued, not listed here.
	Due []RevisitDue
	// Windows lists every class with its active window, in the order soc, web_com,
	// web_net, web_edu, web_gov.
	Windows []ClassWindow
	// Intervals is the histogram of the learned interval t/x over pages compared at
	// least once, in ascending log buckets.
	Intervals []IntervalBucket
	// Plans is, per class in the order of Windows, where its schedule is heading
	// (objective, budget, expected freshness and age, pages not followed); empty
	// under the seed policy (issue 15).
	Plans []ClassPlan
	// Behind lists pages the budget cannot follow, at most 20, in URL order.
	Behind []RevisitBehind
}

// RevisitDue is one row of the due queue (M2 seed state).
type RevisitDue struct {
	URL      string
	Class    string        // soc, web_com, web_net, web_edu or web_gov
	T        time.Duration // time observed since the first fetch (seed "t")
	X        int           // changes seen, starting at 1 (seed "x")
	Next     time.Time     // when the page is due; before Snapshot.At means overdue
	Distance int           // Hamming distance at the last comparison, -1 before any
	Fetches  int           // fetches of the page so far
	// The evidence of the last change (issue 19): its SimHash distance (-1: none
	// yet), why it counted ("main text edited", "headline changed"; "simhash" on a
	// page without an article), why the latest comparison did or did not count
	// ("only boilerplate moved"), and whether the page has no recognisable article
	// (its fingerprint is of all its visible text).
	ChangeDistance  int
	ChangeReason    string
	LastReason      string
	BoilerplateOnly bool // the latest comparison: only the page around the article moved
	Fallback        bool
}

// ClassWindow is one page class's active window: a page whose first fetch is older
// than it is no longer revisited.
type ClassWindow struct {
	Class  string
	Window time.Duration // 0: no limit
	Pages  int64         // pages of the class with revisit state
}

// IntervalBucket is one bar of the interval histogram: pages whose t/x lies in
// [Min, Max).
type IntervalBucket struct {
	Min, Max time.Duration // Max 0: no upper bound
	Pages    int64
}

// RevisitStats is the --stats-json "revisit" object (M2).
type RevisitStats struct {
	Refetches   int64 `json:"refetches"`    // fetches of pages already stored, 304s included
	Changes     int64 `json:"changes"`      // refetches that found the main text changed
	NotModified int64 `json:"not_modified"` // refetches answered 304: unchanged, no body
	Unknown     int64 `json:"unknown"`      // refetches that taught nothing (no text, errors)
	Requeued    int64 `json:"requeued"`     // pages put back in the crawl queue
	// FirstPlanned are new pages whose first revisit was planned from their site's
	// evidence, FirstProbed those refetched after revisit.initial to keep it current.
	FirstPlanned int64 `json:"first_planned"`
	FirstProbed  int64 `json:"first_probed"`
}

// revisitStats is the stats object.
func (e *Engine) revisitStats() *RevisitStats {
	rv := e.rv
	s := &RevisitStats{Refetches: rv.refetches.Load(), Changes: rv.changes.Load(),
		NotModified: rv.notModified.Load(), Unknown: rv.unknown.Load(), Requeued: rv.requeued.Load()}
	s.FirstPlanned, s.FirstProbed = rv.firstPlans()
	return s
}

// firstPlans returns the policy's first revisits planned from site evidence and
// probed (0, 0 under the seed rule).
func (rv *revisitRuntime) firstPlans() (planned, probed int64) {
	if fp, ok := rv.tracker.Policy().(interface{ FirstPlans() (int64, int64) }); ok {
		return fp.FirstPlans()
	}
	return 0, 0
}

// revisitDueRows is how many pages of the due queue the pane gets.
const revisitDueRows = 50

// viewCache keeps the last RevisitView for a moment: the due queue is a store read,
// and several consoles (SSH sessions) may each pull snapshots a few times a second.
type viewCache struct {
	mu   sync.Mutex
	at   time.Time
	view *RevisitView
}

// viewMaxAge is how old a cached view may be.
const viewMaxAge = 250 * time.Millisecond

// revisitView builds the Revisit pane's data (a copy: nothing in it aliases engine
// memory).
func (e *Engine) revisitView(now time.Time) *RevisitView {
	rv := e.rv
	rv.view.mu.Lock()
	defer rv.view.mu.Unlock()
	if rv.view.view != nil && now.Sub(rv.view.at) < viewMaxAge && !now.Before(rv.view.at) {
		return cloneRevisitView(rv.view.view)
	}
	o := e.opts.Revisit
	v := &RevisitView{
		Enabled: o.Enabled, Policy: rv.tracker.Policy().Name(), Threshold: rv.tracker.Config().Threshold,
		Every: o.Every, Ticks: rv.ticks.Load(),
		Refetches: rv.refetches.Load(), Changes: rv.changes.Load(), NotModified: rv.notModified.Load(),
		Unknown: rv.unknown.Load(), Requeued: rv.requeued.Load(),
	}
	v.FirstPlanned, v.FirstProbed = rv.firstPlans()
	if ns := rv.lastTick.Load(); ns != 0 {
		v.LastTick = time.Unix(0, ns)
	}
	e.mu.Lock()
	v.Queued = len(rv.queued)
	e.mu.Unlock()
	if rows, err := e.st.RevisitQueue(revisitDueRows, revisit.Never); err == nil {
		urls := make([]string, len(rows))
		for i, r := range rows {
			urls[i] = r.URL
		}
		changes, _ := e.st.RevisitChanges(urls) // evidence only: the queue shows without it
		for _, r := range rows {
			d := RevisitDue{URL: r.URL, Class: r.Class, T: r.T, X: r.X, Next: r.Next,
				Distance: r.Distance, Fetches: r.Fetches, ChangeDistance: -1}
			if c, ok := changes[r.URL]; ok {
				d.ChangeDistance, d.Fallback = c.ChangeDistance, c.Fallback
				d.ChangeReason = revisit.ChangeReason(c.ChangeReason).String()
				d.LastReason = revisit.ChangeReason(c.Reason).String()
				d.BoilerplateOnly = revisit.ChangeReason(c.Reason) == revisit.ReasonBoilerplate
			}
			v.Due = append(v.Due, d)
		}
	}
	rv.tally.mu.Lock()
	v.Tracked = rv.tally.tracked
	for _, c := range revisit.Classes {
		v.Windows = append(v.Windows, ClassWindow{Class: c, Window: rv.windows.Window(c), Pages: rv.tally.classes[c]})
	}
	lo := time.Duration(0)
	for i, n := range rv.tally.buckets {
		b := IntervalBucket{Min: lo, Pages: n}
		if i < len(intervalBounds) {
			b.Max = intervalBounds[i]
			lo = b.Max
		}
		v.Intervals = append(v.Intervals, b)
	}
	rv.tally.mu.Unlock()
	e.revisitOutlook(v)
	rv.view.view, rv.view.at = v, now
	return cloneRevisitView(v)
}

// cloneRevisitView copies a view so that callers may keep or change it.
func cloneRevisitView(v *RevisitView) *RevisitView {
	c := *v
	c.Due = slices.Clone(v.Due)
	c.Windows = slices.Clone(v.Windows)
	c.Intervals = slices.Clone(v.Intervals)
	cloneRevisitOutlook(&c, v)
	return &c
}
