package revisit

import (
	"maps"
	"time"
)

// Planner is a policy that spends a budget by an objective and can say where each
// page class is heading: EstimatorPolicy, and ClassPolicy over several of them.
type Planner interface {
	Policy
	// Restore counts a page loaded from storage (see EstimatorPolicy.Restore).
	Restore(p *Page)
	// Outlook returns each class's outlook.
	Outlook() map[string]Outlook
	// Plan returns the objective and budget (fetches per page per day) class is
	// planned with.
	Plan(class string) (objective string, budget float64)
}

// Plan returns the policy's objective and budget, the same for every class.
func (e *EstimatorPolicy) Plan(string) (string, float64) { return e.objective.Name(), e.opts.Budget }

// ClassPolicy plans some page classes apart (social pages and front pages want
// age, government archives freshness): each class with a plan of its own has
// its own EstimatorPolicy, with its own objective, budget (per page of the class)
// and fetch price, and the other classes share the base plan. Separate plans keep
// one class's budget from being spent on another's pages, which a single price μ
// would do.
type ClassPolicy struct {
	base  *EstimatorPolicy
	plans map[string]*EstimatorPolicy
}

// NewClassPolicy returns a ClassPolicy: pages of a class in plans go to its policy,
// the rest to base.
func NewClassPolicy(base *EstimatorPolicy, plans map[string]*EstimatorPolicy) *ClassPolicy {
	return &ClassPolicy{base: base, plans: maps.Clone(plans)}
}

// of returns the policy that plans class.
func (c *ClassPolicy) of(class string) *EstimatorPolicy {
	if e, ok := c.plans[class]; ok {
		return e
	}
	return c.base
}

// Name returns "estimator".
func (c *ClassPolicy) Name() string { return c.base.Name() }

// Reschedule asks the page's class plan.
func (c *ClassPolicy) Reschedule(p *Page, now time.Time) time.Duration {
	return c.of(p.Class).Reschedule(p, now)
}

// Forget drops p from its class plan.
func (c *ClassPolicy) Forget(p *Page) { c.of(p.Class).Forget(p) }

// Restore counts p in its class plan.
func (c *ClassPolicy) Restore(p *Page) { c.of(p.Class).Restore(p) }

// Plan returns class's objective and budget.
func (c *ClassPolicy) Plan(class string) (string, float64) { return c.of(class).Plan(class) }

// Outlook returns each class's outlook, from the plan that holds it.
func (c *ClassPolicy) Outlook() map[string]Outlook {
	out := c.base.Outlook()
	for class := range c.plans {
		delete(out, class)
	}
	for class, e := range c.plans {
		if o, ok := e.Outlook()[class]; ok {
			out[class] = o
		}
	}
	return out
}

// Demand returns the fetches per day all plans' pages add up to, and their number.
func (c *ClassPolicy) Demand() (perDay float64, pages int) {
	perDay, pages = c.base.Demand()
	for _, e := range c.plans {
		d, n := e.Demand()
		perDay, pages = perDay+d, pages+n
	}
	return perDay, pages
}
