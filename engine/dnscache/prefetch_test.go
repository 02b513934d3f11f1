package dnscache

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func TestConcurrentLookupsShareOneUpstreamQuery(t *testing.T) {
	for _, n := range []int{2, 50} {
		t.Run(fmt.Sprintf("%d lookups", n), func(t *testing.T) {
			srv := newTestServer(t)
			hold := make(chan struct{})
			srv.set("busy.example.com", zone{a: []string{"192.0.2.40"}, ttl: 300, hold: hold})
			c := newTestCache(t, testOptions(srv, newFakeClock()))

			var wg sync.WaitGroup
			var ok atomic.Int64
			for range n {
				wg.Go(func() {
					addrs, err := c.LookupAddrs(context.Background(), "busy.example.com")
					if err == nil && len(addrs) == 1 && addrs[0].String() == "192.0.2.40" {
						ok.Add(1)
					}
				})
			}
			// Every request has arrived and is waiting before upstream may answer.
			waitFor(t, "all lookups waiting", func() bool { return c.Stats().Misses == int64(n) })
			close(hold)
			wg.Wait()
			if ok.Load() != int64(n) {
				t.Fatalf("%d of %d lookups got the answer", ok.Load(), n)
			}
			if a, aaaa := srv.queries("busy.example.com", dns.TypeA), srv.queries("busy.example.com", dns.TypeAAAA); a != 1 || aaaa != 1 {
				t.Fatalf("server saw %d A and %d AAAA queries, want 1 and 1", a, aaaa)
			}
			if s := c.Stats(); s.UpstreamQueries != 1 || s.WaitP99Ms <= 0 {
				t.Fatalf("stats %+v: want 1 upstream query and the waits recorded", s)
			}
		})
	}
}

func TestCancelledWaiterDoesNotCancelOthers(t *testing.T) {
	srv := newTestServer(t)
	hold := make(chan struct{})
	srv.set("www.example.com", zone{a: []string{"192.0.2.41"}, ttl: 300, hold: hold})
	c := newTestCache(t, testOptions(srv, newFakeClock()))

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := c.LookupAddrs(ctx, "www.example.com"); first <- err }()
	second := make(chan error, 1)
	go func() { _, err := c.LookupAddrs(context.Background(), "www.example.com"); second <- err }()
	waitFor(t, "both waiting", func() bool { return c.Stats().Misses == 2 })
	cancel()
	if err := <-first; kindOf(err) != KindTimeout {
		t.Fatalf("cancelled lookup: %v, want a timeout kind", err)
	}
	close(hold)
	if err := <-second; err != nil {
		t.Fatalf("other lookup failed with %v", err)
	}
}

func TestPrefetchRemovesWaits(t *testing.T) {
	srv := newTestServer(t)
	hold := make(chan struct{})
	const hosts = 40
	var names []string
	for i := range hosts {
		name := fmt.Sprintf("h%d.site%d.example", i, i%7)
		names = append(names, name)
		srv.set(name, zone{a: []string{fmt.Sprintf("192.0.2.%d", i+1)}, ttl: 300, hold: hold})
	}
	o := testOptions(srv, newFakeClock())
	o.MaxWorkers, o.HostsPerWorker = 4, 8
	c := newTestCache(t, o)

	c.Prefetch(names...)
	// M = ceil(40/8) = 5 capped at 4: four names answered at once, no more.
	waitFor(t, "workers busy", func() bool { return srv.activeNames() == 4 })
	if v := c.View(0); v.Workers != 4 || v.Backlog != hosts {
		t.Fatalf("workers %d backlog %d, want 4 and %d", v.Workers, v.Backlog, hosts)
	}
	close(hold)
	waitFor(t, "prefetch done", func() bool { v := c.View(0); return v.Backlog == 0 && v.Workers == 0 })
	if p := srv.peakActive(); p > 4 {
		t.Fatalf("%d names resolved at once, MaxWorkers is 4", p)
	}
	before := srv.total()
	s := c.Stats()
	if s.Prefetched != hosts || s.Lookups != 0 {
		t.Fatalf("stats %+v, want %d prefetched and no lookups yet", s, hosts)
	}

	for i, name := range names {
		mustAddrs(t, c, name, fmt.Sprintf("192.0.2.%d", i+1))
	}
	s = c.Stats()
	if srv.total() != before || s.Misses != 0 || s.PositiveHits != hosts {
		t.Fatalf("after prefetch: %d new queries, stats %+v; want every lookup a hit", srv.total()-before, s)
	}
	if s.WaitP99Ms != 0 || s.ZeroWaitShare != 1 {
		t.Fatalf("wait p99 %.3f ms, zero-wait share %.3f: want no wait at all", s.WaitP99Ms, s.ZeroWaitShare)
	}
	// Prefetching hosts already fresh in cache asks nothing.
	c.Prefetch(names...)
	if v := c.View(0); v.Backlog != 0 || srv.total() != before {
		t.Fatalf("re-prefetch of fresh hosts: backlog %d, %d new queries", v.Backlog, srv.total()-before)
	}
}

func TestPrefetchPoolSize(t *testing.T) {
	cases := []struct {
		hosts, perWorker, max, want int
	}{
		{1, 8, 64, 1},
		{9, 8, 64, 2},
		{64, 8, 64, 8},
		{1000, 8, 16, 16},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("N=%d", tc.hosts), func(t *testing.T) {
			srv := newTestServer(t)
			hold := make(chan struct{})
			var names []string
			for i := range tc.hosts {
				name := fmt.Sprintf("h%d.example", i)
				names = append(names, name)
				srv.set(name, zone{a: []string{"192.0.2.1"}, ttl: 300, hold: hold})
			}
			o := testOptions(srv, newFakeClock())
			o.MaxWorkers, o.HostsPerWorker = tc.max, tc.perWorker
			c := newTestCache(t, o)
			c.Prefetch(names...)
			if w := c.View(0).Workers; w != tc.want {
				t.Fatalf("%d workers for %d hosts, want %d", w, tc.hosts, tc.want)
			}
			close(hold)
			waitFor(t, "prefetch done", func() bool { return c.View(0).Backlog == 0 })
			if s := c.Stats(); s.Prefetched != int64(tc.hosts) {
				t.Fatalf("prefetched %d of %d", s.Prefetched, tc.hosts)
			}
		})
	}
}

func TestFetchJoinsPrefetchInFlight(t *testing.T) {
	srv := newTestServer(t)
	hold := make(chan struct{})
	srv.set("www.example.com", zone{a: []string{"192.0.2.42"}, ttl: 300, hold: hold})
	c := newTestCache(t, testOptions(srv, newFakeClock()))
	c.Prefetch("www.example.com")
	waitFor(t, "prefetch in flight", func() bool { return srv.activeNames() == 1 })
	done := make(chan error, 1)
	go func() { _, err := c.LookupAddrs(context.Background(), "www.example.com"); done <- err }()
	waitFor(t, "fetch waiting", func() bool { return c.Stats().Misses == 1 })
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := srv.queries("www.example.com", dns.TypeA); n != 1 {
		t.Fatalf("%d A queries, want 1 shared by prefetch and fetch", n)
	}
}

func TestNearExpiryRefreshedOnlyIfStillNeeded(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("queued.example.com", zone{a: []string{"192.0.2.51"}, ttl: 100})
	srv.set("done.example.com", zone{a: []string{"192.0.2.52"}, ttl: 100})
	o := testOptions(srv, clock)
	o.RefreshAhead = 0.1 // the last 10 s of a 100 s TTL
	o.SweepEvery = time.Second
	var asked sync.Map
	o.StillNeeded = func(host string) bool {
		asked.Store(host, true)
		return host == "queued.example.com"
	}
	c := newTestCache(t, o)
	c.Prefetch("queued.example.com", "done.example.com")
	waitFor(t, "prefetch done", func() bool { return c.View(0).Backlog == 0 && c.Stats().Prefetched == 2 })

	clock.Add(80 * time.Second) // not near expiry yet: nothing refreshed
	c.Prefetch()
	if _, ok := asked.Load("queued.example.com"); ok {
		t.Fatalf("StillNeeded asked about an entry far from expiry")
	}
	clock.Add(12 * time.Second) // 8 s left
	c.Prefetch()
	waitFor(t, "refresh of the needed host", func() bool { return srv.queries("queued.example.com", dns.TypeA) == 2 })
	waitFor(t, "refresh done", func() bool { return c.View(0).Backlog == 0 })
	if _, ok := asked.Load("done.example.com"); !ok {
		t.Fatalf("StillNeeded never asked about done.example.com")
	}
	if n := srv.queries("done.example.com", dns.TypeA); n != 1 {
		t.Fatalf("host with no queued URLs refreshed (%d queries)", n)
	}

	clock.Add(10 * time.Second) // both original answers expired
	before := c.Stats()
	mustAddrs(t, c, "queued.example.com", "192.0.2.51")
	if s := c.Stats(); s.Misses != before.Misses || s.PositiveHits != before.PositiveHits+1 {
		t.Fatalf("refreshed host was not a hit: %+v", s)
	}
	mustAddrs(t, c, "done.example.com", "192.0.2.52")
	if s := c.Stats(); s.Misses != before.Misses+1 {
		t.Fatalf("unrefreshed host should have been a miss: %+v", s)
	}
}

func TestPrefetchIgnoresJunkAndCachedFailures(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("broken.example.com", zone{rcode: dns.RcodeServerFailure})
	c := newTestCache(t, testOptions(srv, clock))
	lookup(t, c, "broken.example.com")
	c.Prefetch("", "10.0.0.1", "[::1]", "a..b", "broken.example.com", "BROKEN.example.com.")
	if v := c.View(0); v.Backlog != 0 || srv.total() != 2 {
		t.Fatalf("backlog %d, %d queries: nothing here is worth resolving now", v.Backlog, srv.total())
	}
}

func TestCloseStopsWorkAndKeepsCache(t *testing.T) {
	srv := newTestServer(t)
	hold := make(chan struct{})
	srv.set("cached.example.com", zone{a: []string{"192.0.2.60"}, ttl: 300})
	srv.set("stuck.example.com", zone{a: []string{"192.0.2.61"}, ttl: 300, hold: hold})
	defer close(hold)
	c, err := New(testOptions(srv, newFakeClock()))
	if err != nil {
		t.Fatal(err)
	}
	mustAddrs(t, c, "cached.example.com", "192.0.2.60")
	var names []string
	for i := range 50 {
		names = append(names, fmt.Sprintf("q%d.example.com", i))
	}
	c.Prefetch(append(names, "stuck.example.com")...)
	waiting := make(chan error, 1)
	go func() {
		_, err := c.LookupAddrs(context.Background(), "stuck.example.com")
		waiting <- err
	}()
	waitFor(t, "lookup waiting on the stuck name", func() bool { return c.Stats().Misses == 2 })

	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(90 * time.Second):
		t.Fatal("Close did not return while upstream hung")
	}
	if err := <-waiting; err == nil {
		t.Fatalf("lookup in flight at Close succeeded without an answer")
	}
	c.Close()
	mustAddrs(t, c, "cached.example.com", "192.0.2.60")
	if _, err := c.LookupAddrs(context.Background(), "new.example.com"); err != ErrClosed {
		t.Fatalf("lookup needing upstream after Close: %v, want ErrClosed", err)
	}
	c.Prefetch("other.example.com") // must not panic or start anything
}
