package engine

import (
	"math"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// revisitBehindRows is how many not-followed pages the pane gets.
const revisitBehindRows = 20

// revisitOutlook fills the view's class plans and not-followed pages. The seed
// policy plans nothing: both stay empty.
func (e *Engine) revisitOutlook(v *RevisitView) {
	planner, ok := e.rv.tracker.Policy().(revisit.Planner)
	if !ok {
		return
	}
	outlook := planner.Outlook()
	for _, c := range revisit.Classes {
		objective, budget := planner.Plan(c)
		o := outlook[c]
		// No NaN even without pages: the snapshot travels as JSON to attached consoles.
		plan := ClassPlan{Class: c, Objective: objective, Budget: budget, Pages: o.Pages, Behind: o.Behind}
		if o.Pages > 0 {
			plan.Fresh = o.MeanFresh()
			plan.Age = time.Duration(math.Min(o.MeanAge(), 1e5) * float64(24*time.Hour))
		}
		v.Plans = append(v.Plans, plan)
	}
	rows, err := e.st.BehindRevisits(revisitBehindRows)
	if err != nil {
		return
	}
	for _, r := range rows {
		b := RevisitBehind{URL: r.URL, Class: r.Class, Freq: r.Freq}
		var page revisit.Page
		if revisit.UnmarshalPolicyState(&page, r.Policy) == nil {
			b.Rate = page.Rate
		}
		v.Behind = append(v.Behind, b)
	}
}

// cloneRevisitOutlook copies the view's plan slices into c.
func cloneRevisitOutlook(c, v *RevisitView) {
	c.Plans = slices.Clone(v.Plans)
	c.Behind = slices.Clone(v.Behind)
}
