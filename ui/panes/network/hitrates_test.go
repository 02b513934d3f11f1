package network

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

func TestHitHistory(t *testing.T) {
	view := func(sec int, lookups, pos, neg, miss int64) *view.DNSView {
		return &view.DNSView{At: fake.Epoch.Add(time.Duration(sec) * time.Second),
			Stats: dnscache.Stats{Lookups: lookups, PositiveHits: pos, NegativeHits: neg, Misses: miss}}
	}
	t.Run("deltas between views", func(t *testing.T) {
		h := hitHistory{capacity: 10}
		h.add(view(0, 100, 90, 5, 5))
		h.add(view(1, 200, 180, 5, 15)) // 100 lookups: 90 hits, 10 misses
		h.add(view(1, 999, 999, 0, 0))  // same time: skipped
		h.add(view(2, 200, 180, 5, 15)) // idle second
		h.add(view(3, 300, 230, 25, 45))
		pos := h.series(ratePositive)
		if len(pos) != 3 || pos[0] != 0.9 || !math.IsNaN(pos[1]) || pos[2] != 0.5 {
			t.Fatalf("positive series = %v, want [0.9 NaN 0.5]", pos)
		}
		if got, ok := h.recent(rateMiss, 10*time.Second); !ok || got != 40.0/200 {
			t.Fatalf("recent miss share = %v %v, want 0.2", got, ok)
		}
		if got, ok := h.recent(rateNegative, 1500*time.Millisecond); !ok || got != 0.2 {
			t.Fatalf("recent negative share over the newest interval = %v %v, want 0.2", got, ok)
		}
	})
	t.Run("counters going back start again", func(t *testing.T) {
		h := hitHistory{capacity: 10}
		h.add(view(0, 100, 100, 0, 0))
		h.add(view(1, 200, 200, 0, 0))
		h.add(view(2, 10, 5, 0, 5)) // a new crawl
		if n := len(h.samples); n != 0 {
			t.Fatalf("%d samples after a reset, want 0", n)
		}
		h.add(view(3, 20, 10, 0, 10))
		if s := h.series(rateMiss); len(s) != 1 || s[0] != 0.5 {
			t.Fatalf("series after reset = %v", s)
		}
	})
	t.Run("capacity keeps the newest", func(t *testing.T) {
		h := hitHistory{capacity: 3}
		for i := range 10 {
			h.add(view(i, int64(i*10), int64(i*5), 0, int64(i*5)))
		}
		if len(h.samples) != 3 || !h.samples[2].at.Equal(fake.Epoch.Add(9*time.Second)) {
			t.Fatalf("samples = %+v", h.samples)
		}
	})
	t.Run("no lookups yet", func(t *testing.T) {
		h := hitHistory{capacity: 3}
		if _, ok := h.recent(ratePositive, time.Minute); ok {
			t.Fatal("an empty history has no recent share")
		}
	})
}

func TestShareSparkline(t *testing.T) {
	tests := []struct {
		vals []float64
		w    int
		want string
	}{
		{[]float64{1, 0.94, 0.5, 0.01, 0}, 5, "█▇▄▁ "},
		{[]float64{math.NaN(), 1}, 4, "   █"},
		{[]float64{0.2, 0.4, 0.6, 0.8}, 2, "▄▆"}, // newest on the right
		{nil, 3, "   "},
		{[]float64{1}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.vals, tc.w), func(t *testing.T) {
			if got := shareSparkline(tc.vals, tc.w); got != tc.want {
				t.Fatalf("shareSparkline = %q, want %q", got, tc.want)
			}
		})
	}
}
