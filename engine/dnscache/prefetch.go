package dnscache

import (
	"math/rand/v2"
	"time"
)

// prefetchQueue holds the hosts waiting for a prefetch worker (M5, seed 004 claim 2).
type prefetchQueue struct {
	waiting []string        // canonical names, in no particular order
	queued  map[string]bool // the set of waiting
	workers int             // workers alive
	busy    int             // workers resolving right now
}

// Prefetch queues hosts of URLs waiting in the frontier so they are resolved before a
// lane needs them. Hosts fresh in cache (and not near expiry), already queued or being
// resolved are skipped, as are IP literals and names that can never be queried. It
// returns at once; a pool of workers sized from the backlog does the resolving.
func (c *Cache) Prefetch(hosts ...string) {
	names := make([]string, 0, len(hosts))
	for _, h := range hosts {
		if _, ok := ipLiteral(h); ok {
			continue
		}
		if name, err := canonicalName(h); err == nil {
			names = append(names, name)
		}
	}
	c.enqueue(names)
	c.maintain(c.opts.Now())
}

// enqueue adds canonical names the cache cannot answer well for, and grows the pool.
func (c *Cache) enqueue(names []string) {
	if len(names) == 0 {
		return
	}
	now := c.opts.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	q := &c.prefetch
	for _, name := range names {
		if q.queued[name] || c.flights[name] != nil || !c.wantedLocked(name, now) {
			continue
		}
		q.queued[name] = true
		q.waiting = append(q.waiting, name)
	}
	// seed 004: M workers from the number N of waiting hosts, M ≥ 1; capped so a
	// burst of new hosts cannot flood the upstream server.
	n := len(q.waiting)
	want := min(c.opts.MaxWorkers, max(1, (n+c.opts.HostsPerWorker-1)/c.opts.HostsPerWorker))
	for n > 0 && q.workers < want {
		q.workers++
		c.wg.Go(c.prefetchWorker)
	}
}

// wantedLocked reports whether resolving name now would improve what the cache holds:
// nothing cached, an entry near expiry, or a stale answer due for its retry.
func (c *Cache) wantedLocked(name string, now time.Time) bool {
	o := &c.opts
	if e := c.pos.hosts[name]; e != nil {
		retryDue := e.failedAt.IsZero() || now.Sub(e.failedAt) >= o.StaleRetry
		if now.Before(e.expires) {
			return e.nearExpiry(now, o.RefreshAhead) && retryDue
		}
		if now.Sub(e.expires) <= o.StaleFor {
			return retryDue
		}
	}
	if e := c.neg.entries[name]; e != nil && now.Before(e.expires) {
		return len(e.addrs) > 0 && e.nearExpiry(now, o.RefreshAhead)
	}
	return true
}

// prefetchWorker resolves waiting hosts until none is left, then retires.
func (c *Cache) prefetchWorker() {
	q := &c.prefetch
	for {
		c.mu.Lock()
		if len(q.waiting) == 0 || c.closed {
			q.workers--
			c.mu.Unlock()
			return
		}
		// seed 004: each waiting host is handed at random to an idle worker.
		i := rand.IntN(len(q.waiting))
		name := q.waiting[i]
		last := len(q.waiting) - 1
		q.waiting[i] = q.waiting[last]
		q.waiting = q.waiting[:last]
		delete(q.queued, name)
		var fl *flight
		if c.flights[name] == nil && c.wantedLocked(name, c.opts.Now()) {
			// A flight started by the fetch path already does the job; otherwise this
			// worker runs one, which fetch-path requests for the name then join.
			fl = &flight{done: make(chan struct{})}
			c.flights[name] = fl
			q.busy++
		}
		c.mu.Unlock()
		if fl == nil {
			continue
		}
		c.fly(name, fl)
		c.st.prefetched.Add(1)
		c.mu.Lock()
		q.busy--
		c.mu.Unlock()
	}
}

// sweepDue reports whether SweepEvery has passed since the last sweep (Options clock).
func (c *Cache) sweepDue(now time.Time) bool {
	return now.UnixNano()-c.lastSweep.Load() >= int64(c.opts.SweepEvery)
}

// maintain runs the periodic sweep when SweepEvery has passed on the Options clock:
// it evicts answers past serve-stale age and low-weight stale negative entries (M5),
// and queues near-expiry entries for refresh if StillNeeded says their host still has
// queued URLs. Run by Prefetch, and by sweepLoop on its ticker or when a lookup sees
// a sweep is due, so a fake clock drives it too.
func (c *Cache) maintain(now time.Time) {
	last := c.lastSweep.Load()
	if now.UnixNano()-last < int64(c.opts.SweepEvery) || !c.lastSweep.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	o := &c.opts
	var near []string
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	evicted := 0
	for host, e := range c.pos.hosts {
		if now.Sub(e.expires) > o.StaleFor {
			c.pos.remove(host)
			evicted++
		}
	}
	evicted += c.neg.evict(now, o)
	c.st.evicted.Add(int64(evicted))
	if o.StillNeeded != nil {
		// Entries that expired within the last two sweeps count too: a TTL shorter
		// than the sweep period would otherwise never be refreshed ahead.
		recent := 2 * o.SweepEvery
		for host, e := range c.pos.hosts {
			if e.nearExpiry(now, o.RefreshAhead) && now.Sub(e.expires) <= recent && c.refreshableLocked(e, now) {
				near = append(near, host)
			}
		}
		for host, e := range c.neg.entries {
			if len(e.addrs) > 0 && e.nearExpiry(now, o.RefreshAhead) && now.Sub(e.expires) <= recent &&
				c.flights[host] == nil && !c.prefetch.queued[host] {
				near = append(near, host)
			}
		}
	}
	c.mu.Unlock()

	// StillNeeded is the engine's code: never call it under the cache lock.
	needed := near[:0]
	for _, host := range near {
		if o.StillNeeded(host) {
			needed = append(needed, host)
		}
	}
	c.enqueue(needed)
}

// sweepLoop runs the sweep off the fetch path: on its real-time ticker, and when a
// lookup finds one due on the Options clock.
func (c *Cache) sweepLoop() {
	t := time.NewTicker(c.opts.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
			c.maintain(c.opts.Now())
		case <-c.kick:
			c.maintain(c.opts.Now())
		}
	}
}
