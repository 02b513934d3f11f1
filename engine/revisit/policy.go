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

// NewPolicy returns the policy named in config: "seed" (or "") for SeedPolicy,
// "estimator" for an EstimatorPolicy with opts.
func NewPolicy(name string, opts EstimatorOptions) (Policy, error) {
	switch name {
	case "", PolicySeed:
		return SeedPolicy{}, nil
	case PolicyEstimator:
		return NewEstimatorPolicy(opts)
	default:
		return nil, fmt.Errorf("revisit: unknown policy %q (want %q or %q)", name, PolicySeed, PolicyEstimator)
	}
}

// SeedPolicy is seed 001's schedule: the revisit interval is t/x, the observed time per
// change (next = last + t/x). It is the default policy.
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
