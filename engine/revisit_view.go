package engine

import (
	"slices"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

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
