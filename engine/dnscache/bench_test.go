package dnscache

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
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
