// Package dnscache is crawlconsole's DNS prefetch cache (M5, seed 004): hosts of
// queued URLs are resolved ahead of the fetch path by a pool of workers; fast answers
// go to a positive cache filed by registered domain, failures and slow answers to a
// weighted negative cache; TTLs are honoured (RFC 2308 for negative answers), stale
// answers are served when upstream fails (RFC 8767), and concurrent requests for one
// name share one upstream query.
package dnscache

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Cache resolves host names for the fetch path, from cache whenever it can. It is
// safe for concurrent use. Create it with New and release it with Close.
type Cache struct {
	opts Options
	up   *upstream
	// hosts are the static names (hosts file, localhost), answered before the caches.
	hosts hostsTable

	ctx    context.Context // ends on Close: cancels flights and prefetch workers
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	pos       positiveCache
	neg       negativeCache
	flights   map[string]*flight // names being resolved upstream right now
	lastSweep atomic.Int64       // UnixNano of the last sweep, on the Options.Now clock
	kick      chan struct{}      // asks sweepLoop for a due sweep (cap 1)
	closed    bool
	prefetch  prefetchQueue

	st        counters
	wait      latencyHist  // fetch-path wait (LookupAddrs), 0 when served from cache
	upstream  latencyHist  // resolve time of every upstream resolution
	answers   latencyHist  // resolve time of resolutions that got addresses
	answerP99 atomic.Int64 // p99 of answers (ns), refreshed by each sweep: sizes the refresh window
}

// flight is one upstream resolution in progress; later requests for the same name
// wait on done instead of asking again (M5: no duplicate lookups).
type flight struct {
	done chan struct{}
	outcome
}

// outcome is what every waiter of a flight gets.
type outcome struct {
	addrs []netip.Addr // possibly stale addresses
	err   error
	stale bool // addrs are an expired answer served because upstream failed (RFC 8767)
}

// New starts a Cache. It fails only on options that cannot work (an unparsable server
// address, inverted bounds); no reachable server is not an error, lookups then fail
// with kind "no_servers".
func New(opts Options) (*Cache, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Cache{
		opts:    o,
		hosts:   readHosts(o.HostsFile),
		up:      &upstream{servers: o.Servers, timeout: o.Timeout, skipAAAA: o.SkipAAAA},
		ctx:     ctx,
		cancel:  cancel,
		pos:     newPositiveCache(),
		neg:     newNegativeCache(),
		flights: map[string]*flight{},
		kick:    make(chan struct{}, 1),
		prefetch: prefetchQueue{
			queued: map[string]bool{},
		},
	}
	c.lastSweep.Store(o.Now().UnixNano())
	c.wg.Go(c.sweepLoop)
	return c, nil
}

// Close stops the prefetch workers and the sweep, cancels resolutions in flight and
// waits for them. Cached answers stay readable; lookups that need upstream fail with
// ErrClosed.
func (c *Cache) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
}

// LookupAddrs returns the addresses of host for the fetch path. It answers from the
// positive or negative cache when it can (recording a wait of 0), else waits for the
// upstream resolution already in flight for host or starts one. IP literals come back
// at once and are not counted as lookups. Errors are *LookupError (or ErrClosed).
func (c *Cache) LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, ok := ipLiteral(host); ok {
		return []netip.Addr{a}, nil
	}
	if a, ok := c.hosts.lookup(host, c.opts.SkipAAAA); ok {
		return a, nil // a static name: as an IP literal, not a lookup
	}
	c.st.lookups.Add(1)
	name, err := canonicalName(host)
	if err != nil {
		c.st.rejected.Add(1)
		c.wait.observe(0)
		return nil, err
	}
	start := time.Now()
	now := c.opts.Now()

	c.mu.Lock()
	r := c.lookupLocked(name, host, now)
	c.mu.Unlock()

	if r.refresh && (c.opts.StillNeeded == nil || c.opts.StillNeeded(name)) && !c.held(name) {
		// Refresh-ahead on access: the fetch path shows the host is in use now.
		c.enqueue([]string{name})
	}
	if c.sweepDue(now) {
		// The sweep is O(cache size): run it on the sweep goroutine, never on a lane.
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	fl := r.flight
	if fl == nil {
		c.wait.observe(0)
		return r.addrs, r.err
	}

	select {
	case <-fl.done:
		c.wait.observe(time.Since(start))
		if fl.err != nil {
			return nil, relabel(fl.err, host)
		}
		if fl.stale {
			c.st.staleServed.Add(1)
		}
		return slices.Clone(fl.addrs), nil
	case <-ctx.Done():
		c.wait.observe(time.Since(start))
		return nil, &LookupError{Host: host, Kind: KindTimeout, Err: ctx.Err()}
	}
}

// cacheAnswer is what the cache says about a name: addresses or an error, or a
// flight to wait on; refresh asks for a refresh-ahead of an entry near expiry.
type cacheAnswer struct {
	addrs   []netip.Addr
	err     error
	flight  *flight
	refresh bool
}

// lookupLocked answers from cache, or returns the flight to wait on.
func (c *Cache) lookupLocked(name, host string, now time.Time) cacheAnswer {
	if e := c.pos.hosts[name]; e != nil {
		switch {
		case now.Before(e.expires):
			e.lastAccess = now
			c.st.positiveHits.Add(1)
			refresh := c.nearExpiry(e.expires, e.ttl, now) && c.refreshableLocked(e, now)
			return cacheAnswer{addrs: slices.Clone(e.addrs), refresh: refresh}
		case now.Sub(e.expires) > c.opts.StaleFor:
			c.pos.remove(name)
		case !e.failedAt.IsZero():
			// RFC 8767: upstream already failed for this expired answer; answer stale
			// at once and retry in the background at most every StaleRetry.
			e.lastAccess = now
			c.st.positiveHits.Add(1)
			c.st.staleServed.Add(1)
			if now.Sub(e.failedAt) >= c.opts.StaleRetry && c.flights[name] == nil && !c.closed {
				e.failedAt = now
				c.startFlightLocked(name)
			}
			return cacheAnswer{addrs: slices.Clone(e.addrs)}
		case now.Sub(e.expires) <= c.opts.Timeout && (c.flights[name] != nil || c.prefetch.queued[name]):
			// The answer ran out moments ago and its refresh is already under way (a
			// refresh-ahead that lands late on a busy pool): serve it rather than stall
			// a lane for the renewal — RFC 8767 §5 with a client-response timer of 0,
			// for at most one DNS timeout past the TTL.
			e.lastAccess = now
			c.st.positiveHits.Add(1)
			c.st.staleServed.Add(1)
			return cacheAnswer{addrs: slices.Clone(e.addrs)}
		}
	}
	if e := c.neg.entries[name]; e != nil && now.Before(e.expires) {
		e.lastAccess = now
		c.st.negativeHits.Add(1)
		if len(e.addrs) > 0 {
			refresh := c.nearExpiry(e.expires, e.ttl, now) && c.flights[name] == nil && !c.prefetch.queued[name]
			return cacheAnswer{addrs: slices.Clone(e.addrs), refresh: refresh}
		}
		return cacheAnswer{err: &LookupError{Host: host, Kind: e.kind, Err: e.err}}
	} else if e != nil && transient(e.kind) && (c.flights[name] != nil || c.prefetch.queued[name]) {
		// The name failed at its last try and its retry is under way: answer with the
		// standing failure rather than stall a lane for what is most likely the same
		// failure (a silent server costs a full Timeout). The next lookup after the
		// retry lands sees its outcome.
		e.lastAccess = now
		c.st.negativeHits.Add(1)
		return cacheAnswer{err: &LookupError{Host: host, Kind: e.kind, Err: e.err}}
	}
	c.st.misses.Add(1)
	if fl := c.flights[name]; fl != nil {
		return cacheAnswer{flight: fl}
	}
	if c.closed {
		return cacheAnswer{err: ErrClosed}
	}
	return cacheAnswer{flight: c.startFlightLocked(name)}
}

// refreshableLocked: not already being resolved or queued, and not a refresh that
// failed less than StaleRetry ago.
func (c *Cache) refreshableLocked(e *hostEntry, now time.Time) bool {
	return c.flights[e.host] == nil && !c.prefetch.queued[e.host] &&
		(e.failedAt.IsZero() || now.Sub(e.failedAt) >= c.opts.StaleRetry)
}

// startFlightLocked registers a flight for name and resolves it in the background.
func (c *Cache) startFlightLocked(name string) *flight {
	fl := &flight{done: make(chan struct{})}
	c.flights[name] = fl
	c.wg.Go(func() { c.fly(name, fl) })
	return fl
}

// fly runs one upstream resolution, files the answer and wakes the waiters.
func (c *Cache) fly(name string, fl *flight) {
	c.st.upstreamQueries.Add(1)
	a := c.up.resolve(c.ctx, name)
	c.upstream.observe(a.took)
	if a.kind == "" {
		c.answers.observe(a.took)
	}
	now := c.opts.Now()
	c.mu.Lock()
	fl.outcome = c.storeLocked(name, a, now)
	delete(c.flights, name)
	c.mu.Unlock()
	close(fl.done)
}

// storeLocked files an upstream answer (seed 004: success and fast → positive; slow
// or failed → negative) and returns what waiters get.
func (c *Cache) storeLocked(name string, a answer, now time.Time) outcome {
	o := &c.opts
	if a.kind != "" && c.ctx.Err() != nil {
		return outcome{err: ErrClosed} // cancelled by Close: nothing learnt about the name
	}
	switch {
	case a.kind == "" && a.took < o.SlowThreshold:
		ttl := min(max(a.ttl, o.MinTTL), o.MaxTTL)
		e := &hostEntry{host: name, domain: registeredDomain(name), addrs: a.addrs, ttl: ttl,
			expires: now.Add(ttl), lastAccess: now, took: a.took}
		delete(c.neg.entries, name)
		c.st.evicted.Add(int64(c.pos.put(e, o.PerDomainCap)))
		c.st.evicted.Add(int64(c.pos.trimGlobal(o.GlobalCap, now, e)))
		return outcome{addrs: a.addrs}

	case a.kind == "":
		// Slow success: usable addresses, filed negative (seed 004) so the weight, not
		// the median rule, decides how long the expensive answer is kept.
		ttl := min(max(a.ttl, o.MinTTL), o.MaxTTL)
		c.pos.remove(name)
		c.putNegLocked(&negEntry{host: name, addrs: a.addrs, ttl: ttl, expires: now.Add(ttl),
			lastAccess: now, took: a.took}, now)
		return outcome{addrs: a.addrs}

	case !transient(a.kind):
		// RFC 2308: cache NXDOMAIN / no data for the SOA-derived TTL; without an SOA,
		// for the least allowed time. A name that is gone is never served stale.
		ttl := o.NegMinTTL
		if a.soa {
			ttl = min(max(a.ttl, o.NegMinTTL), o.NegMaxTTL)
		}
		c.pos.remove(name)
		c.putNegLocked(&negEntry{host: name, kind: a.kind, err: a.err, ttl: ttl, expires: now.Add(ttl),
			lastAccess: now, took: a.took}, now)
		return outcome{err: &LookupError{Host: name, Kind: a.kind, Err: a.err}}
	}

	// Transient failure (SERVFAIL, timeout, ...): never taken for NXDOMAIN; the name is
	// retried after a jittered exponential backoff step.
	failures := 1
	if prev := c.neg.entries[name]; prev != nil && transient(prev.kind) {
		failures = prev.failures + 1
	}
	step := c.backoff(failures)
	c.putNegLocked(&negEntry{host: name, kind: a.kind, err: a.err, ttl: step, expires: now.Add(step),
		lastAccess: now, took: a.took, failures: failures}, now)
	if e := c.pos.hosts[name]; e != nil && now.Sub(e.expires) <= o.StaleFor {
		e.failedAt = now
		// RFC 8767 serve-stale (or a failed refresh-ahead of a live entry).
		return outcome{addrs: e.addrs, stale: !now.Before(e.expires)}
	}
	return outcome{err: &LookupError{Host: name, Kind: a.kind, Err: a.err}}
}

// backoff is the wait before retrying a name after its n-th consecutive transient
// failure: uniform in [d/2, d], d = min(RetryBase·2^(n-1), RetryMax). The jitter keeps
// names that failed together (one sick server) from being retried in one burst.
func (c *Cache) backoff(n int) time.Duration {
	d := c.opts.RetryBase
	for i := 1; i < n && d < c.opts.RetryMax; i++ {
		d *= 2
	}
	d = min(d, c.opts.RetryMax)
	return d/2 + rand.N(d/2+1)
}

func (c *Cache) putNegLocked(e *negEntry, now time.Time) {
	c.neg.entries[e.host] = e
	if len(c.neg.entries) > c.opts.NegativeCap {
		c.st.evicted.Add(int64(c.neg.evict(now, &c.opts)))
	}
}

// relabel puts the host as the caller spelled it into an error shared by a flight.
func relabel(err error, host string) error {
	if le, ok := err.(*LookupError); ok && le.Host != host {
		cp := *le
		cp.Host = host
		return &cp
	}
	return err
}
