package dnscache

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func lookup(t *testing.T, c *Cache, host string) ([]netip.Addr, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.LookupAddrs(ctx, host)
}

func kindOf(err error) string {
	var le *LookupError
	if errors.As(err, &le) {
		return le.Kind
	}
	return ""
}

func mustAddrs(t *testing.T, c *Cache, host string, want ...string) {
	t.Helper()
	got, err := lookup(t, c, host)
	if err != nil {
		t.Fatalf("lookup %s: %v", host, err)
	}
	var gotS []string
	for _, a := range got {
		gotS = append(gotS, a.String())
	}
	if !slices.Equal(gotS, want) {
		t.Fatalf("lookup %s = %v, want %v", host, gotS, want)
	}
}

func TestTTLHonouredAndClamped(t *testing.T) {
	cases := []struct {
		name    string
		ttl     uint32
		minTTL  time.Duration
		maxTTL  time.Duration
		wantTTL time.Duration
	}{
		{"inside bounds", 600, time.Minute, time.Hour, 600 * time.Second},
		{"below min", 10, time.Minute, time.Hour, time.Minute},
		{"zero", 0, time.Minute, time.Hour, time.Minute},
		{"above max", 100000, time.Minute, time.Hour, time.Hour},
		{"scaled sandbox", 3, time.Second, 5 * time.Second, 3 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTestServer(t)
			clock := newFakeClock()
			srv.set("www.example.com", zone{a: []string{"192.0.2.10"}, ttl: tc.ttl})
			o := testOptions(srv, clock)
			o.MinTTL, o.MaxTTL = tc.minTTL, tc.maxTTL
			// The host has no queued URLs: nothing renews the answer ahead of expiry.
			o.StillNeeded = func(string) bool { return false }
			c := newTestCache(t, o)

			mustAddrs(t, c, "www.example.com", "192.0.2.10")
			clock.Add(tc.wantTTL - time.Second)
			mustAddrs(t, c, "www.example.com", "192.0.2.10")
			if n := srv.queries("www.example.com", dns.TypeA); n != 1 {
				t.Fatalf("1 s before the TTL ends: %d upstream A queries, want 1 (answer should be cached)", n)
			}
			clock.Add(2 * time.Second)
			mustAddrs(t, c, "www.example.com", "192.0.2.10")
			if n := srv.queries("www.example.com", dns.TypeA); n != 2 {
				t.Fatalf("1 s after the TTL ended: %d upstream A queries, want 2 (answer should have expired)", n)
			}
			s := c.Stats()
			if s.PositiveHits != 1 || s.Misses != 2 || s.Lookups != 3 {
				t.Fatalf("stats %+v, want 1 positive hit, 2 misses, 3 lookups", s)
			}
		})
	}
}

func TestNXDomainCachedForSOATTLThenExpires(t *testing.T) {
	cases := []struct {
		name           string
		soaTTL, soaMin uint32
		negMin, negMax time.Duration
		want           time.Duration
	}{
		{"SOA minimum smaller", 900, 120, 30 * time.Second, time.Hour, 120 * time.Second},
		{"SOA TTL smaller", 100, 900, 30 * time.Second, time.Hour, 100 * time.Second},
		{"clamped up", 5, 5, 60 * time.Second, time.Hour, 60 * time.Second},
		{"clamped down", 86400, 86400, 60 * time.Second, time.Hour, time.Hour},
		{"no SOA: least allowed", 0, 0, 45 * time.Second, time.Hour, 45 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTestServer(t)
			clock := newFakeClock()
			srv.set("gone.example.com", zone{rcode: dns.RcodeNameError, soaTTL: tc.soaTTL, soaMin: tc.soaMin})
			o := testOptions(srv, clock)
			o.NegMinTTL, o.NegMaxTTL = tc.negMin, tc.negMax
			c := newTestCache(t, o)

			_, err := lookup(t, c, "gone.example.com")
			var le *LookupError
			if !errors.As(err, &le) || le.Kind != KindNXDomain || !le.NotFound() || le.Temporary() {
				t.Fatalf("err = %v, want an nxdomain LookupError", err)
			}
			clock.Add(tc.want - time.Second)
			if _, err := lookup(t, c, "gone.example.com"); kindOf(err) != KindNXDomain {
				t.Fatalf("cached err = %v, want nxdomain", err)
			}
			if n := srv.queries("gone.example.com", dns.TypeA); n != 1 {
				t.Fatalf("inside the negative TTL: %d A queries, want 1", n)
			}
			if s := c.Stats(); s.NegativeHits != 1 {
				t.Fatalf("negative hits = %d, want 1", s.NegativeHits)
			}
			clock.Add(2 * time.Second)
			srv.set("gone.example.com", zone{a: []string{"192.0.2.7"}, ttl: 300}) // the name was created
			mustAddrs(t, c, "gone.example.com", "192.0.2.7")
			if n := srv.queries("gone.example.com", dns.TypeA); n != 2 {
				t.Fatalf("after the negative TTL: %d A queries, want 2", n)
			}
		})
	}
}

func TestNoAddressIsNegativeNotTransient(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("mx-only.example.com", zone{soaTTL: 200, soaMin: 200}) // NOERROR, no A, no AAAA
	c := newTestCache(t, testOptions(srv, clock))
	_, err := lookup(t, c, "mx-only.example.com")
	if kindOf(err) != KindNoAddress {
		t.Fatalf("err = %v, want no_address", err)
	}
	clock.Add(199 * time.Second)
	lookup(t, c, "mx-only.example.com")
	if n := srv.queries("mx-only.example.com", dns.TypeA); n != 1 {
		t.Fatalf("%d A queries inside the SOA TTL, want 1", n)
	}
}

func TestServFailIsRetriedWithBackoffNotCachedAsNXDomain(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("sick.example.com", zone{rcode: dns.RcodeServerFailure})
	o := testOptions(srv, clock)
	o.RetryBase, o.RetryMax = 10*time.Second, 10*time.Minute
	c := newTestCache(t, o)
	q := func() int { return srv.queries("sick.example.com", dns.TypeA) }

	_, err := lookup(t, c, "sick.example.com")
	var le *LookupError
	if !errors.As(err, &le) || le.Kind != KindServFail || le.NotFound() || !le.Temporary() {
		t.Fatalf("err = %v, want a temporary servfail, not a not-found", err)
	}
	// Backoff step n waits a random time in [d/2, d], d = 10 s · 2^(n-1).
	steps := []struct{ before, after time.Duration }{
		{5 * time.Second, 10 * time.Second},
		{10 * time.Second, 20 * time.Second},
		{20 * time.Second, 40 * time.Second},
	}
	for i, st := range steps {
		clock.Add(st.before - 100*time.Millisecond)
		if _, err := lookup(t, c, "sick.example.com"); kindOf(err) != KindServFail {
			t.Fatalf("step %d: err = %v, want the cached servfail", i+1, err)
		}
		if n := q(); n != i+1 {
			t.Fatalf("step %d: %d queries before d/2, want %d (still backing off)", i+1, n, i+1)
		}
		clock.Add(st.after - st.before + 200*time.Millisecond)
		if i == len(steps)-1 {
			srv.set("sick.example.com", zone{a: []string{"192.0.2.8"}, ttl: 300})
			mustAddrs(t, c, "sick.example.com", "192.0.2.8")
		} else if _, err := lookup(t, c, "sick.example.com"); kindOf(err) != KindServFail {
			t.Fatalf("step %d: err = %v, want servfail from a retry", i+1, err)
		}
		if n := q(); n != i+2 {
			t.Fatalf("step %d: %d queries after d, want %d (retried once)", i+1, n, i+2)
		}
	}
}

func TestTimeoutIsReportedAndBackedOff(t *testing.T) {
	t.Parallel() // its own server and cache; it waits on real time
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("slowpoke.example.com", zone{silent: true})
	o := testOptions(srv, clock)
	// Long enough that a loaded box's scheduling delays keep the resend (at half of
	// it) apart from the timeout.
	o.Timeout = time.Second
	c := newTestCache(t, o)

	start := time.Now()
	_, err := lookup(t, c, "slowpoke.example.com")
	var le *LookupError
	if !errors.As(err, &le) || le.Kind != KindTimeout || !le.Timeout() {
		t.Fatalf("err = %v, want a timeout LookupError", err)
	}
	if el := time.Since(start); el < o.Timeout {
		t.Fatalf("timed out after %v, before the %v per-query timeout", el, o.Timeout)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("err does not satisfy net.Error with Timeout(): %v", err)
	}
	// The next request is answered from the negative cache at once.
	if _, err := lookup(t, c, "slowpoke.example.com"); kindOf(err) != KindTimeout {
		t.Fatalf("second err = %v, want cached timeout", err)
	}
	// One A query, sent again once at half the timeout (a datagram may be lost); the
	// server may read the resend after the client gave up, so it is waited for.
	waitFor(t, "the A query's resend at the server", func() bool { return srv.queries("slowpoke.example.com", dns.TypeA) >= 2 })
	if n := srv.queries("slowpoke.example.com", dns.TypeA); n != 2 {
		t.Fatalf("%d A queries, want 2: one retransmitted (second lookup must not wait again)", n)
	}
	s := c.Stats()
	if s.NegativeHits != 1 || s.ZeroWaitShare != 0.5 {
		t.Fatalf("stats %+v: want 1 negative hit and half the lookups without wait", s)
	}
}

// closedUDPAddr is a loopback UDP address nothing listens on (the kernel answers
// with ICMP port unreachable).
func TestDroppedAAAADoesNotStallIPv4(t *testing.T) {
	srv := newTestServer(t)
	srv.set("v4only.example.com", zone{a: []string{"192.0.2.6"}, ttl: 300, silentAAAA: true})
	o := testOptions(srv, newFakeClock())
	o.Timeout = 10 * time.Second
	o.SlowThreshold = 5 * time.Second
	c := newTestCache(t, o)
	start := time.Now()
	mustAddrs(t, c, "v4only.example.com", "192.0.2.6")
	if el := time.Since(start); el >= 5*time.Second {
		t.Fatalf("lookup took %v: waited for the dropped AAAA query", el)
	}
	if v := c.View(0); v.Hosts != 1 {
		t.Fatalf("answer not filed as a fast positive one")
	}
}

func TestSlowAnswerGoesToNegativeCacheWithAddresses(t *testing.T) {
	t.Parallel() // its own server and cache; it waits on real time
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("slow.example.com", zone{a: []string{"192.0.2.5"}, ttl: 300, delay: 300 * time.Millisecond})
	o := testOptions(srv, clock)
	o.SlowThreshold = 100 * time.Millisecond
	c := newTestCache(t, o)

	mustAddrs(t, c, "slow.example.com", "192.0.2.5")
	mustAddrs(t, c, "slow.example.com", "192.0.2.5")
	if n := srv.queries("slow.example.com", dns.TypeA); n != 1 {
		t.Fatalf("%d A queries, want 1", n)
	}
	s := c.Stats()
	if s.NegativeHits != 1 || s.PositiveHits != 0 {
		t.Fatalf("stats %+v: want the second lookup served from the negative cache", s)
	}
	v := c.View(10)
	if len(v.Negative) != 1 || v.Negative[0].Reason != "slow" || v.Negative[0].Addrs != 1 || v.Negative[0].TimeLeft != 300*time.Second {
		t.Fatalf("negative entries %+v, want one slow entry with 1 address and 300s left", v.Negative)
	}
	if v.Hosts != 0 {
		t.Fatalf("slow answer also in the positive cache")
	}
}

func TestCNAMEChainAndTTL(t *testing.T) {
	// Answer by hand: www → edge (TTL 100) → 192.0.2.50 (TTL 900); the chain's TTL is 100.
	r := new(dns.Msg)
	r.SetQuestion("www.example.com.", dns.TypeA)
	r.Response = true
	r.Answer = []dns.RR{
		mustRR(t, "www.example.com. 100 IN CNAME edge.cdn.example.net."),
		mustRR(t, "edge.cdn.example.net. 900 IN A 192.0.2.50"),
		mustRR(t, "unrelated.example.org. 900 IN A 192.0.2.99"),
	}
	a := interpret(r, "www.example.com.", dns.TypeA, "test")
	if a.kind != "" || len(a.addrs) != 1 || a.addrs[0].String() != "192.0.2.50" || a.ttl != 100*time.Second {
		t.Fatalf("answer %+v, want 192.0.2.50 with TTL 100s", a)
	}
}

func mustRR(t *testing.T, s string) dns.RR {
	rr, err := dns.NewRR(s)
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

func TestBackoffStepsDoubleUpToMax(t *testing.T) {
	o := DefaultOptions()
	o.RetryBase, o.RetryMax = time.Second, 30*time.Second
	c := newTestCache(t, o)
	for n := 1; n <= 200; n++ {
		d := min(time.Second<<min(n-1, 10), 30*time.Second)
		for range 20 {
			if got := c.backoff(n); got < d/2 || got > d {
				t.Fatalf("step %d: %v outside [%v, %v]", n, got, d/2, d)
			}
		}
	}
}
