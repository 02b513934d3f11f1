package dnscache

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// TestConcurrentUseUnderChurn runs lookups, prefetches, flushes, views and a moving
// clock at once (meant for -race): every answer must be the host's address or a
// failure kind the zone can produce, and the counters must add up.
func TestConcurrentUseUnderChurn(t *testing.T) {
	hosts, rounds := 60, 400
	if testing.Short() {
		rounds = 100
	}
	srv := newTestServer(t)
	clock := newFakeClock()
	want := map[string]string{}
	for i := range hosts {
		name := fmt.Sprintf("h%d.d%d.example", i, i%5)
		switch i % 6 {
		case 0:
			srv.set(name, zone{rcode: dns.RcodeServerFailure})
		case 1:
			srv.set(name, zone{rcode: dns.RcodeNameError, soaTTL: 60, soaMin: 60})
		default:
			want[name] = fmt.Sprintf("192.0.2.%d", i)
			srv.set(name, zone{a: []string{want[name]}, ttl: uint32(60 + i)})
		}
	}
	o := testOptions(srv, clock)
	o.PerDomainCap, o.GlobalCap, o.NegativeCap = 8, 30, 10
	o.MaxWorkers = 4
	o.StillNeeded = func(host string) bool { return len(host)%2 == 0 }
	c := newTestCache(t, o)

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for range rounds {
				i := rng.IntN(hosts)
				name := fmt.Sprintf("h%d.d%d.example", i, i%5)
				addrs, err := c.LookupAddrs(context.Background(), name)
				switch k := kindOf(err); {
				case err == nil && (len(addrs) != 1 || addrs[0].String() != want[name]):
					errs <- fmt.Errorf("%s: got %v, want %s", name, addrs, want[name])
					return
				case err != nil && k != KindServFail && k != KindNXDomain:
					errs <- fmt.Errorf("%s: unexpected %v", name, err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range rounds / 4 {
			clock.Add(7 * time.Second)
			c.Prefetch(fmt.Sprintf("h%d.d%d.example", i%hosts, i%hosts%5))
			if i%10 == 0 {
				c.Flush(fmt.Sprintf("d%d.example", i%5))
			}
			c.View(5)
			c.Export()
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s := c.Stats()
	if s.Lookups != s.PositiveHits+s.NegativeHits+s.Misses+s.Rejected || s.Lookups != int64(4*rounds) {
		t.Fatalf("counters do not add up: %+v", s)
	}
	if v := c.View(0); v.Hosts > 30 || v.NegativeCount > 10 {
		t.Fatalf("caps exceeded: %d hosts, %d negative", v.Hosts, v.NegativeCount)
	}
}
