package main

// -runs N: the live discovery bench repeated, each run printed, and the median of
// each figure, so that a verdict is not one draw (two quiet runs of the same code
// on seed 2 gave p95 ratios 0.814 and 0.743).

import (
	"fmt"
	"math"
	"slices"
)

// discoveryRunFigures are the figures -runs takes the median of, from one run's out.
func discoveryRunFigures(out map[string]any) map[string]float64 {
	f := map[string]float64{}
	num := func(v any) (float64, bool) {
		x, ok := v.(float64)
		return x, ok && !math.IsNaN(x)
	}
	if p95, ok := out["latency_p95_s"].(map[string]any); ok {
		for _, c := range discoveryCrawls {
			if x, ok := num(p95[c]); ok {
				f["latency_p95_s_"+c] = x
			}
		}
		o, fp, e := f["latency_p95_s_ours"], f["latency_p95_s_fixed_poller"], f["latency_p95_s_entry_only"]
		if fp > 0 {
			f["p95_ours_over_fixed_poller"] = crawlRound(o/fp, 3)
		}
		if e > 0 {
			f["p95_ours_over_entry_only"] = crawlRound(o/e, 3)
		}
	}
	if found, ok := out["found_share"].(map[string]any); ok {
		if x, ok := num(found["ours"]); ok {
			f["found_share_ours"] = x
		}
	}
	for _, k := range []string{"fetches_per_hour_ours_over_fixed", "budget_share_to_match_fixed_p95",
		"budget_share_lane_bound_to_match_fixed_p95", "budget_share_age_lane_bound_to_match_fixed_p95"} {
		if x, ok := num(out[k]); ok {
			f[k] = x
		}
	}
	return f
}

// discoveryMedian is the median of xs (the mean of the middle two for an even count).
func discoveryMedian(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// discoveryRepeat runs run n times, one after another, prints each run's figures as
// it ends and then their medians, and returns the last run's out with every run's
// figures ("runs") and the medians ("median"), against which the goals are judged
// ("median_goals").
func discoveryRepeat(n int, run func() (map[string]any, error)) (map[string]any, error) {
	var all []map[string]float64
	var last map[string]any
	for i := range n {
		fmt.Printf("\n=== discovery run %d of %d (load %s)\n", i+1, n, loadAvg(1))
		out, err := run()
		if err != nil {
			return nil, fmt.Errorf("run %d of %d: %w", i+1, n, err)
		}
		f := discoveryRunFigures(out)
		all = append(all, f)
		last = out
		fmt.Printf("run %d: %s\n", i+1, discoveryRunLine(f))
	}
	med := map[string]float64{}
	for k := range all[0] {
		var xs []float64
		for _, f := range all {
			if x, ok := f[k]; ok {
				xs = append(xs, x)
			}
		}
		if len(xs) == len(all) {
			med[k] = crawlRound(discoveryMedian(xs), 3)
		}
	}
	fmt.Printf("\nmedian of %d runs: %s\n", n, discoveryRunLine(med))
	goals := map[string]any{}
	verdict := func(key string, have bool, ok bool, format string, args ...any) {
		if !have {
			return
		}
		goals[key] = ok
		v := "met    "
		if !ok {
			v = "NOT MET"
		}
		fmt.Printf("  %s (median) %s\n", v, fmt.Sprintf(format, args...))
	}
	r, ok := med["p95_ours_over_fixed_poller"]
	verdict("p95_vs_fixed_poller", ok, r <= discGoalP95OverFixed, "ours p95 / fixed_poller's %.3f <= %.1f", r, discGoalP95OverFixed)
	r, ok = med["p95_ours_over_entry_only"]
	verdict("p95_vs_entry_only", ok, r <= discGoalP95OverEntry, "ours p95 / entry_only's %.3f <= %.1f", r, discGoalP95OverEntry)
	r, ok = med["found_share_ours"]
	verdict("found_share", ok, r >= discGoalFound, "found_share %.4f >= %.2f", r, discGoalFound)
	r, ok = med["fetches_per_hour_ours_over_fixed"]
	verdict("equal_budget", ok, math.Abs(r-1) <= discGoalEqualBudget, "fetches per hour ours / fixed_poller %.3f within %.0f%%", r, 100*discGoalEqualBudget)
	r, ok = med["budget_share_to_match_fixed_p95"]
	verdict("budget_share", ok, r <= discGoalShare, "budget_share_to_match_fixed_p95 %.3f <= %.1f", r, discGoalShare)
	runs := make([]any, len(all))
	for i, f := range all {
		runs[i] = f
	}
	last["runs"] = runs
	last["median"] = med
	last["median_goals"] = goals
	return last, nil
}

// discoveryRunLine is one run's (or the medians') figures on a line.
func discoveryRunLine(f map[string]float64) string {
	keys := []string{"p95_ours_over_fixed_poller", "latency_p95_s_ours", "latency_p95_s_fixed_poller", "latency_p95_s_entry_only",
		"p95_ours_over_entry_only", "found_share_ours", "fetches_per_hour_ours_over_fixed", "budget_share_to_match_fixed_p95",
		"budget_share_lane_bound_to_match_fixed_p95", "budget_share_age_lane_bound_to_match_fixed_p95"}
	s := ""
	for _, k := range keys {
		if x, ok := f[k]; ok {
			s += fmt.Sprintf(" %s %g", k, x)
		}
	}
	return s[min(1, len(s)):]
}
