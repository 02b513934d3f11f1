package revisit

import (
	"math"
	"math/rand"
	"testing"
	"time"
)

// poissonHistory visits a page changing at rate (per day) n times at irregular
// intervals (exponential, mean meanDays) and records whether each interval saw a change.
func poissonHistory(rng *rand.Rand, rate, meanDays float64, n int) []Visit {
	visits := make([]Visit, n)
	for i := range visits {
		t := rng.ExpFloat64() * meanDays
		visits[i] = Visit{
			Interval: time.Duration(t * float64(24*time.Hour)),
			Changed:  rng.Float64() < -math.Expm1(-rate*t), // P(at least one change)
		}
	}
	return visits
}

// naiveRate is changes seen per day observed: what t/x amounts to. It cannot see two
// changes in one interval, so it underestimates fast pages.
func naiveRate(visits []Visit) float64 {
	var total float64
	changes := 0
	for _, v := range visits {
		total += days(v.Interval)
		if v.Changed {
			changes++
		}
	}
	return float64(changes) / total
}

// Cho & Garcia-Molina's estimator recovers the true rate from irregular visits, where
// counting detected changes does not.
func TestEstimateRateOnPoissonHistories(t *testing.T) {
	// Visit counts are chosen so that one estimate's relative standard error is about
	// 5% (measured over 300 histories per case, bias below 1%). Each of 20 estimates
	// must fall within 25% (5 sd), and their mean within 5% (over 4 sd of a mean of
	// 20): false failures well below 1e-6, while a biased estimator fails (the naive
	// count is 5% to 88% low on these cases).
	cases := []struct {
		rate, meanDays float64
		visits         int
	}{
		{0.05, 1, 8000}, // one change in 20 visits
		{0.3, 1, 2000},
		{1, 1, 1000},
		{3, 1, 1000}, // most intervals see a change: little information each
		{1, 7, 1000}, // visits far apart: nearly every interval changed
	}
	for _, c := range cases {
		rng := rand.New(rand.NewSource(int64(c.rate*1000 + c.meanDays)))
		sum := 0.0
		const reps = 20
		for rep := 0; rep < reps; rep++ {
			got := EstimateRate(poissonHistory(rng, c.rate, c.meanDays, c.visits))
			sum += got
			if rel := math.Abs(got-c.rate) / c.rate; rel > 0.25 {
				t.Errorf("rate %.2f/day, visits every %.0f days: estimate %.3f (error %.0f%%)",
					c.rate, c.meanDays, got, rel*100)
			}
		}
		if rel := math.Abs(sum/reps-c.rate) / c.rate; rel > 0.05 {
			t.Errorf("rate %.2f/day, visits every %.0f days: mean estimate %.3f (bias %.1f%%)",
				c.rate, c.meanDays, sum/reps, rel*100)
		}
	}
	// The naive count is far off where changes outpace visits; the estimator is not.
	rng := rand.New(rand.NewSource(99))
	h := poissonHistory(rng, 3, 1, 1000)
	if naive, est := naiveRate(h), EstimateRate(h); math.Abs(naive-3) < 3*math.Abs(est-3) {
		t.Errorf("naive %.2f vs estimator %.2f for a true 3/day: the estimator should be far closer", naive, est)
	}
}

// With regular visits the corrected equation is exactly the paper's improved
// estimator −ln((n − X + 0.5)/(n + 0.5))/I, and stays finite when every visit changed.
func TestEstimateRateReducesToImprovedEstimator(t *testing.T) {
	interval := 6 * time.Hour
	I := days(interval)
	for _, c := range []struct{ n, changed int }{{10, 1}, {10, 5}, {10, 10}, {50, 49}, {3, 3}} {
		visits := make([]Visit, c.n)
		for i := range visits {
			visits[i] = Visit{Interval: interval, Changed: i < c.changed}
		}
		want := -math.Log((float64(c.n-c.changed)+0.5)/(float64(c.n)+0.5)) / I
		got := EstimateRate(visits)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("n=%d X=%d: %.12f, want %.12f", c.n, c.changed, got, want)
		}
	}
	if got := EstimateRate([]Visit{{Interval: time.Hour}, {Interval: time.Hour}}); got != 0 {
		t.Errorf("no change seen: rate %v, want 0", got)
	}
	if got := EstimateRate(nil); got != 0 {
		t.Errorf("empty history: rate %v, want 0", got)
	}
}

func TestFreshness(t *testing.T) {
	cases := []struct{ rate, freq, want float64 }{
		{0, 1, 1},
		{1, 0, 0},
		{1, 1, 1 - math.Exp(-1)},
		{2, 1, (1 - math.Exp(-2)) / 2},
		{1e-9, 1, 1},
	}
	for _, c := range cases {
		if got := Freshness(c.rate, c.freq); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Freshness(%v, %v) = %v, want %v", c.rate, c.freq, got, c.want)
		}
	}
}

// The optimal allocation spends exactly the budget, meets the Lagrange condition, and
// beats both the uniform and the proportional split at the same budget.
func TestSolveAllocation(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	rates := make([]float64, 1000)
	for i := range rates {
		rates[i] = math.Pow(10, -2+3*rng.Float64()) // 0.01..10 changes/day
	}
	const budget = 300.0 // 0.3 fetches per page per day
	a := SolveAllocation(rates, nil, budget, 0)
	var spent, fOpt, fUni, fProp, sumRate float64
	for _, r := range rates {
		sumRate += r
	}
	for _, r := range rates {
		f := a.Freq(r)
		spent += f
		fOpt += Freshness(r, f)
		fUni += Freshness(r, budget/float64(len(rates)))
		fProp += Freshness(r, budget*r/sumRate)
		if f > 0 {
			// ∂F/∂f = g(λ/f)/λ must equal μ wherever the page is above the floor.
			if got := gFunc(r/f) / r; math.Abs(got-a.Mu) > 1e-3*a.Mu {
				t.Fatalf("rate %.3f: marginal %.6g, want μ = %.6g", r, got, a.Mu)
			}
		} else if a.Mu*r < 1 {
			t.Fatalf("rate %.3f dropped though μλ = %.3f < 1", r, a.Mu*r)
		}
	}
	if math.Abs(spent-budget) > 1e-6*budget {
		t.Errorf("spent %.6f fetches/day, budget %.0f", spent, budget)
	}
	n := float64(len(rates))
	t.Logf("mean freshness: optimal %.3f, uniform %.3f, proportional %.3f", fOpt/n, fUni/n, fProp/n)
	if !(fOpt > fUni && fUni > fProp) {
		t.Errorf("freshness optimal %.3f, uniform %.3f, proportional %.3f: want optimal > uniform > proportional", fOpt/n, fUni/n, fProp/n)
	}
	// A floor that alone exceeds the budget gives every page the floor.
	floor := SolveAllocation(rates, nil, 10, 0.05)
	if f := floor.Freq(1); f != 0.05 {
		t.Errorf("floor-bound allocation gives %v, want the floor 0.05", f)
	}
	// Weighted bins are the same as repeated rates.
	w := SolveAllocation([]float64{0.1, 1}, []float64{3, 1}, 2, 0)
	r := SolveAllocation([]float64{0.1, 0.1, 0.1, 1}, nil, 2, 0)
	if math.Abs(w.Mu-r.Mu) > 1e-9*r.Mu {
		t.Errorf("bin counts: μ %v, repeated rates: μ %v", w.Mu, r.Mu)
	}
}

func TestGInverse(t *testing.T) {
	// Beyond r ≈ 20, g(r) is 1 to within float precision; such pages get the floor.
	for _, r := range []float64{1e-7, 1e-4, 0.01, 0.3, 1, 2.5, 10, 20} {
		y := gFunc(r)
		if got := ginv(y); math.Abs(got-r) > 1e-4*r {
			t.Errorf("ginv(g(%v)) = %v", r, got)
		}
	}
}

// Under the estimator policy pages are fetched about as often as the budget says,
// whatever the objective, and the objective decides who gets the visits: freshness
// gives the moderate pages more than the quiet ones and gives up on the hopeless ones
// (Cho & Garcia-Molina's counter-intuitive optimum); age and the balanced default do
// not give up on them (the fastest-changing pages are not starved).
func TestEstimatorPolicySpendsItsBudget(t *testing.T) {
	fast := map[string]float64{}
	for _, obj := range Objectives {
		t.Run(obj, func(t *testing.T) {
			quiet, moderate, f := simulateEstimator(t, obj)
			fast[obj] = f
			t.Logf("fetches per page: quiet %.1f, moderate %.1f, fast %.1f", quiet, moderate, f)
			switch obj {
			case ObjectiveFreshness:
				if quiet >= moderate || f >= moderate/2 {
					t.Errorf("fetches per page: quiet %.1f, moderate %.1f, fast %.1f; want moderate > quiet and > 2 × fast", quiet, moderate, f)
				}
			default:
				if quiet >= moderate || f <= quiet {
					t.Errorf("fetches per page: quiet %.1f, moderate %.1f, fast %.1f; want moderate and fast > quiet", quiet, moderate, f)
				}
			}
		})
	}
	if fast[ObjectiveBalanced] < 2*fast[ObjectiveFreshness] || fast[ObjectiveAge] < fast[ObjectiveBalanced] {
		t.Errorf("fetches per fast page: freshness %.1f, balanced %.1f, age %.1f; want balanced ≥ 2 × freshness and age ≥ balanced",
			fast[ObjectiveFreshness], fast[ObjectiveBalanced], fast[ObjectiveAge])
	}
}

// simulateEstimator runs 300 Poisson pages under the estimator with objective obj at
// 0.3 fetches per page per day for 60 days and returns the mean fetches in the
// second half of quiet (< 0.02/day), moderate (0.1..0.5/day) and fast (> 10/day)
// pages.
func simulateEstimator(t *testing.T, obj string) (quietN, moderateN, fastN float64) {
	const (
		pages  = 300
		budget = 0.3 * pages // fetches per day
		horizn = 60.0        // days
	)
	pol, err := NewEstimatorPolicy(EstimatorOptions{Budget: budget / pages, Objective: obj})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := NewTracker(Config{Initial: time.Duration(float64(24*time.Hour) / 0.3), Windows: Windows{ClassCom: 0}}, pol)
	rng := rand.New(rand.NewSource(8))
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	sims := make([]*simPage, pages)
	for i := range sims {
		sims[i] = &simPage{rate: math.Pow(10, -2+3.5*rng.Float64()), p: Page{URL: "https://example.com/p" + time.Duration(i).String()}}
	}
	runPoisson(tr, rng, t0, sims, horizn)
	total := 0
	for _, s := range sims {
		total += s.fetches
	}
	perDay := float64(total) / (horizn / 2)
	if perDay < 0.75*budget || perDay > 1.25*budget {
		t.Errorf("%.1f fetches/day in the second half, budget %.0f", perDay, budget)
	}
	// Quiet pages (< 0.02/day) get fewer fetches than moderate ones (0.1..0.5/day), and
	// so do hopeless ones (> 10/day: no budget keeps them fresh), as the optimal
	// allocation says.
	var quiet, moderate, fast, nq, nm, nf float64
	for _, s := range sims {
		switch {
		case s.rate < 0.02:
			quiet += float64(s.fetches)
			nq++
		case s.rate > 0.1 && s.rate < 0.5:
			moderate += float64(s.fetches)
			nm++
		case s.rate > 10:
			fast += float64(s.fetches)
			nf++
		}
	}
	if nq == 0 || nm == 0 || nf == 0 {
		t.Fatalf("no page in a band: %v quiet, %v moderate, %v fast", nq, nm, nf)
	}
	// Forget takes a page's share out of the demand.
	before, n := pol.Demand()
	var share float64
	for _, s := range sims[:pages/2] {
		share += s.p.Freq
		pol.Forget(&s.p)
	}
	after, m := pol.Demand()
	if m != n-pages/2 || math.Abs(before-share-after) > 1e-6*before {
		t.Errorf("after forgetting %d pages: demand %.3f over %d pages, want %.3f over %d", pages/2, after, m, before-share, n-pages/2)
	}
	return quiet / nq, moderate / nm, fast / nf
}

// simPage is a simulated page: a Poisson process of rate changes a day, the version
// the live page is at, the day it was last fetched, and its fetches in the second
// half of a run.
type simPage struct {
	p       Page
	rate    float64
	version uint64
	last    float64
	fetches int
}

// runPoisson fetches pages when tr schedules them, from t0 for horizon days: each
// fetch sees whether its page changed since the last one (P = 1 - e^{-λΔ}). It
// counts each page's fetches in the second half, once the schedule has settled.
func runPoisson(tr *Tracker, rng *rand.Rand, t0 time.Time, pages []*simPage, horizon float64) {
	st := NewMemStore()
	byURL := map[string]*simPage{}
	for _, s := range pages {
		tr.Observe(&s.p, t0, Outcome{OK: true})
		st.Set(s.p.URL, s.p.Next)
		byURL[s.p.URL] = s
	}
	for {
		due, _ := st.Due(1)
		now := due[0].Next
		day := now.Sub(t0).Hours() / 24
		if day > horizon {
			return
		}
		s := byURL[due[0].URL]
		if rng.Float64() < -math.Expm1(-s.rate*(day-s.last)) {
			s.version++
		}
		s.last = day
		h := uint64(0) // alternate between two far-apart fingerprints: every change shows
		if s.version%2 == 1 {
			h = ^uint64(0)
		}
		tr.Observe(&s.p, now, Outcome{Hash: h, OK: true})
		st.Set(s.p.URL, s.p.Next)
		if day > horizon/2 {
			s.fetches++
		}
	}
}
