package fake

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// ErrNoDNS is FlushDNS's answer on a crawl built with Config.NoDNS (the engine's
// words when a custom resolver replaces the cache).
var ErrNoDNS = errors.New("no DNS cache: a custom resolver is in use")

// buildDNS is the DNS pane's data (M5) of a crawl that has been running an hour:
// mostly cache hits, a prefetch backlog, a few slow domains and negative entries.
func buildDNS() *view.DNSView {
	v := &view.DNSView{
		At: Epoch,
		Stats: dnscache.Stats{
			Lookups: 48213, PositiveHits: 45102, NegativeHits: 1187, Misses: 1924,
			Prefetched: 9876, UpstreamQueries: 11800, UpstreamMessages: 24100,
			StaleServed: 14, Evicted: 37, WaitP50Ms: 0, WaitP99Ms: 0.42, ZeroWaitShare: 0.9961,
			WaitHistogram: []dnscache.HistBucket{},
		},
		Hosts: 1203, Domains: 310, NegativeCount: 45,
		Backlog: 12, Workers: 4, InFlight: 3,
		UpstreamP50Ms: 61.5, UpstreamP99Ms: 187,
	}
	v.PositiveRate, v.NegativeRate, v.MissRate = rates(v.Stats)
	for i := range 12 {
		mean := 310.0 - float64(i*23)
		v.Slowest = append(v.Slowest, dnscache.DomainLatency{
			Domain: fmt.Sprintf("%s-%02d.sandbox.test", []string{"social", "news", "blog"}[i%3], 60+i*3),
			Hosts:  1 + (i*5)%7, MeanMs: mean, MaxMs: mean*1.6 + float64(i),
		})
	}
	reasons := []string{dnscache.KindNXDomain, dnscache.KindTimeout, "slow", dnscache.KindServFail,
		dnscache.KindNoAddress, dnscache.KindNXDomain, "slow", dnscache.KindRefused}
	for i := range 14 {
		r := reasons[i%len(reasons)]
		e := dnscache.NegativeEntry{
			Host:     fmt.Sprintf("gone-%02d.%s-%02d.sandbox.test", i, []string{"news", "blog", "social"}[i%3], 70+i),
			Reason:   r,
			TimeLeft: time.Duration(20+(i*397)%3500) * time.Second,
			Weight:   float64(40-i*2) / 10,
		}
		switch r {
		case "slow":
			e.Addrs = 2
		case dnscache.KindTimeout, dnscache.KindServFail, dnscache.KindRefused:
			e.Failures = 1 + i%4
			e.TimeLeft = time.Duration(5+i*3) * time.Second
		}
		v.Negative = append(v.Negative, e)
	}
	return v
}

func rates(s dnscache.Stats) (pos, neg, miss float64) {
	if s.Lookups == 0 {
		return 0, 0, 0
	}
	n := float64(s.Lookups)
	return float64(s.PositiveHits) / n, float64(s.NegativeHits) / n, float64(s.Misses) / n
}

// tickDNS moves the cache on by one second of a running crawl: 50 lookups, most of
// them hits, with a deterministic pattern of misses and negative hits so the pane's
// sparklines have a shape. The caller holds mu.
func (c *Control) tickDNS() {
	v := c.snap.DNS
	if v == nil {
		return
	}
	i := int64(v.At.Sub(Epoch) / time.Second)
	miss := (i * 7) % 5
	neg := int64(0)
	if i%4 == 0 {
		neg = 2 + i%3
	}
	s := &v.Stats
	s.Lookups += 50
	s.Misses += miss
	s.NegativeHits += neg
	s.PositiveHits += 50 - miss - neg
	s.UpstreamQueries += miss + 3
	s.Prefetched += 3
	v.PositiveRate, v.NegativeRate, v.MissRate = rates(*s)
	v.At = v.At.Add(time.Second)
	v.Backlog = int(5 + (i*3)%11)
	for j := range v.Negative {
		v.Negative[j].TimeLeft = max(v.Negative[j].TimeLeft-time.Second, 0)
	}
}

func cloneDNS(v *view.DNSView) *view.DNSView {
	return cloned(v, func(cp *view.DNSView) {
		cp.Slowest = slices.Clone(cp.Slowest)
		cp.Negative = slices.Clone(cp.Negative)
		cp.Stats.WaitHistogram = slices.Clone(cp.Stats.WaitHistogram)
	})
}

// FlushDNS drops the fake cache's entries for domain and the names under it (all
// when domain is ""), and returns how many went, as the engine does.
func (c *Control) FlushDNS(domain string) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("FlushDNS(%s)", domain))
	v := c.snap.DNS
	if v == nil {
		return 0, ErrNoDNS
	}
	if domain == "" {
		n := v.Hosts + v.NegativeCount
		v.Hosts, v.Domains, v.NegativeCount = 0, 0, 0
		v.Slowest, v.Negative = nil, nil
		return n, nil
	}
	under := func(host string) bool { return host == domain || strings.HasSuffix(host, "."+domain) }
	n := 0
	v.Slowest = slices.DeleteFunc(slices.Clone(v.Slowest), func(d dnscache.DomainLatency) bool {
		if under(d.Domain) {
			n += d.Hosts
			v.Hosts -= d.Hosts
			v.Domains--
			return true
		}
		return false
	})
	v.Negative = slices.DeleteFunc(slices.Clone(v.Negative), func(e dnscache.NegativeEntry) bool {
		if under(e.Host) {
			n++
			v.NegativeCount--
			return true
		}
		return false
	})
	return n, nil
}
