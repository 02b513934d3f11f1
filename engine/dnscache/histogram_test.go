package dnscache

import (
	"math"
	"testing"
	"time"
)

// TestCumulative: the fetch-path wait histogram as /metrics exports it — one bound per
// doubling, each count exact (bounds are edges of the fine buckets), cumulative, with
// the true sum; a wait past the last bound counts only in the total (+Inf).
func TestCumulative(t *testing.T) {
	var h latencyHist
	waits := []time.Duration{0, 0, 1500 * time.Nanosecond, 2 * time.Microsecond, 3 * time.Millisecond, 200 * time.Second}
	var sum time.Duration
	for _, d := range waits {
		h.observe(d)
		sum += d
	}
	c := h.cumulative()
	if c.Count != uint64(len(waits)) || math.Abs(c.Sum-sum.Seconds()) > 1e-9 {
		t.Fatalf("count %d sum %v, want %d and %v", c.Count, c.Sum, len(waits), sum.Seconds())
	}
	cases := []struct {
		le   float64
		want uint64
	}{
		{0, 2}, {1e-6, 2}, {2e-6, 4}, {4e-6, 4}, {0.002048, 4}, {0.004096, 5}, {67.108864, 5},
	}
	for _, tc := range cases {
		got, ok := c.Buckets[tc.le]
		if !ok || got != tc.want {
			t.Errorf("bucket le=%v: %d (present %v), want %d", tc.le, got, ok, tc.want)
		}
	}
	if _, ok := c.Buckets[134.217728]; ok || len(c.Buckets) != 28 { // 0, then 1 µs · 2^0..2^26
		t.Errorf("%d bounds (134 s present: %v), want 28: the open last bucket has no bound", len(c.Buckets), ok)
	}
}
