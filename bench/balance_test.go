package main

import (
	"encoding/json"
	"testing"
)

// A short run of the balance bench: the JSON line has the figures the bench reports, the
// default method is never above LPT, and the baselines are visibly worse.
func TestBalanceBench(t *testing.T) {
	out, err := runBalanceBench([]string{"-draws", "5", "-workers", "3,8", "-heavier", "2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(out); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for _, k := range []string{"makespan", "ratio_to_bound", "variance", "cpu_us_per_call", "default_start", "goal_met", "heavier"} {
		if _, ok := out[k]; !ok {
			t.Errorf("no %q in the JSON line", k)
		}
	}
	if out["goal_met"] != true {
		t.Errorf("goal not met: %v", out["goal"])
	}
	def := out["default_method"].(string)
	for _, run := range []map[string]any{out, out["heavier"].(map[string]any)} {
		for _, n := range []string{"3", "8"} {
			ms := run["makespan"].(map[string]any)[n].(map[string]float64)
			if ms[def] > ms["lpt"] {
				t.Errorf("σ=%v, %s workers: %s %v above LPT %v", run["sigma"], n, def, ms[def], ms["lpt"])
			}
			if ms[def] < ms["lower_bound"]-1e-9 {
				t.Errorf("σ=%v, %s workers: below the lower bound", run["sigma"], n)
			}
			if ms["round_robin"] < ms[def]*1.02 || ms["hash_domain"] < ms[def]*1.02 {
				t.Errorf("σ=%v, %s workers: baselines as good as the seed's: %v", run["sigma"], n, ms)
			}
			if w := run["worse_than_lpt"].(map[string]any)[n].(map[string]int)[def]; w != 0 {
				t.Errorf("σ=%v, %s workers: %s above LPT in %d draws", run["sigma"], n, def, w)
			}
		}
	}
}
