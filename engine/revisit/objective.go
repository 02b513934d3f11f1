package revisit

import (
	"fmt"
	"math"
	"strings"
)

// Revisit objectives (revisit.objective): what a fetch budget is spent to maximise.
//
// Cho & Garcia-Molina measure a local copy two ways ("Synchronizing a Database to
// Improve Freshness", SIGMOD 2000; "Effective Page Refresh Policies for Web
// Crawlers", ACM TODS 28(4), 2003, sections 2 and 5):
//
//   - freshness: the share of time the copy equals the live page. Its optimal
//     allocation visits pages that change faster than the budget can follow less, not
//     more, and gives up on the fastest altogether: the most pages fresh, but the hot
//     pages stale for as long as the floor lets them.
//   - age: how long ago the live page first differed from the copy (0 while fresh).
//     Its optimal allocation visits every changing page, the fast ones most, up to a
//     frequency that no longer depends on the rate: no page is given up.
//
// A crawl for news or social monitoring wants both. The balanced objective maximises
// freshness less a weighted age, Σ F_i − w Σ A_i, whose Lagrange condition is the
// weighted sum of the two marginals below; w is stated per mean revisit interval
// (w = BalanceWeight × budget per day), so that "one interval of age costs as much
// as BalanceWeight of a page's freshness" at any budget.
const (
	ObjectiveFreshness = "freshness"
	ObjectiveAge       = "age"
	ObjectiveBalanced  = "balanced"
)

// Objectives lists the objective names NewObjective accepts.
var Objectives = []string{ObjectiveBalanced, ObjectiveFreshness, ObjectiveAge}

// DefaultObjective is the objective of an empty revisit.objective. Balanced, because
// the freshness-optimal plan starves the fastest pages (at 0.1 fetches per page per day,
// 1.16× Nutch's freshness but 8× its age); `go run ./bench revisit` measures the
// balanced one ahead of Nutch on freshness, age and changes captured at once.
const DefaultObjective = ObjectiveBalanced

// BalanceWeight is the balanced objective's price of age: one mean revisit interval
// (1/budget days) of age on one page weighs as much as BalanceWeight of a page kept
// fresh all the time. Chosen on `go run ./bench revisit` (see README, "Revisit
// objective"): the weight at which the default beats Nutch on all three counts at
// both budgets.
const BalanceWeight = 0.15

// Objective is a revisit objective: how much one more fetch per day of a page
// changing at a given rate is worth (the Lagrange marginal the allocation equalises
// across pages). The zero value is the freshness objective.
type Objective struct {
	name      string
	ageWeight float64 // w, per day: the weight of age (days) against freshness (share)
	freshness bool    // freshness counts
}

// NewObjective returns the objective named name ("" is DefaultObjective) for a
// budget of budget fetches per page per day (the balanced objective states its age
// weight per revisit interval, see BalanceWeight).
func NewObjective(name string, budget float64) (Objective, error) {
	if !(budget > 0) || math.IsInf(budget, 0) {
		return Objective{}, fmt.Errorf("revisit: objective needs a positive budget (fetches per page per day), got %v", budget)
	}
	switch name {
	case "", ObjectiveBalanced:
		return Objective{name: ObjectiveBalanced, freshness: true, ageWeight: BalanceWeight * budget}, nil
	case ObjectiveFreshness:
		return Objective{name: ObjectiveFreshness, freshness: true}, nil
	case ObjectiveAge:
		return Objective{name: ObjectiveAge, ageWeight: 1}, nil
	}
	return Objective{}, fmt.Errorf("revisit: unknown objective %q (want %s)", name, strings.Join(Objectives, ", "))
}

// Name is the objective's config name.
func (o Objective) Name() string {
	if o.name == "" {
		return ObjectiveFreshness
	}
	return o.name
}

// GivesUp reports whether the objective lets a page go unvisited when it changes too
// fast to be kept fresh (freshness alone does; any weight on age visits every
// changing page).
func (o Objective) GivesUp() bool { return o.ageWeight == 0 }

// Marginal is the value of one more fetch per day for a page changing rate times a
// day and fetched freq times a day: ∂F/∂f + w·(−∂A/∂f), in freshness per fetch per
// day (days). With r = λ/f (TODS 2003, section 5):
//
//	∂F/∂f = g(r)/λ,            g(r) = 1 − (1 + r)e^{−r}
//	−∂A/∂f = h(r)/λ²,          h(r) = r²/2 − g(r)
//
// Both fall as freq grows, so the allocation's condition Marginal = μ has one root.
// A static page (rate 0) is worth nothing; a fetch at freq 0 is worth 1/λ for
// freshness and without bound for age.
func (o Objective) Marginal(rate, freq float64) float64 {
	if !(rate > 0) {
		return 0
	}
	if !(freq > 0) {
		if o.ageWeight > 0 {
			return math.Inf(1)
		}
		return 1 / rate
	}
	r := rate / freq
	g := gFunc(r) // the hot path: one evaluation serves both terms
	m := 0.0
	if o.freshness || o.ageWeight == 0 {
		m = g / rate
	}
	if o.ageWeight > 0 {
		m += o.ageWeight * hFunc(r, g) / (rate * rate)
	}
	return m
}

// hFunc is h(r) = r²/2 − g(r), given g = g(r), by its series where the difference
// cancels (h ≈ r³/3 near 0).
func hFunc(r, g float64) float64 {
	if r < 1e-2 {
		return r * r * r * (1.0/3 - r/8 + r*r/30)
	}
	return math.Max(r*r/2-g, 0)
}

// Age is the expected age, in days, of a page changing at rate changes/day and
// refetched regularly freq times per day: time-averaged over an interval I = 1/f,
//
//	Ā = I/2 − 1/λ + (1 − e^{−λI})/(λ² I)
//
// (Cho & Garcia-Molina, TODS 2003, section 2). 0 for a static page; +Inf for a
// changing page never fetched.
func Age(rate, freq float64) float64 {
	switch {
	case !(rate > 0):
		return 0
	case !(freq > 0):
		return math.Inf(1)
	}
	r := rate / freq
	// Ā = (1/λ)·(r/2 − 1 + (1 − e^{−r})/r); the bracket cancels for small r, where
	// its series r²/6 − r³/24 is used.
	var a float64
	if r < 1e-3 {
		a = r*r/6 - r*r*r/24
	} else {
		a = r/2 - 1 - math.Expm1(-r)/r
	}
	return math.Max(a, 0) / rate
}

// Captured is the expected changes per day a page changing at rate and refetched
// regularly freq times a day has seen by a fetch before it changed again: each fetch
// catches the live version, a new one if the page changed since the previous fetch,
// so f·(1 − e^{−λ/f}). Over rate, it is the page's share of changes captured (equal
// to its freshness, Freshness(rate, freq)).
func Captured(rate, freq float64) float64 {
	if !(rate > 0) || !(freq > 0) {
		return 0
	}
	return -freq * math.Expm1(-rate/freq)
}
