package config

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// RevisitOptions configures adaptive revisit (M2, seed 001) and page classes with
// their active windows (seed 003). Every stored page is fingerprinted and tracked
// whether or not the scheduler runs, so turning it on later finds the state ready.
type RevisitOptions struct {
	// Enabled runs the scheduler that puts due pages back in the crawl queue
	// (default true). Revisits never keep Done from closing: Done says the discovery
	// crawl ran dry, and revisits go on until the crawl is stopped.
	Enabled bool `yaml:"enabled"`
	// Policy picks how the next due time is learned: "estimator" (default, Cho &
	// Garcia-Molina's change-rate estimate with a fetch budget; measured fresher by
	// `go run ./bench revisit`) or "seed" (seed 001's next = last + t/x).
	Policy string `yaml:"policy"`
	// Every is the scheduler's period (default 1m).
	Every time.Duration `yaml:"every"`
	// Batch is m, the pages the scheduler looks at per tick, by ascending next
	// (default 5000; the seed suggests 1,000..10,000).
	Batch int `yaml:"batch"`
	// Initial is the delay from a page's first fetch to its second (default 1h).
	Initial time.Duration `yaml:"initial"`
	// Threshold is the Hamming distance between two SimHashes above which a page
	// counts as changed (default 5, of 64 bits).
	Threshold int `yaml:"threshold"`
	// SmallEdits is the small-edit policy: "count" (default) counts every
	// edit of a page's article text or headline as a change; "ignore" counts a body
	// edit only when it also moves the SimHash past Threshold (a few words do not).
	SmallEdits string `yaml:"small_edits"`
	// MinInterval is the shortest revisit interval (default 1m).
	MinInterval time.Duration `yaml:"min_interval"`
	// Budget is the estimator policy's revisit budget, in fetches per page per day
	// on average (default 0.1: one visit in ten days).
	Budget float64 `yaml:"budget"`
	// Objective is what the estimator spends the budget on: "balanced"
	// (default: fresher than Nutch's schedule and younger too, the fastest pages not
	// given up), "freshness" (the most pages fresh; gives up on pages that change
	// faster than the budget follows) or "age" (the least stale time; visits every
	// changing page). See revisit.Objective. The seed policy has no budget and ignores it.
	Objective string `yaml:"objective"`
	// Classes plans page classes apart: a class listed here gets its own objective
	// and budget (per page of the class), spent on its pages alone, e.g. soc wants age
	// at a higher budget, web_gov freshness. Classes left out share the plan above.
	Classes map[string]ClassRevisit `yaml:"classes"`
	// MaxInterval caps the estimator's intervals (0: no cap).
	MaxInterval time.Duration `yaml:"max_interval"`
	// Windows maps a page class (soc, web_com, web_net, web_edu, web_gov) to its
	// active window: a page first fetched longer ago than its class's window is no
	// longer revisited; 0 means no limit. Classes left out keep their defaults
	// (soc 3 days, web_com and web_net 14 days, web_edu and web_gov 60 days).
	Windows map[string]time.Duration `yaml:"windows"`
	// SocialDomains are the registered domains (or hosts) of social sites: their
	// pages are class soc. Other pages are classed by public suffix.
	SocialDomains []string `yaml:"social_domains"`
	// ConditionalGet refetches with If-None-Match / If-Modified-Since from the stored
	// page (default true); a 304 counts as unchanged and costs no body. Turn it off
	// for servers whose validators lie (an ETag that survives a change).
	ConditionalGet bool `yaml:"conditional_get"`
}

// ClassRevisit is one page class's own revisit plan (revisit.classes.CLASS).
type ClassRevisit struct {
	// Objective is the class's objective ("" = revisit.objective).
	Objective string `yaml:"objective"`
	// Budget is the class's fetches per page per day (0 = revisit.budget).
	Budget float64 `yaml:"budget"`
}

// DefaultRevisit is the revisit defaults (M2: initial 1h, threshold 5, scheduler
// every minute).
func DefaultRevisit() RevisitOptions {
	return RevisitOptions{
		Enabled:        true,
		Policy:         revisit.DefaultPolicy,
		Every:          revisit.DefaultPeriod,
		Batch:          revisit.DefaultBatch,
		Initial:        revisit.DefaultInitial,
		Threshold:      revisit.DefaultThreshold,
		SmallEdits:     revisit.SmallEditsCount,
		MinInterval:    revisit.DefaultMinInterval,
		Budget:         revisit.DefaultBudget,
		Objective:      revisit.DefaultObjective,
		Windows:        revisit.DefaultWindows(),
		ConditionalGet: true,
	}
}

// Scaled returns the options for a web whose clock runs f times faster than real
// time (the sandbox's Scale): every revisit duration divided by f, the budget (per
// day) multiplied by it, so the crawl revisits the scaled web as it would the real
// one.
func (o RevisitOptions) Scaled(f float64) RevisitOptions {
	if !(f > 0) || f == 1 {
		return o
	}
	div := func(d time.Duration) time.Duration {
		if d <= 0 {
			return d
		}
		return max(time.Duration(float64(d)/f), time.Millisecond)
	}
	o.Every, o.Initial, o.MinInterval, o.MaxInterval = div(o.Every), div(o.Initial), div(o.MinInterval), div(o.MaxInterval)
	o.Budget *= f
	classes := make(map[string]ClassRevisit, len(o.Classes))
	for c, p := range o.Classes {
		p.Budget *= f
		classes[c] = p
	}
	if o.Classes != nil {
		o.Classes = classes
	}
	windows := make(map[string]time.Duration, len(o.Windows))
	for c, d := range o.Windows {
		windows[c] = div(d)
	}
	o.Windows = windows
	return o
}

// validate reports the first unusable revisit setting, naming it.
func (o *RevisitOptions) validate() error {
	switch {
	case o.Policy != revisit.PolicySeed && o.Policy != revisit.PolicyEstimator:
		return fmt.Errorf("revisit.policy must be %q or %q, got %q", revisit.PolicyEstimator, revisit.PolicySeed, o.Policy)
	case o.Every <= 0:
		return fmt.Errorf("revisit.every must be positive, got %v", o.Every)
	case o.Batch < 1:
		return fmt.Errorf("revisit.batch must be at least 1, got %d", o.Batch)
	case o.Initial <= 0:
		return fmt.Errorf("revisit.initial must be positive, got %v", o.Initial)
	case o.Threshold < 1 || o.Threshold > 63:
		return fmt.Errorf("revisit.threshold must be 1..63 bits, got %d", o.Threshold)
	case o.SmallEdits != revisit.SmallEditsCount && o.SmallEdits != revisit.SmallEditsIgnore:
		return fmt.Errorf("revisit.small_edits must be %q or %q, got %q", revisit.SmallEditsCount, revisit.SmallEditsIgnore, o.SmallEdits)
	case o.MinInterval <= 0:
		return fmt.Errorf("revisit.min_interval must be positive, got %v", o.MinInterval)
	case o.MaxInterval < 0:
		return fmt.Errorf("revisit.max_interval must be >= 0 (0 = no cap), got %v", o.MaxInterval)
	case o.Policy == revisit.PolicyEstimator && (!(o.Budget > 0) || math.IsInf(o.Budget, 0)):
		return fmt.Errorf("revisit.budget must be positive (fetches per page per day), got %v", o.Budget)
	case !slices.Contains(revisit.Objectives, o.Objective):
		return fmt.Errorf("revisit.objective must be one of %s, got %q", strings.Join(revisit.Objectives, ", "), o.Objective)
	}
	for class, p := range o.Classes {
		switch {
		case !slices.Contains(revisit.Classes, class):
			return fmt.Errorf("revisit.classes: unknown class %q (classes: %s)", class, strings.Join(revisit.Classes, ", "))
		case p.Objective != "" && !slices.Contains(revisit.Objectives, p.Objective):
			return fmt.Errorf("revisit.classes.%s.objective must be one of %s (or empty for revisit.objective), got %q",
				class, strings.Join(revisit.Objectives, ", "), p.Objective)
		case p.Budget < 0 || math.IsNaN(p.Budget) || math.IsInf(p.Budget, 0):
			return fmt.Errorf("revisit.classes.%s.budget must be positive (fetches per page per day; 0 = revisit.budget), got %v", class, p.Budget)
		case o.Policy != revisit.PolicyEstimator:
			return fmt.Errorf("revisit.classes.%s: class plans need revisit.policy %q (the %q policy has no budget), got %q",
				class, revisit.PolicyEstimator, o.Policy, o.Policy)
		}
	}
	for class, d := range o.Windows {
		if !slices.Contains(revisit.Classes, class) {
			return fmt.Errorf("revisit.windows: unknown class %q (classes: %s)", class, strings.Join(revisit.Classes, ", "))
		}
		if d < 0 {
			return fmt.Errorf("revisit.windows.%s must be >= 0 (0 = no limit), got %v", class, d)
		}
	}
	for _, d := range o.SocialDomains {
		if h := strings.TrimSpace(d); h == "" || strings.ContainsAny(h, "/: ") {
			return fmt.Errorf("revisit.social_domains: %q is not a domain name (write e.g. weibo.com)", d)
		}
	}
	return nil
}
