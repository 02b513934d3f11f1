package config

import (
	"fmt"
	"time"
)

// PolitenessOptions configures how each host's gap follows the server. A
// host's gap, from the end of one response to the start of the next request to it
// over every egress, is the largest of: 1/host_rate, the robots.txt Crawl-delay,
// delay_factor × its last response time, and its overload back-off.
//
// Why delay_factor 5 by default: Heritrix waits delay-factor × the last fetch's
// duration with a default of 5 (between a 3 s floor and a 30 s cap); Scrapy's
// AutoThrottle aims at latency ÷ AUTOTHROTTLE_TARGET_CONCURRENCY, default 1.0, i.e.
// a factor of 1, which keeps a single-threaded server busy half the time with our
// requests alone. With a factor f a serial crawler occupies the server at most
// 1/(1+f) of the time, and on a server that queues (latency = service ÷ (1 − busy
// share)) it inflates latency by at most 1 + 1/(1+f): 1.5 for AutoThrottle's 1, 1.25
// for 3, 1.2 for 4, 1.17 for Heritrix's 5. The target is at most 1.25 at the
// 95th percentile; the politeness bench measured 4 at 1.19-1.21 in steady state but
// 1.25-1.31 at p95 on a loaded box, so the default is Heritrix's 5, which leaves
// room for the server's own jitter. lanes.delay_min and host_rate stay the floor, so
// on a healthy host (latency ≪ delay_min/5) the factor costs nothing.
type PolitenessOptions struct {
	// DelayFactor: the gap after a response is at least this × its response time
	// (default 5; 0 turns the latency term off).
	DelayFactor float64 `yaml:"delay_factor"`
	// BackoffMin is the first back-off after an overload signal: a 429 or 503 without
	// Retry-After, a timeout, or three responses in a row three times slower than usual
	// (default 1m, twice fetch.refusal_backoff). Each further signal doubles it, with
	// up to 50% jitter. 0 turns the back-off off.
	BackoffMin time.Duration `yaml:"backoff_min"`
	// MaxDelay caps the latency term (default 30s, Heritrix's max-delay): one page
	// that takes ages is a slow page more often than a sinking server, which the
	// back-off is for.
	MaxDelay time.Duration `yaml:"max_delay"`
	// BackoffMax caps the back-off (default 1h, like fetch.max_retry_after: our own
	// wait is never longer than the one we let a server ask for).
	BackoffMax time.Duration `yaml:"backoff_max"`
	// ForgiveAfter: a host quiet for this long (no overload signal) is forgiven its
	// back-off; until then each calm answer halves it (default 10m).
	ForgiveAfter time.Duration `yaml:"forgive_after"`
}

// DefaultPoliteness is the adaptive gap's defaults (see PolitenessOptions).
func DefaultPoliteness() PolitenessOptions {
	return PolitenessOptions{DelayFactor: 5, MaxDelay: 30 * time.Second, BackoffMin: time.Minute, BackoffMax: time.Hour, ForgiveAfter: 10 * time.Minute}
}

// Scaled divides every duration by k: the demo, tests and benchmarks run the sandbox
// web k times faster than real time, and its politeness with it.
func (p PolitenessOptions) Scaled(k float64) PolitenessOptions {
	div := func(d time.Duration) time.Duration { return time.Duration(float64(d) / k) }
	p.MaxDelay, p.BackoffMin, p.BackoffMax, p.ForgiveAfter = div(p.MaxDelay), div(p.BackoffMin), div(p.BackoffMax), div(p.ForgiveAfter)
	return p
}

// FixedPoliteness turns every adaptive term off: the gap is the configured delay,
// host cap and Crawl-delay alone, with no adaptive term (still measured from the end of
// the response, the server's view). The politeness bench's "fixed" policy.
func FixedPoliteness() PolitenessOptions { return PolitenessOptions{} }

func (p PolitenessOptions) validate() error {
	switch {
	case p.DelayFactor < 0 || p.DelayFactor > 100:
		return fmt.Errorf("politeness.delay_factor must be in 0..100 (0 = off; default 5), got %v", p.DelayFactor)
	case p.MaxDelay < 0 || p.BackoffMin < 0 || p.BackoffMax < 0 || p.ForgiveAfter < 0:
		return fmt.Errorf("politeness.max_delay, backoff_min, backoff_max and forgive_after must be >= 0, got %v, %v, %v, %v", p.MaxDelay, p.BackoffMin, p.BackoffMax, p.ForgiveAfter)
	case p.BackoffMin > 0 && p.BackoffMax < p.BackoffMin:
		return fmt.Errorf("politeness.backoff_max (%v) must be at least politeness.backoff_min (%v)", p.BackoffMax, p.BackoffMin)
	}
	return nil
}
