package revisit

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// EstimatorOptions configure EstimatorPolicy; zero fields take defaults.
type EstimatorOptions struct {
	// Budget is the revisit fetches per page per day, on average over the tracked
	// pages (revisit.budget; 0.1 is one visit in ten days). The policy spends
	// budget × pages in all, however that count grows. Required.
	Budget float64
	// FloorShare is the least a page gets, as a share of Budget, so that a page the
	// policy has given up on is still sampled now and then and can be found again.
	// Default 0.1.
	FloorShare float64
	// MaxInterval caps any interval (0: no cap beyond the floor).
	MaxInterval time.Duration
	// PriorMemory is how fast the learned distribution of change rates follows new
	// evidence: every page's latest history weighs in once per PriorMemory.
	// Default 30 days.
	PriorMemory time.Duration
	// Objective is what the budget buys (revisit.objective): "freshness", "age" or
	// "balanced" ("" is DefaultObjective). See Objective.
	Objective string
	// BalanceWeight overrides the balanced objective's price of age (0: the package's
	// BalanceWeight); `go run ./bench revisit -weights` sweeps it.
	BalanceWeight float64
}

// EstimatorPolicy spends a fixed fetch budget where it buys the most of its
// objective, expected freshness, age or both (M2's second policy, selectable as
// "estimator"; the objective is revisit.objective, see Objective).
//
// Change model and estimator: Cho & Garcia-Molina, "Estimating Frequency of Change"
// (ACM TOIT 3(3), 2003): each page changes as a Poisson process of rate λ and each
// visit interval t shows "changed" with probability 1 − e^{−λt}; for irregular visits
// the likelihood of a history is Π_c (1 − e^{−λ t_c}) Π_u e^{−λ t_u}, whose maximum
// is the irregular-access estimator (EstimateRate, which also keeps Page.Rate for the
// console).
//
// Allocation: Cho & Garcia-Molina, "Effective Page Refresh Policies for Web Crawlers"
// (ACM TODS 28(4), 2003): maximise Σ F(λ_i, f_i) subject to Σ f_i = budget; the
// Lagrange condition is ∂F/∂f_i = μ for every page kept fresh (see Allocation). The
// age and balanced objectives swap in their own marginal (Objective.Marginal: the
// same paper's age-optimal allocation, and a weighted sum of the two).
//
// Why not plug the point estimate into the allocation: with a page visited every ten
// days, one changed interval says "λ ≳ 0.1/day", equally true of a page changing twice
// a month (worth visiting every few days) and one changing hourly (not worth visiting
// at all); and one quiet interval fits both a static page and a slow one. A point
// estimate picks one reading and the budget follows it: built that way, this policy
// measured 0.39 freshness against 0.38 for a fixed interval and 0.45 for the oracle
// (go run ./bench revisit, budget 0.1). The policy therefore
// keeps the uncertainty: it weighs the same likelihood over a grid of rates against
// the distribution of rates across all pages (learned by online EM from every page's
// history, so nothing about the web is assumed), and solves the Lagrange condition in
// expectation, E[∂F/∂f] = μ. A page whose history is ambiguous then gets the visits
// its chance of being slow is worth, and stops getting them once it is known to be
// static or hopelessly fast. μ, the price of a fetch, is re-solved from running sums
// whenever a page is rescheduled (see reprice), so no global solve over millions of
// pages is ever needed.
//
// The allocation is myopic: it values a fetch for the freshness it buys, not for what
// it teaches. Where that matters most, a page that may or may not change faster than
// the price allows (the boundary between "visit" and "give up"), the policy probes:
// the next visit comes after μ days, the interval that best tells the two apart, until
// the posterior settles. Safe for concurrent use.
type EstimatorPolicy struct {
	opts      EstimatorOptions
	objective Objective

	mu      sync.Mutex
	prior   [rateGridN]float64  // learned share of pages at each grid rate
	price   float64             // μ, in days; 0 until the first page arrives
	demand  float64             // Σ Page.Freq over tracked pages
	pages   int                 // tracked pages (Page.Freq > 0)
	scaled  float64             // Σ Freq·√Price over pages above the floor (see reprice)
	floored int                 // tracked pages at the floor
	tokens  float64             // probes that may be asked for now
	refill  time.Time           // when tokens were last topped up
	outlook map[string]*Outlook // per class: where the schedule is heading

	sites   *lru.Cache[string, *sitePrior] // per site: what its pages' first comparisons showed
	planned int64                          // first revisits planned from a site's prior
	probed  int64                          // new pages of such sites refetched after Initial all the same
	// siteVersion counts changes to the site priors (SitePriorsVersion).
	siteVersion int64
}

// The rate grid: 0 (static pages) and 10 log-spaced rates per decade from 1e-2 to 1e2
// changes per day (once in a hundred days to every quarter hour). A page slower than
// the lowest cannot be told from a static one within months of visits, and the floor
// still samples it.
const (
	rateGridLo        = 1e-2
	rateGridDecades   = 4
	rateGridPerDecade = 10
	rateGridN         = 1 + rateGridDecades*rateGridPerDecade + 1
)

var rateGrid = func() (g [rateGridN]float64) {
	for k := 1; k < rateGridN; k++ {
		g[k] = rateGridLo * math.Pow(10, float64(k-1)/rateGridPerDecade)
	}
	return g
}()

// longestIntervalDays bounds an interval from a near-zero frequency (about 27 years).
const longestIntervalDays = 1e4

// NewEstimatorPolicy returns an EstimatorPolicy; Budget must be positive.
func NewEstimatorPolicy(opts EstimatorOptions) (*EstimatorPolicy, error) {
	if !(opts.Budget > 0) || math.IsInf(opts.Budget, 0) {
		return nil, errors.New("revisit: estimator policy needs revisit.budget > 0 (fetches per page per day)")
	}
	if opts.FloorShare <= 0 {
		opts.FloorShare = 0.1
	}
	if opts.FloorShare >= 1 {
		return nil, errors.New("revisit: estimator floor share must be below 1")
	}
	if opts.PriorMemory <= 0 {
		opts.PriorMemory = 30 * 24 * time.Hour
	}
	obj, err := NewObjective(opts.Objective, opts.Budget)
	if err != nil {
		return nil, err
	}
	if opts.BalanceWeight != 0 {
		if !(opts.BalanceWeight > 0) || math.IsInf(opts.BalanceWeight, 0) {
			return nil, fmt.Errorf("revisit: balance weight must be positive, got %v", opts.BalanceWeight)
		}
		if obj.Name() == ObjectiveBalanced {
			obj.ageWeight = opts.BalanceWeight * opts.Budget
		}
	}
	opts.Objective = obj.Name()
	sites, err := lru.New[string, *sitePrior](siteCap)
	if err != nil {
		return nil, err
	}
	e := &EstimatorPolicy{opts: opts, objective: obj, outlook: map[string]*Outlook{}, sites: sites}
	// Before any evidence: a fifth of pages static, the rest spread evenly over the
	// log-rate grid.
	e.prior[0] = 0.2
	for k := 1; k < rateGridN; k++ {
		e.prior[k] = 0.8 / (rateGridN - 1)
	}
	return e, nil
}

// Name returns "estimator".
func (e *EstimatorPolicy) Name() string { return PolicyEstimator }

// Reschedule updates p's rate posterior and its share of the budget (p.Freq), and
// returns the interval 1/p.Freq.
func (e *EstimatorPolicy) Reschedule(p *Page, now time.Time) time.Duration {
	if len(p.History) == 0 {
		return 0
	}
	var logl [rateGridN]float64
	historyLogLikelihood(p.History, &logl)
	p.Rate = EstimateRate(p.History)
	site := ""
	if len(p.History) == 1 {
		site = siteKey(p.URL) // the page's first comparison teaches its site (sitePrior)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	var post [rateGridN]float64
	posterior(&e.prior, &logl, &post)
	if site != "" {
		e.learnSiteLocked(site, &logl)
	}

	e.untrackLocked(p)
	e.pages++
	// Online EM: the population prior moves towards this page's posterior, in
	// proportion to the time this visit covered, so each page weighs in about once
	// per PriorMemory whatever its visit rate.
	last := days(p.History[len(p.History)-1].Interval)
	eta := math.Min(0.05, last/(float64(e.pages)*days(e.opts.PriorMemory)))
	for k := range e.prior {
		e.prior[k] = (1-eta)*e.prior[k] + eta*post[k]
	}
	if e.price == 0 {
		// First page: price the budget as if it were at the prior.
		e.price = expectedMarginal(e.objective, &e.prior, e.opts.Budget)
		if !(e.price > 0) || math.IsInf(e.price, 0) {
			e.price = 1
		}
	}
	e.shareLocked(p, &post)
	interval := 1 / p.Freq // days
	// Probe a page that sits on the boundary: is it slower than 1/μ (worth visiting)
	// or faster (not)? An interval of μ days tells them apart best. Only the freshness
	// objective has that boundary: with any weight on age no page is given up.
	fast := 0.0
	for k, lambda := range rateGrid {
		if lambda*e.price >= 1 {
			fast += post[k]
		}
	}
	e.refillLocked(now)
	if e.objective.GivesUp() && fast > probeLo && fast < probeHi && e.price < interval && e.tokens >= 1 &&
		p.Probes < 2*maxProbes && probeVisits(p.History, e.price) < maxProbes {
		interval = e.price
		p.Probes++
		e.tokens--
	}
	e.repriceLocked()
	e.foreseeLocked(p, &post)
	return e.duration(interval)
}

// shareLocked sets p's share of the budget from its rate distribution w at the
// current price (the floor if that is worth less) and adds it to the running sums.
// p must be untracked.
func (e *EstimatorPolicy) shareLocked(p *Page, w *[rateGridN]float64) {
	floor := e.floorLocked()
	if f := freqAtPrice(e.objective, w, e.price); f > floor {
		p.Freq, p.Price = f, e.price
		e.scaled += f * math.Sqrt(e.price)
	} else {
		p.Freq, p.Price = floor, 0
		e.floored++
	}
	e.demand += p.Freq
}

// duration turns an interval in days into a Duration, within the longest interval
// and MaxInterval.
func (e *EstimatorPolicy) duration(interval float64) time.Duration {
	if !(interval < longestIntervalDays) {
		interval = longestIntervalDays
	}
	d := time.Duration(interval * float64(24*time.Hour))
	if e.opts.MaxInterval > 0 && d > e.opts.MaxInterval {
		d = e.opts.MaxInterval
	}
	return d
}

// A page is probed while the posterior chance that it changes too fast to be worth
// visiting is between probeLo and probeHi, until maxProbes short visits are in its
// history. A probe the crawler could not make on time (a backlog) teaches little and
// is asked again, but at most 2×maxProbes times in all: unbounded probing would itself
// make the backlog.
const (
	probeLo   = 0.2
	probeHi   = 0.8
	maxProbes = 2
)

// target is the fetches per day the tracked pages may spend in all: the per-page
// budget less a little headroom, so that a backlog (a burst of due pages) drains
// instead of lasting forever, as it would in a queue loaded to exactly its capacity.
func (e *EstimatorPolicy) target() float64 {
	return budgetHeadroom * e.opts.Budget * float64(e.pages)
}

// budgetHeadroom is the share of the budget the plan uses.
const budgetHeadroom = 0.95

// floorLocked is the least frequency a tracked page gets.
func (e *EstimatorPolicy) floorLocked() float64 {
	return e.opts.FloorShare * e.opts.Budget
}

// untrackLocked removes p's share from the running sums.
func (e *EstimatorPolicy) untrackLocked(p *Page) {
	if p.Freq <= 0 {
		return
	}
	e.outlookOf(p.Class).add(p, -1)
	e.pages--
	e.demand -= p.Freq
	if p.Price > 0 {
		e.scaled -= p.Freq * math.Sqrt(p.Price)
	} else {
		e.floored--
	}
	p.Freq, p.Price = 0, 0
}

// repriceLocked re-solves μ so that the pages' frequencies meet the budget. Far below
// the cut-off a page's optimal frequency is f = √(λ/2μ) (g(r) ≈ r²/2), so a frequency
// f_i set at price μ_i is about f_i·√(μ_i/μ) at price μ, and the budget is met at
//
//	μ = (Σ f_i √μ_i / (budget − floored pages × floor))²
//
// which the running sum scaled gives at once. Near the cut-off the law is only
// approximate; each page is re-solved exactly at its next visit.
func (e *EstimatorPolicy) repriceLocked() {
	free := e.target() - float64(e.floored)*e.floorLocked()
	if free <= 0 || e.scaled <= 0 {
		e.price = math.Min(1e9, math.Max(e.price, 1)*2) // the floor alone spends it: raise
		return
	}
	e.price = math.Max(1e-9, math.Min(1e9, math.Pow(e.scaled/free, 2)))
}

// Forget removes p's share from the budget's demand.
func (e *EstimatorPolicy) Forget(p *Page) {
	e.mu.Lock()
	e.untrackLocked(p)
	e.mu.Unlock()
}

// Restore counts a page loaded from storage with its persisted Freq and Price, so
// that the running sums are right after a restart before the page is fetched again.
func (e *EstimatorPolicy) Restore(p *Page) {
	if p.Freq <= 0 {
		return
	}
	e.mu.Lock()
	e.pages++
	e.demand += p.Freq
	if p.Price > 0 {
		e.scaled += p.Freq * math.Sqrt(p.Price)
	} else {
		e.floored++
	}
	if e.price == 0 {
		e.price = math.Max(p.Price, 1e-9)
	}
	e.outlookOf(p.Class).add(p, 1)
	e.repriceLocked()
	e.mu.Unlock()
}

// Price returns μ, the current marginal freshness per fetch a page must offer to be
// visited more, in days (for the console and tests).
func (e *EstimatorPolicy) Price() float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.price
}

// Demand returns the fetches per day the tracked pages' current frequencies add up to,
// and the number of tracked pages.
func (e *EstimatorPolicy) Demand() (perDay float64, pages int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.demand, e.pages
}

// historyLogLikelihood sets logl[k] to the log-likelihood of the history at rate
// rateGrid[k] (Cho & Garcia-Molina's Poisson model for irregular visits).
func historyLogLikelihood(visits []Visit, logl *[rateGridN]float64) {
	for _, v := range visits {
		t := days(v.Interval)
		if t <= 0 {
			continue
		}
		for k, lambda := range rateGrid {
			if v.Changed {
				logl[k] += math.Log(-math.Expm1(-lambda * t)) // -Inf at λ = 0
			} else {
				logl[k] -= lambda * t
			}
		}
	}
}

// posterior sets post to prior × likelihood, normalised.
func posterior(prior, logl, post *[rateGridN]float64) {
	top := math.Inf(-1)
	for _, l := range logl {
		top = math.Max(top, l)
	}
	sum := 0.0
	for k := range post {
		post[k] = prior[k] * math.Exp(logl[k]-top)
		sum += post[k]
	}
	if !(sum > 0) {
		*post = *prior
		return
	}
	for k := range post {
		post[k] /= sum
	}
}

// expectedMarginal is the objective's E[marginal] at frequency f under the rate
// distribution w: Σ w_k m(λ_k, f), what one more fetch per day buys (for freshness
// Σ w_k g(λ_k/f)/λ_k).
func expectedMarginal(o Objective, w *[rateGridN]float64, f float64) float64 {
	s := 0.0
	for k := 1; k < rateGridN; k++ {
		if w[k] > 1e-12 {
			s += w[k] * o.Marginal(rateGrid[k], f)
		}
	}
	return s
}

// freqAtPrice solves E[marginal] = price for f (fetches per day). The expected
// marginal falls as f grows; if even the first fetch is worth less than the price,
// f = 0.
func freqAtPrice(o Objective, w *[rateGridN]float64, price float64) float64 {
	const fLo = 1e-6
	if expectedMarginal(o, w, fLo) <= price {
		return 0
	}
	lo, hi := math.Log(fLo), math.Log(1e4)
	for range 36 { // to within 1e-9 of f, relatively
		mid := (lo + hi) / 2
		if expectedMarginal(o, w, math.Exp(mid)) > price {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

// refillLocked tops up the probe tokens: probes may take probeShare of the budget.
// At 0.1 fetches per page per day one probe costs a page's share of ten days, so
// probing every new page at once would make a backlog that delays the very probes.
func (e *EstimatorPolicy) refillLocked(now time.Time) {
	if !e.refill.IsZero() && now.After(e.refill) {
		rate := probeShare * e.opts.Budget * float64(e.pages) // probes per day
		e.tokens = math.Min(e.tokens+rate*days(now.Sub(e.refill)), math.Max(1, rate))
	}
	if e.refill.IsZero() || now.After(e.refill) {
		e.refill = now
	}
}

// probeShare is the share of the budget probes may take.
const probeShare = 0.2

// probeVisits counts the visits in history that could tell "faster than 1/price"
// from "slower": intervals within a factor of two or so of price days. Much shorter
// ones (two fetches in a row) say nothing either way.
func probeVisits(history []Visit, price float64) int {
	n := 0
	for _, v := range history {
		if t := days(v.Interval); t >= price/3 && t <= 2*price {
			n++
		}
	}
	return n
}
