package refresh

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Stats is the stats object's "revisit".
func (r *Runtime) Stats() *view.RevisitStats {
	s := &view.RevisitStats{Refetches: r.refetches.Load(), Changes: r.changes.Load(),
		NotModified: r.notModified.Load(), Unknown: r.unknown.Load(), Requeued: r.Requeued.Load()}
	s.FirstPlanned, s.FirstProbed = r.firstPlans()
	return s
}

// firstPlans returns the policy's first revisits planned from site evidence and
// probed (0, 0 under the seed rule).
func (r *Runtime) firstPlans() (planned, probed int64) {
	if fp, ok := r.Tracker.Policy().(interface{ FirstPlans() (int64, int64) }); ok {
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
	view *view.RevisitView
}

// viewMaxAge is how old a cached view may be.
const viewMaxAge = 250 * time.Millisecond

// View builds the Revisit pane's data (a copy: nothing in it aliases the crawl's
// memory). queued counts the pages queued as revisits (under the crawl's lock).
func (r *Runtime) View(now time.Time, queued func() int) *view.RevisitView {
	r.view.mu.Lock()
	defer r.view.mu.Unlock()
	if r.view.view != nil && now.Sub(r.view.at) < viewMaxAge && !now.Before(r.view.at) {
		return cloneRevisitView(r.view.view)
	}
	o := r.opts
	v := &view.RevisitView{
		Enabled: o.Enabled, Policy: r.Tracker.Policy().Name(), Threshold: r.Tracker.Config().Threshold,
		Every: o.Every, Ticks: r.Ticks.Load(),
		Refetches: r.refetches.Load(), Changes: r.changes.Load(), NotModified: r.notModified.Load(),
		Unknown: r.unknown.Load(), Requeued: r.Requeued.Load(),
	}
	v.FirstPlanned, v.FirstProbed = r.firstPlans()
	if ns := r.lastTick.Load(); ns != 0 {
		v.LastTick = time.Unix(0, ns)
	}
	v.Queued = queued()
	if rows, err := r.st.RevisitQueue(revisitDueRows, revisit.Never); err == nil {
		urls := make([]string, len(rows))
		for i, r := range rows {
			urls[i] = r.URL
		}
		changes, _ := r.st.RevisitChanges(urls) // evidence only: the queue shows without it
		for _, r := range rows {
			d := view.RevisitDue{URL: r.URL, Class: r.Class, T: r.T, X: r.X, Next: r.Next,
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
	r.tally.mu.Lock()
	v.Tracked = r.tally.tracked
	for _, c := range revisit.Classes {
		v.Windows = append(v.Windows, view.ClassWindow{Class: c, Window: r.Windows.Window(c), Pages: r.tally.classes[c]})
	}
	lo := time.Duration(0)
	for i, n := range r.tally.buckets {
		b := view.IntervalBucket{Min: lo, Pages: n}
		if i < len(intervalBounds) {
			b.Max = intervalBounds[i]
			lo = b.Max
		}
		v.Intervals = append(v.Intervals, b)
	}
	r.tally.mu.Unlock()
	r.outlook(v)
	r.view.view, r.view.at = v, now
	return cloneRevisitView(v)
}

// cloneRevisitView copies a view so that callers may keep or change it.
func cloneRevisitView(v *view.RevisitView) *view.RevisitView {
	c := *v
	c.Due = slices.Clone(v.Due)
	c.Windows = slices.Clone(v.Windows)
	c.Intervals = slices.Clone(v.Intervals)
	c.Plans = slices.Clone(v.Plans)
	c.Behind = slices.Clone(v.Behind)
	return &c
}

// revisitBehindRows is how many not-followed pages the pane gets.
const revisitBehindRows = 20

// outlook fills the view's class plans and not-followed pages. The seed
// policy plans nothing: both stay empty.
func (r *Runtime) outlook(v *view.RevisitView) {
	planner, ok := r.Tracker.Policy().(revisit.Planner)
	if !ok {
		return
	}
	outlook := planner.Outlook()
	for _, c := range revisit.Classes {
		objective, budget := planner.Plan(c)
		o := outlook[c]
		// No NaN even without pages: the snapshot travels as JSON to attached consoles.
		plan := view.ClassPlan{Class: c, Objective: objective, Budget: budget, Pages: o.Pages, Behind: o.Behind}
		if o.Pages > 0 {
			plan.Fresh = o.MeanFresh()
			plan.Age = time.Duration(math.Min(o.MeanAge(), 1e5) * float64(24*time.Hour))
		}
		v.Plans = append(v.Plans, plan)
	}
	rows, err := r.st.BehindRevisits(revisitBehindRows)
	if err != nil {
		return
	}
	for _, r := range rows {
		b := view.RevisitBehind{URL: r.URL, Class: r.Class, Freq: r.Freq}
		var page revisit.Page
		if revisit.UnmarshalPolicyState(&page, r.Policy) == nil {
			b.Rate = page.Rate
		}
		v.Behind = append(v.Behind, b)
	}
}
