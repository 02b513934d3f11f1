package main

// The discovery bench's goals, printed against their baselines in one run, and the
// bisection behind budget_share_to_match_fixed_p95: the crawls are compared at equal
// fetch budget (ours spends the budget it is given, as fixed_poller does), and cost
// is judged the other way round, as the least share of fixed_poller's budget at
// which ours is as fast as fixed_poller.

import (
	"fmt"
	"math"
)

// Goal thresholds.
const (
	discGoalP95OverFixed     = 0.8  // ours p95 <= 0.8 x fixed_poller's
	discGoalP95OverEntry     = 0.5  // ours p95 <= 0.5 x entry_only's
	discGoalFound            = 0.99 // found_share
	discGoalShare            = 0.7  // budget_share_to_match_fixed_p95
	discGoalEqualBudget      = 0.02 // ours' fetches per hour within 2% of fixed_poller's
	discBisectSteps          = 5    // runs of ours the bisection may add
	discBisectTolerance      = 0.05 // width of the share's bracket at which it stops
	discBisectShareAboveFull = 2.0  // tried when ours misses at the full budget
)

// discoveryLiveExtras are the figures the goals need beyond the table: fetches per
// hour (both modes), the bisection and the fixed budget (live).
type discoveryLiveExtras struct {
	live           bool
	perHour        map[string]float64 // fetches per web hour, by crawl (nil: not checked)
	bisected       bool
	share          float64 // budget_share_to_match_fixed_p95; +Inf: not reached at discBisectShareAboveFull
	fixedBudgetPer float64 // fixed_poller's fetch budget, fetches per web hour
}

// discoveryBisect is the smallest share in (lo, hi] at which meets holds, to within
// tol, given that it holds at hi and not at lo: one call of meets per step, at most
// steps calls.
func discoveryBisect(lo, hi, tol float64, steps int, meets func(share float64) bool) float64 {
	for i := 0; i < steps && hi-lo > tol; i++ {
		m := (lo + hi) / 2
		if meets(m) {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}

// discoveryShare finds budget_share_to_match_fixed_p95: oursAtFull says whether ours
// matched at the full budget (its run is reused, as fixed_poller's is); meets runs
// ours at a share of the budget. If ours misses at the full budget, twice the budget
// is tried and the bracket (1, 2] bisected; +Inf when that misses too.
func discoveryShare(oursAtFull bool, meets func(share float64) bool) float64 {
	if oursAtFull {
		return discoveryBisect(0, 1, discBisectTolerance, discBisectSteps, meets)
	}
	if !meets(discBisectShareAboveFull) {
		return math.Inf(1)
	}
	return discoveryBisect(1, discBisectShareAboveFull, discBisectTolerance, discBisectSteps-1, meets)
}

// discoverySimShare is budget_share_to_match_fixed_p95 on the simulation: the live
// bisection's steps, with ours run alone again at each share (run) against the main
// run's fixed_poller p95. full is ours at the whole budget; hours the measured window.
func discoverySimShare(full *discResult, fixedP95, budget, hours float64, run func(share float64) *discResult) (float64, []map[string]any) {
	var steps []map[string]any
	step := func(share float64, r *discResult) bool {
		p95 := discoveryFiguresOf(r).p95
		ok := p95 >= 0 && p95 <= fixedP95
		perHour := crawlRound(float64(r.fetches)/hours, 1)
		steps = append(steps, map[string]any{"share": share, "latency_p95_s": p95, "fetches_per_hour": perHour, "matches": ok})
		fmt.Printf("bisect: ours at %.3f of the budget (%.1f fetches/h): p95 %.0f s vs fixed_poller's %.0f s: %v; %.1f fetches/h spent\n",
			share, share*budget, p95, fixedP95, map[bool]string{true: "matches", false: "misses"}[ok], perHour)
		return ok
	}
	atFull := step(1, full)
	share := discoveryShare(atFull, func(share float64) bool { return step(share, run(share)) })
	return share, steps
}

// jsonNumber is x for the JSON line, nil (null) when it is not finite.
func jsonNumber(x float64) any {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return x
}

// discoveryGoals prints the goals against their baselines and puts the figures and
// verdicts in out.
func discoveryGoals(out map[string]any, figs map[string]discoveryFigures, x discoveryLiveExtras) {
	e, f, o := figs["entry_only"], figs["fixed_poller"], figs["ours"]
	goals := map[string]any{}
	fmt.Println("\ngoals (ours against its baselines in this run, at fixed_poller's budget):")
	check := func(key string, ok bool, format string, args ...any) {
		goals[key] = ok
		verdict := "met    "
		if !ok {
			verdict = "NOT MET"
		}
		fmt.Printf("  %s %s\n", verdict, fmt.Sprintf(format, args...))
	}
	if x.perHour != nil {
		of, ff := x.perHour["ours"], x.perHour["fixed_poller"]
		ratio := of / math.Max(ff, 1e-9)
		check("equal_budget", math.Abs(ratio-1) <= discGoalEqualBudget,
			"fetches per web hour: ours %.1f, fixed_poller %.1f, ratio %.3f (within %.0f%%; budget %.1f)", of, ff, ratio, 100*discGoalEqualBudget, x.fixedBudgetPer)
		out["fetches_per_hour_ours_over_fixed"] = crawlRound(ratio, 3)
	}
	check("p95_vs_fixed_poller", o.p95 >= 0 && o.p95 <= discGoalP95OverFixed*f.p95,
		"latency p95: ours %.0f s <= %.1f x fixed_poller's %.0f s = %.0f s", o.p95, discGoalP95OverFixed, f.p95, discGoalP95OverFixed*f.p95)
	check("p95_vs_entry_only", o.p95 >= 0 && o.p95 <= discGoalP95OverEntry*e.p95,
		"latency p95: ours %.0f s <= %.1f x entry_only's %.0f s = %.0f s", o.p95, discGoalP95OverEntry, e.p95, discGoalP95OverEntry*e.p95)
	check("found_share", o.found >= discGoalFound,
		"found_share: ours %.4f >= %.2f (fixed_poller %.4f, entry_only %.4f; on feed/sitemap sites ours %.4f)", o.found, discGoalFound, f.found, e.found, o.foundAnn)
	if x.bisected {
		shown := fmt.Sprintf("%.3f", x.share)
		if math.IsInf(x.share, 1) {
			shown = fmt.Sprintf("> %.1f", discBisectShareAboveFull)
		}
		check("budget_share", x.share <= discGoalShare,
			"budget_share_to_match_fixed_p95: %s <= %.1f", shown, discGoalShare)
		out["budget_share_to_match_fixed_p95"] = jsonNumber(crawlRound(x.share, 3))
	} else if x.live {
		fmt.Println("  -       budget_share_to_match_fixed_p95: not measured (-bisect=false)")
	}
	// On sites with neither, a p95 over the articles found says nothing when the
	// crawl found few of them: the goal compares the p95 over every article they
	// published, one never stored counting as never.
	check("neither_no_regression", !math.IsInf(o.p95NeitherAll, 1) && o.p95NeitherAll <= e.p95NeitherAll,
		"sites with neither feed nor sitemap, p95 over every article published there (never stored = never): ours %.0f s <= entry_only's %.0f s (fixed_poller %.0f s)",
		o.p95NeitherAll, e.p95NeitherAll, f.p95NeitherAll)
	out["goals"] = goals
	all := map[string]any{}
	for c, fg := range figs {
		all[c] = jsonNumber(fg.p95NeitherAll)
	}
	out["latency_p95_s_neither_all"] = all
}
