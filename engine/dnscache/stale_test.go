package dnscache

import (
	"testing"
	"time"

	"github.com/miekg/dns"
)

func TestServeStaleWhenUpstreamFails(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("news.example.com", zone{a: []string{"192.0.2.20"}, ttl: 60})
	o := testOptions(srv, clock)
	o.StaleFor, o.StaleRetry = 24*time.Hour, 30*time.Second
	c := newTestCache(t, o)
	q := func() int { return srv.queries("news.example.com", dns.TypeA) }

	mustAddrs(t, c, "news.example.com", "192.0.2.20")
	srv.set("news.example.com", zone{rcode: dns.RcodeServerFailure})
	clock.Add(61 * time.Second)

	// First lookup after expiry asks upstream, which fails: the stale answer is used.
	mustAddrs(t, c, "news.example.com", "192.0.2.20")
	if q() != 2 || c.Stats().StaleServed != 1 {
		t.Fatalf("queries %d, stale served %d: want 2 and 1", q(), c.Stats().StaleServed)
	}
	// Inside the 30 s recheck timer: stale at once, nothing sent upstream.
	for _, step := range []time.Duration{0, 10 * time.Second, 19 * time.Second} {
		clock.Add(step)
		mustAddrs(t, c, "news.example.com", "192.0.2.20")
	}
	if q() != 2 {
		t.Fatalf("%d queries inside the recheck timer, want 2", q())
	}
	// After it: still stale at once, and one retry in the background.
	clock.Add(2 * time.Second)
	for range 5 {
		mustAddrs(t, c, "news.example.com", "192.0.2.20")
	}
	waitFor(t, "background retry", func() bool { return q() == 3 })
	waitFor(t, "retry to finish", func() bool { return c.View(0).InFlight == 0 })
	if s := c.Stats(); s.ZeroWaitShare < 0.8 || s.StaleServed < 8 {
		t.Fatalf("stats %+v: stale answers must not wait for upstream", s)
	}
	// Upstream recovers: the next background retry replaces the stale answer.
	srv.set("news.example.com", zone{a: []string{"192.0.2.21"}, ttl: 60})
	clock.Add(31 * time.Second)
	mustAddrs(t, c, "news.example.com", "192.0.2.20") // stale once more, retry starts
	waitFor(t, "recovery", func() bool {
		addrs, err := lookup(t, c, "news.example.com")
		return err == nil && len(addrs) == 1 && addrs[0].String() == "192.0.2.21"
	})
	if q() != 4 {
		t.Fatalf("%d queries, want 4", q())
	}
}

func TestServeStaleLimits(t *testing.T) {
	cases := []struct {
		name      string
		then      zone          // what upstream says after the answer expired
		age       time.Duration // how long after expiry the lookup comes
		wantAddrs bool
		wantKind  string
	}{
		{"timeout within a day", zone{silent: true}, time.Hour, true, ""},
		{"servfail just under a day", zone{rcode: dns.RcodeServerFailure}, 24*time.Hour - time.Second, true, ""},
		{"servfail over a day", zone{rcode: dns.RcodeServerFailure}, 24*time.Hour + time.Second, false, KindServFail},
		{"name deleted: no stale", zone{rcode: dns.RcodeNameError, soaTTL: 60, soaMin: 60}, time.Minute, false, KindNXDomain},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTestServer(t)
			clock := newFakeClock()
			srv.set("www.example.com", zone{a: []string{"192.0.2.30"}, ttl: 60})
			o := testOptions(srv, clock)
			o.Timeout = 150 * time.Millisecond
			c := newTestCache(t, o)
			mustAddrs(t, c, "www.example.com", "192.0.2.30")
			srv.set("www.example.com", tc.then)
			clock.Add(60*time.Second + tc.age)
			addrs, err := lookup(t, c, "www.example.com")
			if kindOf(err) != tc.wantKind || (len(addrs) > 0) != tc.wantAddrs {
				t.Fatalf("got %v, %v; want addrs=%v kind %q", addrs, err, tc.wantAddrs, tc.wantKind)
			}
		})
	}
}

func TestFailedRefreshAheadKeepsLiveAnswer(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("www.example.com", zone{a: []string{"192.0.2.31"}, ttl: 100})
	o := testOptions(srv, clock)
	o.RefreshAhead = 0.2
	c := newTestCache(t, o)
	mustAddrs(t, c, "www.example.com", "192.0.2.31")
	srv.set("www.example.com", zone{rcode: dns.RcodeServerFailure})
	clock.Add(90 * time.Second) // last 20% of the TTL: a hit asks for a refresh
	mustAddrs(t, c, "www.example.com", "192.0.2.31")
	waitFor(t, "refresh-ahead attempt", func() bool { return srv.queries("www.example.com", dns.TypeA) == 2 })
	waitFor(t, "refresh to finish", func() bool { return c.View(0).Backlog == 0 })
	// The failed refresh must neither drop the live answer nor count as stale.
	mustAddrs(t, c, "www.example.com", "192.0.2.31")
	if s := c.Stats(); s.StaleServed != 0 || s.PositiveHits != 2 {
		t.Fatalf("stats %+v", s)
	}
	// Once expired, it is served stale at once, without a second failing attempt.
	clock.Add(11 * time.Second)
	mustAddrs(t, c, "www.example.com", "192.0.2.31")
	if n := srv.queries("www.example.com", dns.TypeA); n != 2 {
		t.Fatalf("%d queries, want 2 (recheck timer of the failed refresh still running)", n)
	}
}
