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
