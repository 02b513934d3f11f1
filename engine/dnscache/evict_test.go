package dnscache

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// exported lists the hosts an Export holds, sorted.
func exported(c *Cache) []string {
	var hosts []string
	for _, e := range c.Export() {
		hosts = append(hosts, e.Host)
	}
	return hosts
}

func TestPerDomainCapDropsHostsOlderThanMedian(t *testing.T) {
	type step struct {
		host string
		gap  time.Duration // clock advance before the lookup
	}
	cases := []struct {
		name  string
		cap   int
		steps []step
		want  []string
	}{
		{
			name: "re-accessed host survives",
			cap:  4,
			// last access: h2=1 h3=2 h4=3 h1=4 h5=5 → median 3 → h2, h3 dropped
			steps: []step{{"h1", 0}, {"h2", time.Second}, {"h3", time.Second}, {"h4", time.Second}, {"h1", time.Second}, {"h5", time.Second}},
			want:  []string{"h1", "h4", "h5"},
		},
		{
			name:  "cap of one keeps the newest",
			cap:   1,
			steps: []step{{"h1", 0}, {"h2", time.Second}},
			want:  []string{"h2"},
		},
		{
			name:  "under the cap nothing is dropped",
			cap:   3,
			steps: []step{{"h1", 0}, {"h2", time.Second}, {"h3", time.Second}},
			want:  []string{"h1", "h2", "h3"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTestServer(t)
			clock := newFakeClock()
			for _, h := range []string{"h1", "h2", "h3", "h4", "h5"} {
				srv.set(h+".example.com", zone{a: []string{"192.0.2.1"}, ttl: 3600})
			}
			srv.set("x1.other.org", zone{a: []string{"192.0.2.2"}, ttl: 3600})
			o := testOptions(srv, clock)
			o.PerDomainCap = tc.cap
			c := newTestCache(t, o)
			mustAddrs(t, c, "x1.other.org", "192.0.2.2") // oldest of all, other domain
			for _, st := range tc.steps {
				clock.Add(st.gap)
				mustAddrs(t, c, st.host+".example.com", "192.0.2.1")
			}
			var want []string
			for _, h := range tc.want {
				want = append(want, h+".example.com")
			}
			want = append(want, "x1.other.org")
			if got := exported(c); !slices.Equal(got, want) {
				t.Fatalf("cached %v, want %v", got, want)
			}
		})
	}
}

func TestPerDomainCapWithTiedAccessTimes(t *testing.T) {
	srv := newTestServer(t)
	o := testOptions(srv, newFakeClock())
	o.PerDomainCap = 2
	c := newTestCache(t, o)
	exp := o.Now().Add(time.Hour)
	var in []Entry
	for i := range 5 {
		in = append(in, Entry{Host: fmt.Sprintf("h%d.example.com", i), Addrs: []netip.Addr{netip.MustParseAddr("192.0.2.1")}, Expires: exp, TTL: time.Hour})
	}
	c.Import(in) // all imported at the same instant: the median rule alone drops nothing
	got := exported(c)
	if len(got) != 2 || !slices.Contains(got, "h4.example.com") {
		t.Fatalf("cached %v, want 2 hosts including the last stored", got)
	}
}

func TestGlobalCap(t *testing.T) {
	cases := []struct {
		name    string
		shortAt int // index of a host with a short TTL (expired when the cap hits), -1 none
		want    []int
	}{
		// 11 hosts under a cap of 10: down to 9, least recently used first (d0 was re-read).
		{"least recently used go", -1, []int{0, 3, 4, 5, 6, 7, 8, 9, 10}},
		// An expired answer goes before any live one.
		{"expired first", 5, []int{0, 2, 3, 4, 6, 7, 8, 9, 10}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTestServer(t)
			clock := newFakeClock()
			o := testOptions(srv, clock)
			o.GlobalCap, o.PerDomainCap = 10, 1000
			o.MinTTL = time.Second
			c := newTestCache(t, o)
			host := func(i int) string { return fmt.Sprintf("www.d%d.example", i) }
			for i := range 11 {
				ttl := uint32(3600)
				if i == tc.shortAt {
					ttl = 3
				}
				srv.set(host(i), zone{a: []string{"192.0.2.1"}, ttl: ttl})
			}
			for i := range 10 {
				clock.Add(time.Second)
				mustAddrs(t, c, host(i), "192.0.2.1")
			}
			clock.Add(time.Second)
			mustAddrs(t, c, host(0), "192.0.2.1") // d0 is in use again
			clock.Add(time.Second)
			mustAddrs(t, c, host(10), "192.0.2.1")
			var want []string
			for _, i := range tc.want {
				want = append(want, host(i))
			}
			slices.Sort(want)
			if got := exported(c); !slices.Equal(got, want) {
				t.Fatalf("cached %v\nwant %v", got, want)
			}
			if v := c.View(0); v.Hosts != 9 || c.Stats().Evicted != 2 {
				t.Fatalf("hosts %d evicted %d, want 9 and 2", v.Hosts, c.Stats().Evicted)
			}
		})
	}
}

func TestLowWeightStaleNegativeEntriesEvicted(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("f1.example.com", zone{rcode: dns.RcodeServerFailure})
	srv.set("f2.example.com", zone{rcode: dns.RcodeServerFailure})
	srv.set("n1.example.com", zone{rcode: dns.RcodeNameError, soaTTL: 3600, soaMin: 3600})
	o := testOptions(srv, clock)
	o.RetryBase, o.RetryMax = 10*time.Second, 10*time.Second
	o.NegHalfLife, o.NegEvictWeight = time.Minute, 0.25
	o.SweepEvery = time.Second
	c := newTestCache(t, o)
	for _, h := range []string{"f1", "f2", "n1"} {
		lookup(t, c, h+".example.com")
	}
	clock.Add(60 * time.Second) // f2 is asked for again: retried, fails again
	if _, err := lookup(t, c, "f2.example.com"); kindOf(err) != KindServFail {
		t.Fatalf("f2: %v", err)
	}
	// f1 idle 2.2 half-lives, expired: weight ≈ 2^-2.2 ≈ 0.22 < 0.25. f2 idle 1.2
	// half-lives: ≈ 0.44. n1 idle as long as f1 but still inside its TTL.
	clock.Add(72 * time.Second)
	c.Prefetch() // any call runs the due sweep
	v := c.View(10)
	got := map[string]NegativeEntry{}
	for _, e := range v.Negative {
		got[e.Host] = e
	}
	if _, ok := got["f1.example.com"]; ok || len(got) != 2 {
		t.Fatalf("negative entries %+v: want f1 evicted, f2 and n1 kept", v.Negative)
	}
	if e := got["f2.example.com"]; e.Failures != 2 || e.Reason != KindServFail || e.TimeLeft != 0 {
		t.Fatalf("f2 entry %+v: want 2 failures, servfail, due for retry", e)
	}
	if e := got["n1.example.com"]; e.Reason != KindNXDomain || e.TimeLeft != 3600*time.Second-132*time.Second {
		t.Fatalf("n1 entry %+v", e)
	}
	// f1's backoff memory went with it: its next failure is step 1 again.
	lookup(t, c, "f1.example.com")
	for _, e := range c.View(10).Negative {
		if e.Host == "f1.example.com" && e.Failures != 1 {
			t.Fatalf("f1 after eviction: %+v", e)
		}
	}
}

func TestNegativeCapDropsLightestEntries(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	o := testOptions(srv, clock)
	o.NegativeCap = 10
	c := newTestCache(t, o)
	for i := range 11 { // unknown names: NXDOMAIN with a 300 s SOA
		clock.Add(10 * time.Second)
		lookup(t, c, fmt.Sprintf("missing%d.example.com", i))
	}
	v := c.View(100)
	var hosts []string
	for _, e := range v.Negative {
		hosts = append(hosts, e.Host)
	}
	if v.NegativeCount != 9 || slices.Contains(hosts, "missing0.example.com") || slices.Contains(hosts, "missing1.example.com") {
		t.Fatalf("%d entries %v: want 9, the two oldest dropped", v.NegativeCount, hosts)
	}
}
