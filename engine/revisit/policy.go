package revisit

import (
	"fmt"
	"time"
)

// Policy decides how long after a fetch a page is due again. The engine picks one by
// config (revisit.policy: "seed" or "estimator").
type Policy interface {
	// Name is the policy's config name.
	Name() string
	// Reschedule returns the interval from now to the page's next fetch, given its
	// state just updated by Tracker.Observe for a fetch at now. It may record
	// policy state in p (EstimatorPolicy keeps p.Rate).
	Reschedule(p *Page, now time.Time) time.Duration
	// Forget drops whatever the policy holds about p (the page left its window or
	// the crawl).
	Forget(p *Page)
}

// Policy names accepted by NewPolicy.
const (
	PolicySeed      = "seed"
	PolicyEstimator = "estimator"
)

// DefaultPolicy is the policy of an empty revisit.policy. The seed's rule would stay
// the default unless the benchmark shows the other better on freshness at
// equal cost; `go run ./bench revisit` does (at 0.1 fetches per page per day: 0.46
// freshness for the estimator's freshness objective, 0.39 for the seed rule, Nutch's
// and a fixed interval), so the estimator is the default, with DefaultObjective.
const DefaultPolicy = PolicyEstimator

// DefaultBudget is the estimator's revisit budget when none is configured: 0.1
// fetches per page per day, one visit in ten days on average.
const DefaultBudget = 0.1

// NewPolicy returns the policy named in config: "estimator" (or "", DefaultPolicy) for
// an EstimatorPolicy with opts (Budget 0 meaning DefaultBudget, Objective ""
// DefaultObjective), "seed" for SeedPolicy.
func NewPolicy(name string, opts EstimatorOptions) (Policy, error) {
	switch name {
	case PolicySeed:
		return SeedPolicy{}, nil
	case "", PolicyEstimator:
		if opts.Budget == 0 {
			opts.Budget = DefaultBudget
		}
		return NewEstimatorPolicy(opts)
	default:
		return nil, fmt.Errorf("revisit: unknown policy %q (want %q or %q)", name, PolicySeed, PolicyEstimator)
	}
}

// SeedPolicy is seed 001's schedule: the revisit interval is t/x, the observed time per
// change (next = last + t/x). It needs no budget: each page asks for what its own
// history suggests, whatever the crawler can afford.
type SeedPolicy struct{}

// Name returns "seed".
func (SeedPolicy) Name() string { return PolicySeed }

// Reschedule returns t/x.
func (SeedPolicy) Reschedule(p *Page, _ time.Time) time.Duration {
	if p.X <= 0 {
		return p.T
	}
	return p.T / time.Duration(p.X)
}

// Forget does nothing: the seed policy keeps no state outside the page.
func (SeedPolicy) Forget(*Page) {}
