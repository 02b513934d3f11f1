package robots

import (
	"context"
	"sync"
	"time"
)

// Defaults of the cache's lifetimes.
const (
	// DefaultTTL is how long fetched rules stand (RFC 9309 §2.4: "crawlers SHOULD NOT
	// use the cached version for more than 24 hours").
	DefaultTTL = 24 * time.Hour
	// DefaultRetry is the first wait before an unreachable robots.txt is tried again;
	// it doubles on each failure up to maxRetry.
	DefaultRetry = time.Minute
	// maxRetry caps the backoff: a site that was down for a while is tried at least
	// hourly (and never less often than the TTL).
	maxRetry = time.Hour
)

// Cache keeps each origin's rules for at most TTL, then fetches them again, so a
// crawl that runs for weeks sees a site's new rules. The first asker of an origin
// fetches (through its lane's egress and the politeness gate: a robots.txt request is
// a request to the host like any other); askers meanwhile wait for that one answer.
//
// Unreachable rules (429, 5xx, network errors) stand for Retry, doubled on each
// failure in a row, or for the answer's Retry-After if longer (both capped at an
// hour and at TTL). When an origin whose rules were
// fetched before becomes unreachable, the last good rules stay in force meanwhile
// (RFC 9309 §2.4 lets a cached copy outlive 24 h "if the robots.txt file is
// unreachable"); without an earlier copy, everything is disallowed.
type Cache struct {
	TTL   time.Duration    // lifetime of fetched rules; 0: DefaultTTL
	Retry time.Duration    // first retry of an unreachable robots.txt; 0: DefaultRetry
	Now   func() time.Time // clock; nil: time.Now

	mu sync.Mutex
	m  map[string]*entry
	// kept is the history (failures in a row, the last good copy) of an origin
	// whose refresh ended without an answer about the site (a stop, a fault of
	// the egress's proxy): its next fetch goes on from it.
	kept map[string]entry
}

type entry struct {
	ready    chan struct{} // closed once rules are set (or the fetch was cancelled)
	rules    *Rules
	expires  time.Time
	failures int    // unreachable answers in a row
	good     *Rules // the last reachable rules, kept while the site is unreachable
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Cache) ttl() time.Duration {
	if c.TTL > 0 {
		return c.TTL
	}
	return DefaultTTL
}

// RetryAfter is how long unreachable rules stand after n failures in a row.
func (c *Cache) RetryAfter(n int) time.Duration {
	d := c.Retry
	if d <= 0 {
		d = DefaultRetry
	}
	limit := min(maxRetry, c.ttl())
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// Get returns the rules for origin ("http://host:port"), calling fetch when they are
// missing or expired. fetch returns an error when it got no answer about the site
// (ctx ended, the egress's proxy failed); then nothing is cached, the origin's
// history is kept, and the next asker fetches.
func (c *Cache) Get(ctx context.Context, origin string, fetch func(ctx context.Context) (*Rules, error)) (*Rules, error) {
	for {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]*entry{}
		}
		e := c.m[origin]
		if e != nil && e.rules != nil && !c.now().Before(e.expires) {
			// Expired: this asker fetches again; the entry's history (failures, the
			// last good copy) goes along.
			n := &entry{ready: make(chan struct{}), failures: e.failures, good: e.good}
			c.m[origin] = n
			c.mu.Unlock()
			return c.fill(ctx, origin, n, fetch)
		}
		if e == nil {
			e = &entry{ready: make(chan struct{})}
			if k, ok := c.kept[origin]; ok {
				e.failures, e.good = k.failures, k.good
				delete(c.kept, origin)
			}
			c.m[origin] = e
			c.mu.Unlock()
			return c.fill(ctx, origin, e, fetch)
		}
		c.mu.Unlock()
		select {
		case <-e.ready:
			c.mu.Lock()
			r := e.rules
			c.mu.Unlock()
			if r != nil {
				return r, nil
			}
			// The fetching asker was cancelled: try again (or stop if we are too).
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// fill fetches origin's rules into e and wakes the askers waiting on it.
func (c *Cache) fill(ctx context.Context, origin string, e *entry, fetch func(ctx context.Context) (*Rules, error)) (*Rules, error) {
	r, err := fetch(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(e.ready)
	if err != nil || r == nil {
		if c.m[origin] == e {
			delete(c.m, origin)
			if e.failures > 0 || e.good != nil {
				if c.kept == nil {
					c.kept = map[string]entry{}
				}
				c.kept[origin] = entry{failures: e.failures, good: e.good}
			}
		}
		if err == nil {
			err = context.Canceled
		}
		return nil, err
	}
	now := c.now()
	if r.Unreachable {
		e.failures++
		wait := c.RetryAfter(e.failures)
		if r.RetryAfter > wait { // the server's own Retry-After, within the same caps
			wait = min(r.RetryAfter, maxRetry, c.ttl())
		}
		e.expires = now.Add(wait)
		if e.good != nil {
			r = e.good // the last good copy stands while the site is down
		}
	} else {
		e.failures = 0
		e.expires = now.Add(c.ttl())
		e.good = r
	}
	e.rules = r
	return r, nil
}

// Expires says until when origin's cached rules stand (zero if none are cached):
// for unreachable rules, when robots.txt is tried again.
func (c *Cache) Expires(origin string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[origin]; e != nil && e.rules != nil {
		return e.expires
	}
	return time.Time{}
}

// Known returns the cached rules for origin without fetching.
func (c *Cache) Known(origin string) (*Rules, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[origin]
	if e == nil || e.rules == nil {
		return nil, false
	}
	return e.rules, true
}

// Failures is how many unreachable answers in a row origin's robots.txt has given
// (0 when it answered last, or was never asked): the engine gives up on a site
// whose name keeps failing to resolve after a bounded number of tries.
func (c *Cache) Failures(origin string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[origin]; e != nil {
		return e.failures
	}
	return c.kept[origin].failures
}
