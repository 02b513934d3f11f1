package dnscache

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// BenchmarkLookupHit is the fetch path when the prefetcher did its job: every lookup
// a positive hit.
func BenchmarkLookupHit(b *testing.B) {
	c, names := warmCache(b, 1000)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := c.LookupAddrs(ctx, names[i%len(names)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookupHitParallel is the same with every core's lanes asking at once
// (one cache lock).
func BenchmarkLookupHitParallel(b *testing.B) {
	c, names := warmCache(b, 1000)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := c.LookupAddrs(ctx, names[i%len(names)]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// warmCache holds n live answers; its only server is unreachable, so a miss would fail.
func warmCache(b *testing.B, n int) (*Cache, []string) {
	c, err := New(Options{Servers: []string{"127.0.0.1:1"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	var entries []Entry
	var names []string
	exp := c.opts.Now().Add(c.opts.MaxTTL)
	for i := range n {
		name := fmt.Sprintf("www.site%d.example.com", i)
		names = append(names, name)
		entries = append(entries, Entry{Host: name, Addrs: []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")}, Expires: exp, TTL: c.opts.MaxTTL})
	}
	c.Import(entries)
	return c, names
}

// BenchmarkCrawlWaits replays a small crawl against an upstream with 20 ms latency:
// 8 lanes walk 25 hosts each, with a 5 ms fetch per host. With the prefetcher told
// about the whole queue at the start (M5), versus the fetch path resolving alone.
// Reported per run: fetch-path wait p99 and the share of fetches with no wait.
func BenchmarkCrawlWaits(b *testing.B) {
	for _, prefetch := range []bool{false, true} {
		b.Run(fmt.Sprintf("prefetch=%v", prefetch), func(b *testing.B) {
			var p99, zero float64
			for b.Loop() {
				s := crawlOnce(b, prefetch)
				p99 += s.WaitP99Ms
				zero += s.ZeroWaitShare
			}
			b.ReportMetric(p99/float64(b.N), "wait_p99_ms")
			b.ReportMetric(zero/float64(b.N), "zero_wait_share")
		})
	}
}

func crawlOnce(b *testing.B, prefetch bool) Stats {
	const lanes, perLane = 8, 25
	srv := newTestServer(b)
	var all []string
	for i := range lanes * perLane {
		name := fmt.Sprintf("www.site%d.example", i)
		all = append(all, name)
		srv.set(name, zone{a: []string{"192.0.2.1"}, ttl: 300, delay: 20 * time.Millisecond})
	}
	o := DefaultOptions()
	o.Servers = []string{srv.addr}
	c, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if prefetch {
		c.Prefetch(all...)
	}
	var wg sync.WaitGroup
	for l := range lanes {
		wg.Go(func() {
			for _, host := range all[l*perLane : (l+1)*perLane] {
				if _, err := c.LookupAddrs(context.Background(), host); err != nil {
					b.Error(err)
					return
				}
				time.Sleep(5 * time.Millisecond) // the fetch itself
			}
		})
	}
	wg.Wait()
	return c.Stats()
}
