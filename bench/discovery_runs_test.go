package main

import "testing"

// -runs takes the median of each run's figures and judges the goals on it: one
// run of three that misses the p95 goal does not fail a median that meets it, and
// one lucky run does not pass a median that misses.
func TestDiscoveryRepeatMedian(t *testing.T) {
	ratios := []float64{0.814, 0.743, 0.79}
	i := 0
	out, err := discoveryRepeat(3, func() (map[string]any, error) {
		r := ratios[i]
		i++
		return map[string]any{
			"latency_p95_s":                    map[string]any{"ours": 1000 * r, "fixed_poller": 1000.0, "entry_only": 4000.0},
			"found_share":                      map[string]any{"ours": 1.0},
			"fetches_per_hour_ours_over_fixed": 0.99,
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	med := out["median"].(map[string]float64)
	if got := med["p95_ours_over_fixed_poller"]; got != 0.79 {
		t.Errorf("median p95 ratio of 0.814, 0.743, 0.79: %v, want 0.79", got)
	}
	if got := med["latency_p95_s_ours"]; got != 790 {
		t.Errorf("median ours p95: %v, want 790", got)
	}
	if n := len(out["runs"].([]any)); n != 3 {
		t.Errorf("%d runs reported, want 3", n)
	}
	if ok := out["median_goals"].(map[string]any)["p95_vs_fixed_poller"]; ok != true {
		t.Errorf("median 0.79 <= 0.8: goal %v, want met", ok)
	}

	ratios, i = []float64{0.82, 0.75, 0.85}, 0
	out, _ = discoveryRepeat(3, func() (map[string]any, error) {
		r := ratios[i]
		i++
		return map[string]any{"latency_p95_s": map[string]any{"ours": 1000 * r, "fixed_poller": 1000.0, "entry_only": 4000.0}}, nil
	})
	if ok := out["median_goals"].(map[string]any)["p95_vs_fixed_poller"]; ok != false {
		t.Errorf("median 0.82 > 0.8 (one run at 0.75): goal %v, want not met", ok)
	}
}
