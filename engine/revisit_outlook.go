package engine

import (
	"math"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// ClassPlan is where one page class's revisit schedule is heading (issue 15): the
// objective and budget it is planned with, and the freshness and age its pages'
// estimated change rates and planned fetch frequencies lead to (revisit.Outlook),
// with the pages the budget cannot follow.
type ClassPlan struct {
	Class     string
	Objective string        // freshness, age or balanced
	Budget    float64       // fetches per page per day
	Pages     int           // pages with an estimate (compared at least once under the estimator)
	Fresh     float64       // expected share of the class's pages fresh at a time; 0 without pages
	Age       time.Duration // expected mean age of a page (0 while fresh); 0 without pages
	Behind    int           // pages that change over revisit.FollowFactor × as often as they are fetched
}

// RevisitBehind is one page the revisit budget cannot follow: it changes far faster
// than it is fetched, so most of its changes are never seen (issue 15).
type RevisitBehind struct {
	URL   string
	Class string
	Rate  float64 // estimated changes per day (revisit.EstimateRate)
	Freq  float64 // planned fetches per day
}

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
