package revisit

import (
	"errors"
	"math"
	"sync"
	"time"
)

// EstimatorOptions configure EstimatorPolicy; zero fields take defaults.
type EstimatorOptions struct {
	// Budget is the revisit fetches per day to spend over all tracked pages: the
	// share of the crawl's capacity given to revisits. Required.
	Budget float64
	// FloorShare is the least a page gets, as a share of the average per-page
	// budget, so that pages the optimum would drop are still sampled and their
	// estimates can recover. Default 0.1.
	FloorShare float64
	// MaxInterval caps any interval (0: no cap beyond the floor).
	MaxInterval time.Duration
	// ResolveEvery re-solves the allocation after this many rate updates
	// (default: max(32, pages/32)); Resolve forces it.
	ResolveEvery int
}

// EstimatorPolicy estimates each page's change rate from its irregular visit history
// (EstimateRate) and spends a fixed fetch budget where it buys the most freshness
// (SolveAllocation). It keeps a histogram of the current rate estimates so that the
// allocation is solved over a few hundred rate bins, not millions of pages. Safe for
// concurrent use.
type EstimatorPolicy struct {
	opts EstimatorOptions

	mu      sync.Mutex
	bins    [rateBins]float64 // pages per log-rate bin
	pages   int
	dirty   int
	alloc   Allocation
	solved  bool
	floorFq float64
}

// Rate bins: 32 per decade over [minRate, maxRate] changes per day.
const (
	rateBinsPerDecade = 32
	rateBins          = 8 * rateBinsPerDecade
)

// longestIntervalDays bounds an interval from a near-zero frequency (about 27 years).
const longestIntervalDays = 1e4

// NewEstimatorPolicy returns an EstimatorPolicy; Budget must be positive.
func NewEstimatorPolicy(opts EstimatorOptions) (*EstimatorPolicy, error) {
	if !(opts.Budget > 0) || math.IsInf(opts.Budget, 0) {
		return nil, errors.New("revisit: estimator policy needs revisit.budget > 0 (fetches per day)")
	}
	if opts.FloorShare <= 0 {
		opts.FloorShare = 0.1
	}
	if opts.FloorShare >= 1 {
		return nil, errors.New("revisit: estimator floor share must be below 1")
	}
	return &EstimatorPolicy{opts: opts}, nil
}

// Name returns "estimator".
func (e *EstimatorPolicy) Name() string { return PolicyEstimator }

// Reschedule re-estimates p's change rate, records it in p.Rate and the policy's
// histogram, and returns 1/f where f is the page's share of the budget.
func (e *EstimatorPolicy) Reschedule(p *Page, _ time.Time) time.Duration {
	rate := EstimateRate(p.History)
	var span time.Duration
	for _, v := range p.History {
		span += v.Interval
	}
	if span <= 0 {
		return 0
	}
	// No change seen yet: the rate is below ~1/span; take half a change over the span
	// so that the page keeps a finite claim on the budget.
	if floor := 0.5 / days(span); rate < floor {
		rate = floor
	}
	rate = math.Min(math.Max(rate, minRate), maxRate)

	e.mu.Lock()
	if p.Rate > 0 {
		e.bins[rateBin(p.Rate)]--
		e.pages--
	}
	e.bins[rateBin(rate)]++
	e.pages++
	p.Rate = rate
	e.dirty++
	every := e.opts.ResolveEvery
	if every <= 0 {
		every = max(32, e.pages/32)
	}
	if !e.solved || e.dirty >= every {
		e.resolveLocked()
	}
	f := e.alloc.Freq(rate)
	e.mu.Unlock()

	d := 1 / f // days
	if !(d < longestIntervalDays) {
		d = longestIntervalDays
	}
	interval := time.Duration(d * float64(24*time.Hour))
	if e.opts.MaxInterval > 0 && interval > e.opts.MaxInterval {
		interval = e.opts.MaxInterval
	}
	return interval
}

// Forget removes p from the rate histogram.
func (e *EstimatorPolicy) Forget(p *Page) {
	if p.Rate <= 0 {
		return
	}
	e.mu.Lock()
	e.bins[rateBin(p.Rate)]--
	e.pages--
	e.dirty++
	e.mu.Unlock()
	p.Rate = 0
}

// Resolve re-solves the allocation now (the engine may call it on each scheduler
// tick) and returns it.
func (e *EstimatorPolicy) Resolve() Allocation {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.resolveLocked()
	return e.alloc
}

// resolveLocked solves the allocation over the histogram's bin centres.
func (e *EstimatorPolicy) resolveLocked() {
	if e.pages <= 0 {
		e.alloc, e.solved = Allocation{Mu: math.Inf(1)}, false
		return
	}
	rates := make([]float64, rateBins)
	for i := range rates {
		rates[i] = rateBinCentre(i)
	}
	e.floorFq = e.opts.FloorShare * e.opts.Budget / float64(e.pages)
	e.alloc = SolveAllocation(rates, e.bins[:], e.opts.Budget, e.floorFq)
	e.solved, e.dirty = true, 0
}

// rateBin maps a rate (changes/day) to its histogram bin.
func rateBin(rate float64) int {
	i := int(math.Floor(math.Log10(rate/minRate) * rateBinsPerDecade))
	return min(max(i, 0), rateBins-1)
}

// rateBinCentre is the geometric centre of bin i.
func rateBinCentre(i int) float64 {
	return minRate * math.Pow(10, (float64(i)+0.5)/rateBinsPerDecade)
}
