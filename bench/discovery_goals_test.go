package main

import (
	"math"
	"testing"
)

// The bisection finds the least share that matches to within its tolerance, in at
// most its steps, and looks above the full budget when ours misses there.
func TestDiscoveryShare(t *testing.T) {
	for _, threshold := range []float64{0.07, 0.33, 0.62, 0.7, 0.99, 1.0, 1.4, 1.97} {
		calls := 0
		meets := func(share float64) bool {
			calls++
			return share >= threshold
		}
		got := discoveryShare(threshold <= 1, meets)
		tol := discBisectTolerance
		if threshold > 1 {
			tol = (discBisectShareAboveFull - 1) / 16 // one run went to the probe above the full budget
		}
		if got < threshold || got > threshold+tol {
			t.Errorf("threshold %.2f: share %.3f, want within %.4f above it", threshold, got, tol)
		}
		if calls > discBisectSteps {
			t.Errorf("threshold %.2f: %d runs, want at most %d", threshold, calls, discBisectSteps)
		}
	}
	if got := discoveryShare(false, func(float64) bool { return false }); !math.IsInf(got, 1) {
		t.Errorf("never matched: share %v, want +Inf", got)
	}
}

// The simulation's bisection runs ours at each share it tries and compares that
// run's p95 with fixed_poller's: a crawl whose p95 grows as its share shrinks is
// found at the share where it crosses, each step recorded.
func TestDiscoverySimShare(t *testing.T) {
	const fixedP95 = 3000.0
	ran := 0
	run := func(share float64) *discResult {
		ran++
		// p95 2,000 s at the whole budget, rising as 1/share: crosses at 2/3.
		return &discResult{latencies: []float64{2000 / share}, fetches: int(100 * share)}
	}
	share, steps := discoverySimShare(run(1), fixedP95, 100, 1, run)
	if share < 2.0/3 || share > 2.0/3+discBisectTolerance {
		t.Errorf("share %.3f, want within %.2f above 0.667", share, discBisectTolerance)
	}
	if len(steps) != ran {
		t.Errorf("%d steps recorded for %d runs", len(steps), ran)
	}
	if steps[0]["share"] != 1.0 || steps[0]["matches"] != true {
		t.Errorf("first step %v, want the whole budget, matching", steps[0])
	}
}
