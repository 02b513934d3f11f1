package view

import (
	"testing"
	"time"
)

func TestWorkersNeeded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		s    Sizing
		want int
	}{
		{"unknown pages", Sizing{AccessTime: time.Second, ExpectTime: time.Hour, LanesPerWorker: 8}, 0},
		{"unknown access time", Sizing{RoundPages: 100, ExpectTime: time.Hour, LanesPerWorker: 8}, 0},
		// 72,000 pages × 4 s ÷ (1 h × 8 lanes) = 10 workers
		{"no VPN cost", Sizing{RoundPages: 72000, AccessTime: 4 * time.Second, ExpectTime: time.Hour, LanesPerWorker: 8}, 10},
		// + a 20 s connect every 100 pages: 0.2 s a page more → 4.2 s: 10.5 → 11
		{"VPN connects", Sizing{RoundPages: 72000, AccessTime: 4 * time.Second, VPNConnect: 20 * time.Second, PagesPerIP: 100,
			ExpectTime: time.Hour, LanesPerWorker: 8}, 11},
		{"at least one", Sizing{RoundPages: 1, AccessTime: time.Second, ExpectTime: time.Hour, LanesPerWorker: 8}, 1},
	}
	for _, c := range cases {
		if got := c.s.WorkersNeeded(); got != c.want {
			t.Errorf("%s: %d workers, want %d", c.name, got, c.want)
		}
	}
}
