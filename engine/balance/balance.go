// Package balance deals weighted items — news sites, and the keyword shards of social
// sites — over worker nodes so that the workers' totals come out even: seed 003's load
// balancing (M3, step i). Sort by weight, deal in snake order, then keep random
// exchanges between two workers only when they lower the variance of the workers'
// totals; repeat from the deal and keep the lowest variance.
//
// The seed balances the keywords of each social site, and the news sites, as separate
// problems ("新闻类网站的负载均衡调节采用与步骤i-3)至步骤i-10)相同的方法"). Balance
// takes whatever list it is given: one call over every item evens the workers' whole
// rounds, which is what their round times depend on; one call per group follows the
// seed to the letter.
//
// The package is pure: no I/O, no clock, and for a given Options.Seed every call
// returns the same assignment.
package balance

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Item is one unit of work a worker holds whole: a news site (by registered domain),
// or one keyword of a social site. Weight is its share of the crawl's cost (Weights).
type Item struct {
	Key    string
	Weight float64
}

// Start names the deal the swap loop starts from.
type Start string

// Starting deals.
const (
	// StartSnake is the seed's deal (step i-5): by weight descending, the 1st to ncl-th
	// item to workers 1..ncl, the next ncl to workers ncl..1, and so on.
	StartSnake Start = "snake"
	// StartLPT is greedy longest-processing-time first: by weight descending, each item
	// to the worker with the smallest total so far.
	StartLPT Start = "lpt"
)

// Defaults. The seed names its three parameters but gives no values: the threshold is
// "用户预设调节时间差阈值" (a time-gap threshold the user presets), counter_threshold
// the "累计次数阈值" of failed swaps, iteration_threshold a "指定迭代次数" (a given
// number of iterations). The values below are reasoned; see Options.
const (
	DefaultThreshold          = 0.10
	DefaultCounterThreshold   = 2000
	DefaultIterationThreshold = 8
	DefaultStart              = StartLPT
	DefaultTolerance          = 0.005
)

// Options tunes Balance and Rebalance. The zero value means the defaults.
type Options struct {
	// Threshold: Rebalance changes nothing unless the gap between the slowest and the
	// fastest worker's total exceeds Threshold × the mean total (seed step i-3:
	// "若两者时间差不大于用户预设调节时间差阈值,则维持当前…的分配状态"). The seed leaves
	// the value to the user; the default, 0.1, lets the slowest worker's round run
	// 10% longer than the fastest's before anything moves, as a move is not free (a
	// site's hosts change worker). 0 means the default; a negative value balances
	// whatever the gap.
	// Balance, which has no current assignment, always deals.
	Threshold float64
	// CounterThreshold is the seed's counter_threshold: the swap loop of one iteration
	// stops after this many failed exchanges in a row (step i-9). The count starts
	// at 0 in every iteration (the seed resets it only on a kept exchange, which
	// read literally would end every later iteration at its first failure). Default
	// 2000: in the bench (500 items) more attempts move the makespan by under 1e-4
	// of the mean while the CPU grows in proportion, and with 100–300 the snake
	// start often ends above LPT.
	CounterThreshold int
	// IterationThreshold is the seed's iteration_threshold: how many times the swap
	// loop runs, each from the starting deal with its own random stream; the
	// lowest-variance result is kept (steps i-7, i-10). The seed's test "iteration <
	// iteration_threshold" after incrementing runs one fewer; here it is the count
	// of runs. Default 8: up to ~10× less variance than one run in the bench, for
	// 1–4 ms of CPU per call with 500 items — balancing runs daily or on a key press.
	IterationThreshold int
	// Seed picks the random streams: iteration k draws from PCG(Seed, k).
	Seed uint64
	// Start is the deal each iteration starts from: StartSnake (the seed's) or
	// StartLPT (the default: the bench, go run ./bench balance, measures it never
	// worse than LPT and at least as even as the snake start). "" means the default.
	Start Start
	// SwapsOnly limits the loop to the seed's literal step i-8, one item of each
	// worker exchanged. By default an exchange may also give nothing in return (a
	// plain move: the exchange of an item for an empty slot), so workers' item counts
	// are not frozen by the deal; the acceptance rule is the seed's either way.
	SwapsOnly bool
	// Tolerance (Rebalance): assignments whose makespan is within Tolerance of the
	// best found are equally good, and the one moving fewest items wins. Default
	// 0.005 (half a percent of the mean total); 0 means the default, negative: exact.
	Tolerance float64
}

// withDefaults fills the zero fields and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if o.CounterThreshold == 0 {
		o.CounterThreshold = DefaultCounterThreshold
	}
	if o.IterationThreshold == 0 {
		o.IterationThreshold = DefaultIterationThreshold
	}
	if o.Start == "" {
		o.Start = DefaultStart
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	switch {
	case o.CounterThreshold < 0:
		return o, fmt.Errorf("balance: counter threshold %d: must be positive", o.CounterThreshold)
	case o.IterationThreshold < 0:
		return o, fmt.Errorf("balance: iteration threshold %d: must be positive", o.IterationThreshold)
	case o.Start != StartSnake && o.Start != StartLPT:
		return o, fmt.Errorf("balance: start %q: want %q or %q", o.Start, StartSnake, StartLPT)
	case math.IsNaN(o.Threshold) || math.IsNaN(o.Tolerance):
		return o, errors.New("balance: threshold and tolerance must be numbers")
	}
	return o, nil
}

// checkItems rejects what no assignment can be made of: no workers, an item whose
// weight is not a positive finite number, or a key given twice.
func checkItems(items []Item, workers int) error {
	if workers < 1 {
		return fmt.Errorf("balance: %d workers: need at least one", workers)
	}
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if !(it.Weight > 0) || math.IsInf(it.Weight, 1) { // NaN fails Weight > 0
			return fmt.Errorf("balance: item %q: weight %v: must be a positive finite number", it.Key, it.Weight)
		}
		if seen[it.Key] {
			return fmt.Errorf("balance: item %q given twice", it.Key)
		}
		seen[it.Key] = true
	}
	return nil
}

// Balance assigns items to workers by seed 003's method (step i-4 to i-10): sort by
// weight descending (ties by key), deal (Options.Start), then, IterationThreshold
// times from that deal, exchange random items between two random workers, keeping an
// exchange only if it lowers the variance of the workers' totals, until
// CounterThreshold exchanges in a row have failed; the lowest-variance result wins.
func Balance(items []Item, workers int, opt Options) (Assignment, error) {
	if err := checkItems(items, workers); err != nil {
		return nil, err
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	order := byWeight(items)
	w := make([]float64, len(order))
	for i, k := range order {
		w[i] = items[k].Weight
	}
	of := bestOf(w, workers, deal(w, workers, opt.Start), opt, 0)
	return assignmentOf(items, order, of), nil
}

// bestOf runs the swap loop IterationThreshold times from start (streams
// PCG(Seed, stream0+k)) and returns the lowest-variance result.
func bestOf(w []float64, workers int, start []int, opt Options, stream0 uint64) []int {
	var best []int
	bestVar := math.Inf(1)
	for k := 0; k < opt.IterationThreshold; k++ {
		s := newDealState(w, workers, start)
		s.improve(rand.New(rand.NewPCG(opt.Seed, stream0+uint64(k))), opt.CounterThreshold, opt.SwapsOnly)
		if v := Variance(exactTotals(w, s.of, workers)); v < bestVar {
			best, bestVar = s.of, v
		}
	}
	if best == nil { // IterationThreshold < 1 cannot happen after withDefaults; be safe
		best = append([]int(nil), start...)
	}
	return best
}

// byWeight returns item indices by weight descending, ties by key: the seed's order
// (step i-4), made deterministic.
func byWeight(items []Item) []int {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := items[order[a]], items[order[b]]
		if x.Weight != y.Weight {
			return x.Weight > y.Weight
		}
		return x.Key < y.Key
	})
	return order
}

// deal places weights w (sorted descending) on workers: snake or LPT.
func deal(w []float64, workers int, start Start) []int {
	if start == StartLPT {
		return lptDeal(w, workers, nil)
	}
	return snakeDeal(len(w), workers)
}

// snakeDeal is step i-5: items 1..n to workers 1..n, items n+1..2n to workers n..1, …
func snakeDeal(items, workers int) []int {
	of := make([]int, items)
	for i := range of {
		row, col := i/workers, i%workers
		if row%2 == 1 {
			col = workers - 1 - col
		}
		of[i] = col
	}
	return of
}

// lptDeal gives each weight in turn (w sorted descending) to the worker with the
// smallest total, the lowest index on ties, starting from the totals in base (nil:
// all zero).
func lptDeal(w []float64, workers int, base []float64) []int {
	tot := make([]float64, workers)
	copy(tot, base)
	of := make([]int, len(w))
	for i, x := range w {
		j := 0
		for k := 1; k < workers; k++ {
			if tot[k] < tot[j] {
				j = k
			}
		}
		of[i] = j
		tot[j] += x
	}
	return of
}

// exactTotals sums the totals afresh, in item order, so that results compare without
// the drift of the swap loop's running sums.
func exactTotals(w []float64, of []int, workers int) []float64 {
	t := make([]float64, workers)
	for i, x := range w {
		t[of[i]] += x
	}
	return t
}

func assignmentOf(items []Item, order, of []int) Assignment {
	a := make(Assignment, len(items))
	for i, k := range order {
		a[items[k].Key] = of[i]
	}
	return a
}
