package dnscache

import (
	"encoding/json"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/crawlconsole/crawlconsole/engine/internal/testclock"
)

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel() // its own server and cache; it waits on real time
	srv := newTestServer(t)
	srv.set("long.example.com", zone{a: []string{"192.0.2.70"}, aaaa: []string{"2001:db8::70"}, ttl: 300})
	srv.set("short.example.com", zone{a: []string{"192.0.2.71"}, ttl: 100})
	srv.set("gone.example.com", zone{rcode: dns.RcodeNameError, soaTTL: 600, soaMin: 600})
	srv.set("sick.example.com", zone{rcode: dns.RcodeServerFailure})
	srv.set("slow.example.com", zone{a: []string{"192.0.2.72"}, ttl: 1000, delay: 300 * time.Millisecond})

	clock := newFakeClock()
	o := testOptions(srv, clock)
	o.SlowThreshold = 150 * time.Millisecond
	first := newTestCache(t, o)
	for _, h := range []string{"long", "short", "gone", "sick", "slow"} {
		lookup(t, first, h+".example.com")
	}
	clock.Add(150 * time.Second) // short.example.com (TTL 100 s) has expired
	saved := first.Export()
	if got := hostsOf(saved); !slices.Equal(got, []string{"gone.example.com", "long.example.com", "slow.example.com"}) {
		t.Fatalf("exported %v: want only entries inside their TTL, no transient failure", got)
	}
	blob, err := json.Marshal(saved) // the engine keeps them as JSON in the store's meta table
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name      string
		restartIn time.Duration // time between export and the restarted crawl
		want      []string      // hosts answered without upstream
	}{
		{"restart at once", 0, []string{"gone.example.com", "long.example.com", "slow.example.com"}},
		{"restart after 200 s", 200 * time.Second, []string{"gone.example.com", "slow.example.com"}},
		{"restart after a day", 24 * time.Hour, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var entries []Entry
			if err := json.Unmarshal(blob, &entries); err != nil {
				t.Fatal(err)
			}
			later := testclock.New(clock.Now().Add(tc.restartIn))
			o := testOptions(srv, later)
			o.SlowThreshold = 150 * time.Millisecond
			c := newTestCache(t, o)
			c.Import(entries)
			if got := hostsOf(c.Export()); !slices.Equal(got, tc.want) {
				t.Fatalf("imported %v, want %v", got, tc.want)
			}
			before := srv.total()
			for _, h := range tc.want {
				addrs, err := lookup(t, c, h)
				if h == "gone.example.com" {
					if kindOf(err) != KindNXDomain {
						t.Fatalf("%s: %v, want cached nxdomain", h, err)
					}
				} else if err != nil || len(addrs) == 0 {
					t.Fatalf("%s: %v %v", h, addrs, err)
				}
			}
			if srv.total() != before {
				t.Fatalf("%d upstream queries for imported hosts", srv.total()-before)
			}
			if s := c.Stats(); s.Misses != 0 || s.Lookups != int64(len(tc.want)) {
				t.Fatalf("stats %+v", s)
			}
		})
	}

	t.Run("remaining TTL kept", func(t *testing.T) {
		c := newTestCache(t, testOptions(srv, testclock.New(clock.Now())))
		c.Import(saved)
		for _, e := range c.Export() {
			if e.Host == "long.example.com" {
				if !e.Expires.Equal(clock.Now().Add(150*time.Second)) || len(e.Addrs) != 2 {
					t.Fatalf("long.example.com re-exported as %+v", e)
				}
			}
		}
	})
}

func TestImportSkipsJunk(t *testing.T) {
	srv := newTestServer(t)
	clock := newFakeClock()
	c := newTestCache(t, testOptions(srv, clock))
	exp := clock.Now().Add(time.Hour)
	ip := []netip.Addr{netip.MustParseAddr("192.0.2.80")}
	c.Import([]Entry{
		{Host: "ok.example.com", Addrs: ip, Expires: exp, TTL: time.Hour},
		{Host: "no-addrs.example.com", Expires: exp},
		{Host: "bad..name", Addrs: ip, Expires: exp},
		{Host: "past.example.com", Addrs: ip, Expires: clock.Now().Add(-time.Second)},
		{Host: "weird.example.com", Addrs: ip, Expires: exp, Reason: "servfail"},
		{Host: "Mixed.Example.COM.", Addrs: ip, Expires: exp, TTL: time.Hour},
	})
	if got := exported(c); !slices.Equal(got, []string{"mixed.example.com", "ok.example.com"}) {
		t.Fatalf("imported %v", got)
	}
}

func TestFlush(t *testing.T) {
	srv := newTestServer(t)
	for _, h := range []string{"a.example.com", "b.example.com", "c.other.org", "example.com"} {
		srv.set(h, zone{a: []string{"192.0.2.90"}, ttl: 300})
	}
	c := newTestCache(t, testOptions(srv, newFakeClock()))
	for _, h := range []string{"a.example.com", "b.example.com", "c.other.org", "example.com", "nx.example.com", "nx.other.org"} {
		lookup(t, c, h)
	}
	steps := []struct {
		domain    string
		dropped   int
		remaining []string
	}{
		{"b.example.com", 1, []string{"a.example.com", "c.other.org", "example.com", "nx.example.com", "nx.other.org"}},
		{"EXAMPLE.com.", 3, []string{"c.other.org", "nx.other.org"}},
		{"unknown.net", 0, []string{"c.other.org", "nx.other.org"}},
		{"", 2, nil},
	}
	for _, st := range steps {
		if n := c.Flush(st.domain); n != st.dropped {
			t.Fatalf("Flush(%q) = %d, want %d", st.domain, n, st.dropped)
		}
		if got := exported(c); !slices.Equal(got, st.remaining) {
			t.Fatalf("after Flush(%q): %v, want %v", st.domain, got, st.remaining)
		}
	}
	before := srv.total()
	lookup(t, c, "a.example.com")
	if srv.total() == before {
		t.Fatalf("flushed host answered without upstream")
	}
}

func hostsOf(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Host)
	}
	return out
}
