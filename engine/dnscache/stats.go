package dnscache

import (
	"cmp"
	"slices"
	"sync/atomic"
	"time"
)

// counters are bumped on the hot path without the cache lock.
type counters struct {
	lookups, positiveHits, negativeHits, misses, rejected atomic.Int64
	prefetched, upstreamQueries, staleServed, evicted     atomic.Int64
}

// Stats are the cache's running totals: the `dns` object of --stats-json (M5's names).
// Lookups = PositiveHits + NegativeHits + Misses + Rejected.
type Stats struct {
	Lookups          int64        `json:"lookups"`           // LookupAddrs calls for names (IP literals and static names are not lookups)
	PositiveHits     int64        `json:"positive_hits"`     // answered from the positive cache, stale answers included
	NegativeHits     int64        `json:"negative_hits"`     // answered from the negative cache (slow addresses or a cached failure)
	Misses           int64        `json:"misses"`            // waited for an upstream resolution (own or joined)
	Rejected         int64        `json:"rejected"`          // names refused before any query (too long, invalid)
	Prefetched       int64        `json:"prefetched"`        // upstream resolutions run by the prefetch workers
	UpstreamQueries  int64        `json:"upstream_queries"`  // upstream resolutions of a host (A and AAAA together)
	UpstreamMessages int64        `json:"upstream_messages"` // DNS messages sent: per type, per server tried, TCP retries
	StaleServed      int64        `json:"stale_served"`      // answers served past their TTL: upstream failed, or the refresh was under way (RFC 8767)
	Evicted          int64        `json:"evicted"`           // entries dropped by caps and sweeps (expiry by TTL not counted)
	WaitP50Ms        float64      `json:"wait_p50_ms"`       // fetch-path wait, median
	WaitP99Ms        float64      `json:"wait_p99_ms"`       // fetch-path wait, 99th percentile (0 when ≥ 99% came from cache)
	ZeroWaitShare    float64      `json:"zero_wait_share"`   // share of lookups answered with no wait
	WaitHistogram    []HistBucket `json:"wait_histogram"`    // fetch-path waits, non-empty buckets
}

// Stats returns the running totals; cheap enough to call on every console tick.
func (c *Cache) Stats() Stats {
	w := c.wait.snapshot()
	s := Stats{
		Lookups:          c.st.lookups.Load(),
		PositiveHits:     c.st.positiveHits.Load(),
		NegativeHits:     c.st.negativeHits.Load(),
		Misses:           c.st.misses.Load(),
		Rejected:         c.st.rejected.Load(),
		Prefetched:       c.st.prefetched.Load(),
		UpstreamQueries:  c.st.upstreamQueries.Load(),
		UpstreamMessages: c.up.messages.Load(),
		StaleServed:      c.st.staleServed.Load(),
		Evicted:          c.st.evicted.Load(),
		WaitP50Ms:        ms(w.quantile(0.50)),
		WaitP99Ms:        ms(w.quantile(0.99)),
		WaitHistogram:    w.list(),
	}
	if w.total > 0 {
		s.ZeroWaitShare = float64(w.zero) / float64(w.total)
	}
	return s
}

// View is what the console's DNS pane shows (M5): hit rates, prefetch backlog,
// upstream latency, the slowest domains and the negative entries.
type View struct {
	At            time.Time       `json:"at"`
	Stats         Stats           `json:"stats"`
	PositiveRate  float64         `json:"positive_rate"` // shares of all lookups so far
	NegativeRate  float64         `json:"negative_rate"`
	MissRate      float64         `json:"miss_rate"`
	Hosts         int             `json:"hosts"`     // entries in the positive cache
	Domains       int             `json:"domains"`   // registered domains in the positive cache
	NegativeCount int             `json:"negative"`  // entries in the negative cache
	Backlog       int             `json:"backlog"`   // hosts waiting for or being resolved by a prefetch worker
	Workers       int             `json:"workers"`   // prefetch workers alive
	InFlight      int             `json:"in_flight"` // upstream resolutions in progress
	UpstreamP50Ms float64         `json:"upstream_p50_ms"`
	UpstreamP99Ms float64         `json:"upstream_p99_ms"`
	Slowest       []DomainLatency `json:"slowest"`          // at most n, slowest mean resolve time first
	Negative      []NegativeEntry `json:"negative_entries"` // at most n, heaviest first
}

// DomainLatency is the resolve time of the cached hosts of one registered domain.
type DomainLatency struct {
	Domain string  `json:"domain"`
	Hosts  int     `json:"hosts"`
	MeanMs float64 `json:"mean_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// NegativeEntry is one negative-cache entry as the console lists it.
type NegativeEntry struct {
	Host     string        `json:"host"`
	Reason   string        `json:"reason"`    // a Kind, or "slow" for a slow answer with addresses
	Addrs    int           `json:"addrs"`     // addresses held (slow answers)
	Failures int           `json:"failures"`  // consecutive transient failures (backoff step)
	TimeLeft time.Duration `json:"time_left"` // until expiry or next retry; 0 once due
	Weight   float64       `json:"weight"`    // see negEntry.weight
}

// View gathers the DNS pane's data, with at most n slowest domains and n negative
// entries.
func (c *Cache) View(n int) View {
	now := c.opts.Now()
	v := View{At: now, Stats: c.Stats()}
	if s := v.Stats; s.Lookups > 0 {
		v.PositiveRate = float64(s.PositiveHits) / float64(s.Lookups)
		v.NegativeRate = float64(s.NegativeHits) / float64(s.Lookups)
		v.MissRate = float64(s.Misses) / float64(s.Lookups)
	}
	up := c.upstream.snapshot()
	v.UpstreamP50Ms, v.UpstreamP99Ms = ms(up.quantile(0.50)), ms(up.quantile(0.99))

	c.mu.Lock()
	defer c.mu.Unlock()
	v.Hosts, v.Domains, v.NegativeCount = c.pos.len(), len(c.pos.domains), len(c.neg.entries)
	v.Backlog = c.prefetch.waiting() + c.prefetch.busy
	v.Workers, v.InFlight = c.prefetch.workers, len(c.flights)
	if n <= 0 {
		return v
	}

	type agg struct {
		hosts     int
		sum, peak time.Duration
	}
	byDomain := map[string]*agg{}
	add := func(domain string, took time.Duration) {
		a := byDomain[domain]
		if a == nil {
			a = &agg{}
			byDomain[domain] = a
		}
		a.hosts++
		a.sum += took
		a.peak = max(a.peak, took)
	}
	for domain, tree := range c.pos.domains {
		for _, e := range tree {
			add(domain, e.took)
		}
	}
	o := &c.opts
	for host, e := range c.neg.entries {
		add(registeredDomain(host), e.took)
		v.Negative = append(v.Negative, NegativeEntry{Host: host, Reason: e.reason(), Addrs: len(e.addrs),
			Failures: e.failures, TimeLeft: max(e.expires.Sub(now), 0), Weight: e.weight(now, o.SlowThreshold, o.NegHalfLife)})
	}
	for domain, a := range byDomain {
		v.Slowest = append(v.Slowest, DomainLatency{Domain: domain, Hosts: a.hosts,
			MeanMs: ms(a.sum / time.Duration(a.hosts)), MaxMs: ms(a.peak)})
	}
	slices.SortFunc(v.Slowest, func(a, b DomainLatency) int {
		return cmp.Or(cmp.Compare(b.MeanMs, a.MeanMs), cmp.Compare(a.Domain, b.Domain))
	})
	slices.SortFunc(v.Negative, func(a, b NegativeEntry) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(a.Host, b.Host))
	})
	v.Slowest = v.Slowest[:min(n, len(v.Slowest))]
	v.Negative = v.Negative[:min(n, len(v.Negative))]
	return v
}
