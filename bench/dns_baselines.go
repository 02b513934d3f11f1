package main

// The baselines of benchmark "dns": Go's resolver with no cache and rs/dnscache, as
// fetch.Resolvers the engine dials through, timed on the fetch path.

import (
	"context"
	"math"
	"net"
	"net/netip"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	rsdns "github.com/rs/dnscache"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// dnsBaseline is a baseline resolver plugged into the engine: timed on the fetch
// path, with what it asked upstream by its own count.
type dnsBaseline struct {
	timed    *dnsTimedResolver
	upstream *dnsCountingUpstream // rs/dnscache's upstream; nil for Go's resolver
	stop     func()               // ends rs/dnscache's refresh loop
}

func newDNSBaseline(kind, dnsAddr string, scale float64) *dnsBaseline {
	b := &dnsBaseline{stop: func() {}}
	if kind == dnsGo {
		b.timed = &dnsTimedResolver{inner: dnsGoResolver{dnsSandboxResolver(dnsAddr)}}
		return b
	}
	b.upstream = &dnsCountingUpstream{r: dnsSandboxResolver(dnsAddr)}
	lib := &rsdns.Resolver{Resolver: b.upstream}
	// The README's refresh loop: Refresh(true) every 5 minutes — web minutes here, like
	// every TTL the sandbox serves. Refresh renews every used name serially.
	every := time.Duration(float64(5*time.Minute) / scale)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				lib.Refresh(true)
			}
		}
	})
	// Called once the sandbox is closed, so that a refresh pass in progress fails fast.
	b.stop = func() { close(stop); wg.Wait() }
	b.timed = &dnsTimedResolver{inner: dnsLibResolver{lib}}
	return b
}

// dnsSandboxResolver is Go's own resolver (no cache) asking the sandbox's DNS server.
func dnsSandboxResolver(addr string) *net.Resolver {
	d := &net.Dialer{Timeout: 3 * time.Second}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}
}

// dnsGoResolver is baseline 2: every lookup asks upstream (A and AAAA).
type dnsGoResolver struct{ r *net.Resolver }

func (g dnsGoResolver) LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	addrs, err := g.r.LookupNetIP(ctx, "ip", host)
	for i := range addrs {
		addrs[i] = addrs[i].Unmap()
	}
	return addrs, err
}

// dnsLibResolver is baseline 3: rs/dnscache as a fetch.Resolver.
type dnsLibResolver struct{ r *rsdns.Resolver }

func (l dnsLibResolver) LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	ss, err := l.r.LookupHost(ctx, host)
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, 0, len(ss))
	for _, s := range ss {
		if a, err := netip.ParseAddr(s); err == nil {
			out = append(out, a.Unmap())
		}
	}
	return out, nil
}

// dnsCountingUpstream counts the resolutions rs/dnscache asks of Go's resolver
// (misses and refreshes alike).
type dnsCountingUpstream struct {
	r *net.Resolver
	n atomic.Int64
}

func (c *dnsCountingUpstream) LookupHost(ctx context.Context, host string) ([]string, error) {
	c.n.Add(1)
	return c.r.LookupHost(ctx, host)
}

func (c *dnsCountingUpstream) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	c.n.Add(1)
	return c.r.LookupAddr(ctx, addr)
}

// dnsTimedResolver records the fetch-path wait of every lookup of a baseline.
type dnsTimedResolver struct {
	inner fetch.Resolver
	start time.Time
	mu    sync.Mutex
	log   []dnsLookup
}

type dnsLookup struct {
	at   time.Duration // since the crawl's start
	wait time.Duration
}

func (t *dnsTimedResolver) LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	begin := time.Now()
	addrs, err := t.inner.LookupAddrs(ctx, host)
	wait := time.Since(begin)
	t.mu.Lock()
	t.log = append(t.log, dnsLookup{at: begin.Sub(t.start), wait: wait})
	t.mu.Unlock()
	return addrs, err
}

func (t *dnsTimedResolver) samples() []dnsLookup {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.log)
}

// dnsNoWait is the longest baseline lookup still taken for a cache answer: every
// upstream exchange takes at least the sandbox's minimum latency (50 ms).
const dnsNoWait = time.Millisecond

func dnsCountWaits(ws []time.Duration) int64 {
	var n int64
	for _, w := range ws {
		if w >= dnsNoWait {
			n++
		}
	}
	return n
}

// dnsQuantileMs is the exact q-quantile of ws in ms; waits under dnsNoWait count as 0,
// like crawlconsole's cache answers.
func dnsQuantileMs(ws []time.Duration, q float64) float64 {
	if len(ws) == 0 {
		return 0
	}
	s := slices.Clone(ws)
	slices.Sort(s)
	v := s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)]
	if v < dnsNoWait {
		return 0
	}
	return float64(v) / float64(time.Millisecond)
}

// dnsHistDiff subtracts an earlier snapshot of crawlconsole's wait histogram.
func dnsHistDiff(now, before []dnscache.HistBucket) []dnscache.HistBucket {
	prev := map[float64]int64{}
	for _, b := range before {
		prev[b.UpToMs] += b.Count
	}
	var out []dnscache.HistBucket
	for _, b := range now {
		if n := b.Count - prev[b.UpToMs]; n > 0 {
			out = append(out, dnscache.HistBucket{UpToMs: b.UpToMs, Count: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpToMs < out[j].UpToMs })
	return out
}

// dnsHistQuantile reads a quantile off histogram buckets the way the cache does: the
// upper edge of the bucket holding it.
func dnsHistQuantile(bs []dnscache.HistBucket, q float64) float64 {
	var total int64
	for _, b := range bs {
		total += b.Count
	}
	if total == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(total)))
	var seen int64
	for _, b := range bs {
		seen += b.Count
		if seen >= rank {
			return b.UpToMs
		}
	}
	return bs[len(bs)-1].UpToMs
}
