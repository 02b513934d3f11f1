package revisit

import (
	"math"
	"time"
)

// Change-rate estimation from an irregular visit history.
//
// J. Cho and H. Garcia-Molina, "Estimating Frequency of Change", ACM Transactions on
// Internet Technology 3(3):256-290, 2003. A page changes as a Poisson process of rate
// λ; a crawler only sees, for each interval between two visits, whether the page
// changed at least once. With irregular intervals, t_c where a change was seen and t_u
// where none was, the maximum-likelihood estimate solves
//
//	Σ_c t_c / (e^{λ t_c} − 1) = Σ_u t_u
//
// For regular visits the paper's "improved" estimator, λ̂ = −ln((n − X + 0.5)/(n +
// 0.5)) / I, removes the MLE's bias and its infinity when every visit saw a change. We
// add the same half observation to the irregular equation, as half an unchanged mean
// interval t̄ on the right-hand side,
//
//	Σ_c t_c / (e^{λ t_c} − 1) = Σ_u t_u + t̄/2
//
// which reduces exactly to the improved estimator when all intervals equal I, and stays
// finite when all intervals saw a change.

// EstimateRate returns the estimated change rate, in changes per day, of a page with
// the given visit history (the corrected irregular-access estimator above). It returns
// 0 when no change was seen or the history is empty.
func EstimateRate(visits []Visit) float64 {
	var unchanged, total float64
	n, changes := 0, 0
	for _, v := range visits {
		t := days(v.Interval)
		if t <= 0 {
			continue
		}
		n++
		total += t
		if v.Changed {
			changes++
		} else {
			unchanged += t
		}
	}
	if changes == 0 || n == 0 {
		return 0
	}
	rhs := unchanged + 0.5*total/float64(n)
	// lhs(λ) = Σ_c t_c/(e^{λ t_c}-1) falls from +∞ to 0 as λ grows: bisect on log λ.
	lhs := func(lambda float64) float64 {
		s := 0.0
		for _, v := range visits {
			t := days(v.Interval)
			if v.Changed && t > 0 {
				s += t / math.Expm1(lambda*t)
			}
		}
		return s
	}
	lo, hi := math.Log(minRate), math.Log(maxRate)
	if lhs(math.Exp(hi)) > rhs {
		return maxRate
	}
	if lhs(math.Exp(lo)) < rhs {
		return minRate
	}
	for range 60 {
		mid := (lo + hi) / 2
		if lhs(math.Exp(mid)) > rhs {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

// Rates outside [minRate, maxRate] changes per day are clamped: once per ~27 years
// to once every ~9 seconds covers every page a crawler revisits.
const (
	minRate = 1e-4
	maxRate = 1e4
)

// days converts a duration to fractional days, the unit of rates and budgets here.
func days(d time.Duration) float64 { return d.Hours() / 24 }

// Freshness is the expected freshness (share of time the stored copy equals the live
// page) of a page changing at rate changes/day and refetched regularly freq times per
// day: (f/λ)(1 − e^{−λ/f}) (Cho & Garcia-Molina, "Effective Page Refresh Policies for
// Web Crawlers", ACM TODS 28(4), 2003).
func Freshness(rate, freq float64) float64 {
	switch {
	case rate <= 0:
		return 1
	case freq <= 0:
		return 0
	}
	r := rate / freq
	return -math.Expm1(-r) / r
}

// Allocation is the freshness-maximising split of a fetch budget over pages by change
// rate (Cho & Garcia-Molina, TODS 2003, section 5): maximise Σ F(λ_i, f_i) subject to
// Σ f_i = B. The Lagrange condition ∂F/∂f_i = μ gives, with r = λ/f,
//
//	g(r)/λ = μ,   g(r) = 1 − (1 + r)e^{−r}
//
// so every page's frequency follows from its rate and one multiplier μ; a page with
// μλ ≥ 1 changes too often to be worth keeping fresh and gets only MinFreq (their
// counter-intuitive result: the optimum visits the fastest pages less, not more).
type Allocation struct {
	Mu      float64 // Lagrange multiplier, in days; +Inf when the floor alone spends the budget
	MinFreq float64 // floor in fetches per day, so every page is still sampled
}

// Freq returns the fetches per day the allocation gives a page changing rate times a day.
func (a Allocation) Freq(rate float64) float64 {
	if rate <= 0 || math.IsInf(a.Mu, 1) {
		return a.MinFreq
	}
	y := a.Mu * rate
	if y >= 1 {
		return a.MinFreq
	}
	f := rate / ginv(y)
	if f < a.MinFreq || math.IsNaN(f) {
		return a.MinFreq
	}
	return f
}

// SolveAllocation finds μ so that pages with the given rates (changes/day; counts[i]
// pages at rates[i], nil counts meaning one each) spend budget fetches per day in all,
// none below minFreq. If the floor alone exceeds the budget every page gets minFreq.
func SolveAllocation(rates, counts []float64, budget, minFreq float64) Allocation {
	weight := func(i int) float64 {
		if counts == nil {
			return 1
		}
		return counts[i]
	}
	total := func(a Allocation) float64 {
		s := 0.0
		for i, r := range rates {
			if w := weight(i); w > 0 {
				s += w * a.Freq(r)
			}
		}
		return s
	}
	floor := Allocation{Mu: math.Inf(1), MinFreq: minFreq}
	if total(floor) >= budget {
		return floor
	}
	// total(μ) falls as μ grows; bisect on log μ.
	lo, hi := math.Log(1e-12), math.Log(1e12)
	for range 80 {
		mid := (lo + hi) / 2
		if total(Allocation{Mu: math.Exp(mid), MinFreq: minFreq}) > budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return Allocation{Mu: math.Exp(hi), MinFreq: minFreq}
}

// g(r) = 1 − (1+r)e^{−r} tabulated on a log grid for a fast, monotone inverse.
const (
	gTableLo   = 1e-6
	gTableHi   = 1e3
	gTableSize = 4096
)

var gTable = func() (t [gTableSize]float64) {
	for i := range t {
		t[i] = gFunc(gTableR(i))
	}
	return t
}()

// gTableR is the r of table entry i.
func gTableR(i int) float64 {
	return gTableLo * math.Pow(gTableHi/gTableLo, float64(i)/(gTableSize-1))
}

// gFunc is g(r), by its series where the closed form cancels catastrophically.
func gFunc(r float64) float64 {
	if r < 1e-3 {
		return r * r * (0.5 - r/3 + r*r/8)
	}
	return -math.Expm1(-r) - r*math.Exp(-r)
}

// ginv returns r with g(r) = y, for 0 < y < 1.
func ginv(y float64) float64 {
	if y <= gTable[0] {
		return math.Sqrt(2 * y) // g(r) ≈ r²/2 near 0
	}
	if y >= gTable[gTableSize-1] {
		return gTableHi
	}
	lo, hi := 0, gTableSize-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if gTable[mid] <= y {
			lo = mid
		} else {
			hi = mid
		}
	}
	// Interpolate log r linearly between the two neighbours.
	frac := (y - gTable[lo]) / (gTable[hi] - gTable[lo])
	return math.Exp(math.Log(gTableR(lo)) + frac*(math.Log(gTableR(hi))-math.Log(gTableR(lo))))
}
