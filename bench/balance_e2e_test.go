package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestBalanceE2EHelpers(t *testing.T) {
	for raw, want := range map[string]string{
		"http://www.a-times.com:41234/s/x?p=2": "http://www.a-times.com/s/x?p=2",
		"http://b.net/":                        "http://b.net/",
	} {
		if got := e2eNoPort(raw); got != want {
			t.Errorf("e2eNoPort(%q) = %q, want %q", raw, got, want)
		}
	}
	ref := map[string]bool{"a": true, "b": true, "c": true}
	if lost, extra := e2eDiff(ref, map[string]bool{"a": true, "c": true, "d": true}); lost != 1 || extra != 1 {
		t.Errorf("e2eDiff: lost %d extra %d, want 1 and 1", lost, extra)
	}
	// LPT deals 300 | 100+100+100 | 100+100 = 300 at most; the even spread gave one
	// worker 500.
	pages := map[string]int{"a": 300, "b": 100, "c": 100, "d": 100, "e": 100, "f": 100}
	if got := e2eIdeal(pages, []int{500, 200, 100}); math.Abs(got-0.6) > 1e-9 {
		t.Errorf("e2eIdeal = %v, want 0.6", got)
	}
}

// A short end-to-end run on a small web (6 sites, ~400 pages): every round stores
// exactly the reference's pages, none twice (but for a request a worker cut at its
// lease's end and asked again), no ban; the plan moves sites off the worker whose
// share costs most, lowers the workers' cost variance by its own figures, and
// takes effect: the moved sites' pages are fetched by their new workers (those
// fetched before the move, by the old).
//
// The plan is made from costs no load changes (-plan-from pages: each site's
// pages × the articles' server time), not from the even round's measured ones:
// those are times on the wall, and on a loaded box a site's cost a page drifts
// with the box (at load 21 a worker's 244 pages cost less than another's 118), so
// a plan from them can find the even spread balanced and move nothing (load 37).
// On this web (seed 63) one site is over a third of the pages: whichever sites
// the even spread pairs it with, its worker is the slowest and the plan moves
// work off it. Neither the makespans nor the pages' shares are judged here (go
// run ./bench balance_e2e judges the makespans, from measured costs).
func TestBalanceE2EBench(t *testing.T) {
	t.Parallel() // its own sandbox, cluster server and temporary store
	if testing.Short() {
		t.Skip("crawls the sandbox three times (~10 s)")
	}
	// One even round and one balanced: what is asserted is the plan's effect on the
	// shares, which the a b b a pairing (for the makespans' sake) only repeats.
	e2e, err := balanceE2E([]string{"-seed", "63", "-hosts", "32", "-scale", "200", "-listings", "2", "-articles", "6",
		"-order", "ab", "-plan-from", "pages"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(map[string]any{"e2e": e2e}); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for _, k := range []string{"makespan_even_s", "makespan_balanced_s", "ratio", "bans", "pages", "lost"} {
		if _, ok := e2e[k]; !ok {
			t.Errorf("no %q in the e2e object", k)
		}
	}
	for _, k := range []string{"bans", "violations", "lost", "extra", "fetched_twice"} {
		if e2e[k] != 0 {
			t.Errorf("%s = %v, want 0", k, e2e[k])
		}
	}
	// A worker starved of CPU past its lease (3 heartbeats) cuts its request in
	// flight and asks again once renewed (or, declared dead, its hosts go to
	// another): the sandbox may have answered the first already. That is M4's
	// fault path, told apart from a page dealt twice.
	if n := e2e["twice_fault_path"].(int); n > 0 {
		t.Logf("%d pages answered again after a request cut at a worker's lease's end or to a worker declared dead (starved of CPU past its lease)", n)
	}
	// The even round's master measured a cost for every site from its workers'
	// results (a presence, which no load changes): what `balance_e2e` and the
	// console's rebalance plan from, though this test's plan is from the pages.
	if u := e2e["unmeasured"].([]string); len(u) > 0 {
		t.Errorf("the even round's cost table has no cost for %d of %v sites: %v", len(u), e2e["sites"], u)
	}
	if e2e["moves"].(int) == 0 {
		t.Error("the plan moved nothing")
	}
	if vb, va := e2e["variance_before"].(float64), e2e["variance_after"].(float64); va >= vb {
		t.Errorf("the plan's cost variance %g -> %g; want it lower", vb, va)
	}
	// The slowest worker by the plan's costs gives work away and comes out lighter.
	before, after := e2e["plan_before"].(map[string]float64), e2e["plan_after"].(map[string]float64)
	slow := ""
	for w, c := range before {
		if slow == "" || c > before[slow] {
			slow = w
		}
	}
	gives := false
	for _, mv := range e2e["moved"].([]map[string]any) {
		gives = gives || mv["from"] == slow
	}
	if !gives || after[slow] >= before[slow] {
		t.Errorf("the plan leaves the slowest worker %s (cost %.3f -> %.3f) its work: moves %v", slow, before[slow], after[slow], e2e["moved"])
	}
	// Pages of the moved sites: by their new worker, and by the others (fetched
	// before the plan was applied, once 50 pages were stored, or while it was on
	// its way). Named w1..w3, the workers are indexes 0..2 of by_worker.
	byNew, byOld := 0, 0
	for _, mv := range e2e["moved"].([]map[string]any) {
		by := mv["by_worker"].([]int)
		for i, n := range by {
			if fmt.Sprintf("w%d", i+1) == mv["to"] {
				byNew += n
			} else {
				byOld += n
			}
		}
	}
	if byNew <= byOld {
		t.Errorf("the moved sites' pages: %d by their new workers, %d by others; want the plan to have taken effect: %v", byNew, byOld, e2e["moved"])
	}
	largest := map[string]int{}
	for _, r := range e2e["runs"].([]map[string]any) {
		kind := r["spread"].(string)
		largest[kind] = max(largest[kind], slices.Max(r["pages"].([]int)))
	}
	t.Logf("largest share of pages: balanced %d, even %d; the moved sites' pages by their new workers %d, by others %d",
		largest["balanced"], largest["even"], byNew, byOld)
	// The rounds' wall-clock makespans are a timing property, judged by the bench
	// (go run ./bench balance_e2e), not here: on a loaded box they come out level
	// whatever the spread. The largest share above is the plan's recorded effect.
	t.Logf("balanced rounds took %v s, even ones %v s", e2e["makespan_balanced_s"], e2e["makespan_even_s"])
}
