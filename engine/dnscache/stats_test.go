package dnscache

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func TestStatsJSONUsesSpecNames(t *testing.T) {
	srv := newTestServer(t)
	srv.set("www.example.com", zone{a: []string{"192.0.2.1"}, ttl: 300, delay: 20 * time.Millisecond})
	c := newTestCache(t, testOptions(srv, newFakeClock()))
	c.Prefetch("www.example.com")
	waitFor(t, "prefetch", func() bool { return c.Stats().Prefetched == 1 && c.View(0).Backlog == 0 })
	for range 3 {
		lookup(t, c, "www.example.com")
	}
	lookup(t, c, "missing.example.com")
	lookup(t, c, "missing.example.com")
	lookup(t, c, "bad..name")

	blob, err := json.Marshal(c.Stats())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(blob, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"lookups": 6, "positive_hits": 3, "negative_hits": 1, "misses": 1, "rejected": 1,
		"prefetched": 1, "upstream_queries": 2,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (json %s)", k, got[k], v, blob)
		}
	}
	p99, ok := got["wait_p99_ms"].(float64)
	if !ok || p99 <= 0 {
		t.Errorf("wait_p99_ms = %v, want the miss's wait (> 0)", got["wait_p99_ms"])
	}
	if got["zero_wait_share"] != 5.0/6 {
		t.Errorf("zero_wait_share = %v, want 5/6", got["zero_wait_share"])
	}
	if _, ok := got["wait_histogram"].([]any); !ok {
		t.Errorf("wait_histogram missing: %s", blob)
	}
}

func TestWaitQuantilesFromHistogram(t *testing.T) {
	cases := []struct {
		name     string
		zeros    int
		waits    []time.Duration
		q        float64
		atLeast  time.Duration
		atMost   time.Duration
		wantZero bool
	}{
		{"all from cache", 100, nil, 0.99, 0, 0, true},
		{"one slow wait in 100 stays under p99", 99, []time.Duration{80 * time.Millisecond}, 0.99, 0, 0, true},
		{"two slow waits in 100 show at p99", 98, []time.Duration{80 * time.Millisecond, 80 * time.Millisecond}, 0.99, 80 * time.Millisecond, 96 * time.Millisecond, false},
		{"median of mixed waits", 0, []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}, 0.5, 2 * time.Millisecond, 2400 * time.Microsecond, false},
		{"beyond the last bucket", 0, []time.Duration{10 * time.Minute}, 0.99, time.Minute, 3 * time.Minute, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var h latencyHist
			for range tc.zeros {
				h.observe(0)
			}
			for _, w := range tc.waits {
				h.observe(w)
			}
			got := h.snapshot().quantile(tc.q)
			if tc.wantZero != (got == 0) || (!tc.wantZero && (got < tc.atLeast || got > tc.atMost)) {
				t.Fatalf("q%.2f = %v, want zero=%v in [%v, %v]", tc.q, got, tc.wantZero, tc.atLeast, tc.atMost)
			}
		})
	}
}

func TestViewForTheConsole(t *testing.T) {
	t.Parallel() // its own server and cache; it waits on real time
	srv := newTestServer(t)
	clock := newFakeClock()
	srv.set("a.slow.example", zone{a: []string{"192.0.2.1"}, ttl: 300, delay: 120 * time.Millisecond})
	srv.set("b.slow.example", zone{a: []string{"192.0.2.2"}, ttl: 300, delay: 120 * time.Millisecond})
	srv.set("www.fast.example", zone{a: []string{"192.0.2.3"}, ttl: 300})
	srv.set("bad.fast.example", zone{rcode: dns.RcodeServerFailure})
	o := testOptions(srv, clock)
	o.RetryBase, o.RetryMax = 20*time.Second, time.Minute
	c := newTestCache(t, o)
	for _, h := range []string{"a.slow.example", "b.slow.example", "www.fast.example", "bad.fast.example", "www.fast.example"} {
		lookup(t, c, h)
	}
	clock.Add(5 * time.Second)

	v := c.View(1)
	if v.Hosts != 3 || v.Domains != 2 || v.NegativeCount != 1 {
		t.Fatalf("hosts %d domains %d negative %d", v.Hosts, v.Domains, v.NegativeCount)
	}
	if v.PositiveRate != 0.2 || v.MissRate != 0.8 || v.NegativeRate != 0 {
		t.Fatalf("rates %.2f/%.2f/%.2f, want 0.2/0/0.8", v.PositiveRate, v.NegativeRate, v.MissRate)
	}
	if len(v.Slowest) != 1 || v.Slowest[0].Domain != "slow.example" || v.Slowest[0].Hosts != 2 || v.Slowest[0].MeanMs < 120 {
		t.Fatalf("slowest %+v, want slow.example with 2 hosts ≥ 120 ms", v.Slowest)
	}
	if len(v.Negative) != 1 {
		t.Fatalf("negative %+v", v.Negative)
	}
	n := v.Negative[0]
	if n.Host != "bad.fast.example" || n.Reason != KindServFail || n.TimeLeft < 5*time.Second || n.TimeLeft > 15*time.Second {
		t.Fatalf("negative entry %+v, want servfail with 5..15 s left of a 10..20 s backoff", n)
	}
	if v.UpstreamP99Ms < 120 || v.UpstreamP50Ms <= 0 {
		t.Fatalf("upstream p50 %.1f p99 %.1f ms", v.UpstreamP50Ms, v.UpstreamP99Ms)
	}
	if _, err := json.Marshal(v); err != nil {
		t.Fatal(err)
	}
	if v0 := c.View(0); v0.Slowest != nil || v0.Negative != nil {
		t.Fatalf("View(0) listed entries")
	}
}
