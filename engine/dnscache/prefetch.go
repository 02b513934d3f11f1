package dnscache

import (
	"container/heap"
	"time"
)

// prefetchQueue holds the hosts waiting for a prefetch worker (M5, seed 004 claim 2),
// in order of need: first the names the cache cannot answer at all, in the order they
// were queued (the engine queues hosts in frontier order, which is the order lanes take
// them); then refreshes of answers still in force, earliest expiry first. A refresh
// never holds up a name a lane will otherwise wait for.
type prefetchQueue struct {
	fresh     []string        // names with no usable answer, FIFO from freshAt
	freshAt   int             // index of the oldest waiting fresh name
	refresh   refreshHeap     // live answers near expiry, and failures due for a retry
	queued    map[string]bool // every waiting name, either tier
	workers   int             // workers alive
	busy      int             // workers resolving right now
	nextSpawn time.Time       // the earliest start of the next new worker (real clock)
}

// waiting is the number of names queued and not yet taken by a worker.
func (q *prefetchQueue) waiting() int { return len(q.fresh) - q.freshAt + len(q.refresh) }

func (q *prefetchQueue) push(name string, need need) {
	q.queued[name] = true
	if need.refresh {
		heap.Push(&q.refresh, refreshItem{name: name, due: need.due})
		return
	}
	q.fresh = append(q.fresh, name)
}

// pop takes the most needed name (ok false when none waits).
func (q *prefetchQueue) pop() (string, bool) {
	var name string
	switch {
	case q.freshAt < len(q.fresh):
		name = q.fresh[q.freshAt]
		q.fresh[q.freshAt] = ""
		q.freshAt++
		if q.freshAt == len(q.fresh) {
			q.fresh, q.freshAt = q.fresh[:0], 0
		} else if q.freshAt > 1024 && q.freshAt > len(q.fresh)/2 {
			q.fresh = append(q.fresh[:0], q.fresh[q.freshAt:]...)
			q.freshAt = 0
		}
	case len(q.refresh) > 0:
		name = heap.Pop(&q.refresh).(refreshItem).name
	default:
		return "", false
	}
	delete(q.queued, name)
	return name, true
}

// refreshItem is a queued refresh: due is when the answer it renews runs out.
type refreshItem struct {
	name string
	due  time.Time
}

// refreshHeap orders refreshes by due time (container/heap).
type refreshHeap []refreshItem

func (h refreshHeap) Len() int           { return len(h) }
func (h refreshHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h refreshHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refreshHeap) Push(x any)        { *h = append(*h, x.(refreshItem)) }
func (h *refreshHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// Prefetch queues hosts of URLs waiting in the frontier so they are resolved before a
// lane needs them, in the order given. Hosts fresh in cache (and not near expiry),
// already queued or being resolved are skipped, as are IP literals and names that can
// never be queried. It returns at once; a pool of workers sized from the backlog does
// the resolving.
func (c *Cache) Prefetch(hosts ...string) {
	names := make([]string, 0, len(hosts))
	for _, h := range hosts {
		if _, ok := ipLiteral(h); ok {
			continue
		}
		if _, ok := c.hosts.lookup(h, false); ok {
			continue
		}
		if name, err := canonicalName(h); err == nil && !c.held(name) {
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
		if q.queued[name] || c.flights[name] != nil {
			continue
		}
		if need := c.needLocked(name, now); need.now {
			q.push(name, need)
		}
	}
	// seed 004: M workers from the number N of waiting hosts, M ≥ 1; capped so a
	// burst of new hosts cannot flood the upstream server.
	n := q.waiting()
	want := min(c.opts.MaxWorkers, max(1, (n+c.opts.HostsPerWorker-1)/c.opts.HostsPerWorker))
	for n > 0 && q.workers < want {
		q.workers++
		// New workers start spawnGap apart: a pool going from idle to hundreds of
		// workers would otherwise send hundreds of queries in the same instant, more
		// than a server's UDP receive buffer holds (~200 datagrams at Linux defaults;
		// bench dns saw them dropped), and every lost one costs half a timeout.
		start := time.Now()
		if start.Before(q.nextSpawn) {
			start = q.nextSpawn
		}
		q.nextSpawn = start.Add(spawnGap)
		c.wg.Go(func() { c.prefetchWorker(time.Until(start)) })
	}
}

// spawnGap is the least time between the starts of two new prefetch workers: 10 a
// millisecond, so 512 workers are all at work within about 50 ms.
const spawnGap = 100 * time.Microsecond

// need says whether resolving a name now would improve what the cache holds, and how
// urgently: a refresh renews an answer still in force (due when it runs out); anything
// else is a name a lookup could not answer without going upstream.
type need struct {
	now     bool
	refresh bool
	due     time.Time
}

// needLocked: nothing cached, an answer near expiry (within refreshWindow), a stale
// answer due for its retry, or a transient failure whose backoff step has ended.
func (c *Cache) needLocked(name string, now time.Time) need {
	o := &c.opts
	if e := c.pos.hosts[name]; e != nil {
		retryDue := e.failedAt.IsZero() || now.Sub(e.failedAt) >= o.StaleRetry
		if now.Before(e.expires) {
			return need{now: c.nearExpiry(e.expires, e.ttl, now) && retryDue, refresh: true, due: e.expires}
		}
		if now.Sub(e.expires) <= o.StaleFor {
			// Served stale meanwhile (a refresh failed, or it is under way): a refresh,
			// the most overdue first.
			return need{now: retryDue, refresh: true, due: e.expires}
		}
	}
	if e := c.neg.entries[name]; e != nil {
		switch {
		case now.Before(e.expires) && len(e.addrs) > 0:
			return need{now: c.nearExpiry(e.expires, e.ttl, now), refresh: true, due: e.expires}
		case now.Before(e.expires) && !transient(e.kind):
			// RFC 2308 answer still in force: renewed ahead like an address.
			return need{now: c.nearExpiry(e.expires, e.ttl, now), refresh: true, due: e.expires}
		case now.Before(e.expires):
			return need{} // backing off: not before the step ends
		case transient(e.kind):
			// Backoff step over: retry. Lookups meanwhile get the standing failure
			// (lookupLocked), so this is a refresh, not a name a lane waits for.
			return need{now: true, refresh: true, due: e.expires}
		}
	}
	return need{now: true}
}

// nearExpiry reports an answer (of TTL ttl, running out at expires) inside its refresh
// window: the last RefreshAhead share of the TTL, or more when that is shorter than the
// time a refresh takes to land — a sweep period plus the upstream's p99 answer time —
// so that short TTLs are renewed before they run out (never earlier than half the TTL).
func (c *Cache) nearExpiry(expires time.Time, ttl time.Duration, now time.Time) bool {
	window := time.Duration(float64(ttl) * c.opts.RefreshAhead)
	if lead := c.opts.SweepEvery + time.Duration(c.answerP99.Load()); lead > window {
		window = min(lead, ttl/2)
	}
	return expires.Sub(now) <= window
}

// prefetchWorker waits delay (its turn to start, see spawnGap), then resolves waiting
// hosts until none is left and retires.
func (c *Cache) prefetchWorker(delay time.Duration) {
	q := &c.prefetch
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-c.ctx.Done():
			t.Stop()
		}
	}
	for {
		c.mu.Lock()
		if c.closed {
			q.workers--
			c.mu.Unlock()
			return
		}
		// seed 004: the next host goes to whichever worker is idle first; no worker
		// owns a host. Hosts come out in order of need (see prefetchQueue).
		name, ok := q.pop()
		if !ok {
			q.workers--
			c.mu.Unlock()
			return
		}
		if c.opts.Held != nil {
			// Held since it was queued: dropped, not asked (Options.Held). The
			// engine's code runs off the lock.
			c.mu.Unlock()
			if c.held(name) {
				continue
			}
			c.mu.Lock()
			if c.closed {
				q.workers--
				c.mu.Unlock()
				return
			}
		}
		var fl *flight
		if c.flights[name] == nil && c.needLocked(name, c.opts.Now()).now {
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

// held reports whether the operator holds name (Options.Held). Not under c.mu.
func (c *Cache) held(name string) bool { return c.opts.Held != nil && c.opts.Held(name) }

// sweepDue reports whether SweepEvery has passed since the last sweep (Options clock).
func (c *Cache) sweepDue(now time.Time) bool {
	return now.UnixNano()-c.lastSweep.Load() >= int64(c.opts.SweepEvery)
}

// maintain runs the periodic sweep when SweepEvery has passed on the Options clock:
// it evicts answers past serve-stale age and low-weight stale negative entries (M5),
// and, for hosts StillNeeded says still have queued URLs, queues answers near expiry
// for refresh and failing names whose backoff step has ended for a retry. Run by
// Prefetch, and by sweepLoop on its ticker or when a lookup sees a sweep is due, so a
// fake clock drives it too.
func (c *Cache) maintain(now time.Time) {
	last := c.lastSweep.Load()
	if now.UnixNano()-last < int64(c.opts.SweepEvery) || !c.lastSweep.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	o := &c.opts
	if p99 := c.answers.snapshot().quantile(0.99); p99 > 0 {
		c.answerP99.Store(int64(min(p99, o.Timeout)))
	}
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
			if c.nearExpiry(e.expires, e.ttl, now) && now.Sub(e.expires) <= recent && c.refreshableLocked(e, now) {
				near = append(near, host)
			}
		}
		for host, e := range c.neg.entries {
			if c.flights[host] != nil || c.prefetch.queued[host] {
				continue
			}
			// Transient failures are retried at the end of each backoff step while
			// the host is needed (with jittered backoff, so retries of many hosts do not
			// arrive together), so a lane
			// that gets there later finds the outcome instead of starting the retry.
			if transient(e.kind) {
				// Considered once per failure: a sweep that runs late must not skip
				// the retry, and a host no longer queued is not asked about again
				// (the engine's Prefetch re-queues it if it comes back).
				if !now.Before(e.expires) && !e.retryConsidered {
					e.retryConsidered = true
					near = append(near, host)
				}
			} else if c.nearExpiry(e.expires, e.ttl, now) && now.Sub(e.expires) <= recent {
				near = append(near, host)
			}
		}
	}
	c.mu.Unlock()

	// StillNeeded is the engine's code: never call it under the cache lock.
	needed := near[:0]
	for _, host := range near {
		if o.StillNeeded(host) && !c.held(host) {
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
