package revisit

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"
)

// The freshness and age the Revisit pane says a schedule is heading for
// are what the pages then have. Pages change as Poisson processes (true change
// times drawn, not just "changed or not"), the estimator schedules them under each
// objective, and the outlook at the end must match the freshness and age measured
// over the second half of the run.
func TestOutlookForecastsMeasuredFreshnessAndAge(t *testing.T) {
	for _, obj := range Objectives {
		t.Run(obj, func(t *testing.T) {
			const (
				pages   = 300
				budget  = 0.3
				horizon = 80.0 // days
			)
			pol, err := NewEstimatorPolicy(EstimatorOptions{Budget: budget, Objective: obj})
			if err != nil {
				t.Fatal(err)
			}
			tr, _ := NewTracker(Config{Initial: 24 * time.Hour, Windows: Windows{ClassCom: 0}}, pol)
			rng := rand.New(rand.NewSource(11))
			t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
			type sim struct {
				p          Page
				rate       float64
				nextChange float64 // day of the next true change
				version    uint64  // true changes so far
				seen       uint64  // version at the last fetch
				hash       uint64  // the fingerprint the last fetch saw
				copyAt     float64 // day of the last fetch
				stale      float64 // day the copy went stale (first change after copyAt), +Inf while fresh
			}
			sims := map[string]*sim{}
			st := NewMemStore()
			for i := range pages {
				rate := 0.0
				if i%4 != 0 { // a quarter static, the rest 0.01..30 a day
					rate = math.Pow(10, -2+3.5*rng.Float64())
				}
				s := &sim{rate: rate, p: Page{URL: fmt.Sprintf("https://x.test/%d", i), Class: ClassCom}, stale: math.Inf(1)}
				s.nextChange = math.Inf(1)
				if rate > 0 {
					s.nextChange = rng.ExpFloat64() / rate
				}
				tr.Observe(&s.p, t0, Outcome{OK: true})
				st.Set(s.p.URL, s.p.Next)
				sims[s.p.URL] = s
			}
			from := horizon / 2
			var freshDays, ageDays2 float64
			// account adds the copy's fresh time and age integral over [a, b] ∩ [from, horizon].
			account := func(s *sim, a, b float64) {
				a, b = math.Max(a, from), math.Min(b, horizon)
				if b <= a {
					return
				}
				freshDays += math.Max(0, math.Min(b, s.stale)-a)
				if s.stale < b {
					lo := math.Max(a, s.stale)
					ageDays2 += ((b-s.stale)*(b-s.stale) - (lo-s.stale)*(lo-s.stale)) / 2
				}
			}
			for {
				due, _ := st.Due(1)
				day := due[0].Next.Sub(t0).Hours() / 24
				if day > horizon {
					break
				}
				s := sims[due[0].URL]
				for s.nextChange <= day { // the live page's changes up to now
					if math.IsInf(s.stale, 1) {
						s.stale = s.nextChange
					}
					s.version++
					s.nextChange += rng.ExpFloat64() / s.rate
				}
				account(s, s.copyAt, day)
				if s.version != s.seen { // any number of changes: a new fingerprint
					s.hash, s.seen = ^s.hash, s.version
				}
				tr.Observe(&s.p, due[0].Next, Outcome{Hash: s.hash, OK: true})
				st.Set(s.p.URL, s.p.Next)
				s.copyAt, s.stale = day, math.Inf(1)
			}
			for _, s := range sims { // up to the end: changes since the last fetch
				for s.nextChange <= horizon {
					if math.IsInf(s.stale, 1) {
						s.stale = s.nextChange
					}
					s.nextChange += rng.ExpFloat64() / s.rate
				}
				account(s, s.copyAt, horizon)
			}
			span := (horizon - from) * pages
			fresh, age := freshDays/span, ageDays2/span
			o := pol.Outlook()[ClassCom]
			t.Logf("%s: measured freshness %.3f, age %.3f d; forecast %.3f, %.3f d over %d pages, %d not followed",
				obj, fresh, age, o.MeanFresh(), o.MeanAge(), o.Pages, o.Behind)
			if o.Pages != pages {
				t.Errorf("outlook over %d pages, want %d", o.Pages, pages)
			}
			if math.Abs(o.MeanFresh()-fresh) > 0.05 {
				t.Errorf("forecast freshness %.3f, measured %.3f", o.MeanFresh(), fresh)
			}
			if math.Abs(o.MeanAge()-age) > 0.25*age+0.05 {
				t.Errorf("forecast age %.3f days, measured %.3f", o.MeanAge(), age)
			}
		})
	}
}
