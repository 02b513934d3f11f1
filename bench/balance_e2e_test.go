package main

import (
	"encoding/json"
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

// A short end-to-end run on a small web (5 sites, ~500 pages): every round stores
// exactly the reference's pages, none twice, no ban; the plan from the even round's
// costs moves sites, and the balanced round's largest share of pages is below the even
// round's. Neither the makespans nor the ratio goal are judged here: on a web this small the round's fixed
// start and tail weigh too much (go run ./bench balance_e2e judges it).
func TestBalanceE2EBench(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the sandbox three times (~10 s)")
	}
	// One even round and one balanced: what is asserted is the plan's effect on the
	// shares, which the a b b a pairing (for the makespans' sake) only repeats.
	e2e, err := balanceE2E([]string{"-hosts", "40", "-scale", "200", "-listings", "2", "-articles", "6", "-order", "ab"})
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
	if e2e["moves"].(int) == 0 {
		t.Error("the plan moved nothing")
	}
	largest := map[string]int{}
	for _, r := range e2e["runs"].([]map[string]any) {
		kind := r["spread"].(string)
		largest[kind] = max(largest[kind], slices.Max(r["pages"].([]int)))
	}
	if largest["balanced"] >= largest["even"] {
		t.Errorf("largest share of pages: balanced %d, even %d", largest["balanced"], largest["even"])
	}
	// The rounds' wall-clock makespans are a timing property, judged by the bench
	// (go run ./bench balance_e2e), not here: on a loaded box they come out level
	// whatever the spread. The largest share above is the plan's recorded effect.
	t.Logf("balanced rounds took %v s, even ones %v s", e2e["makespan_balanced_s"], e2e["makespan_even_s"])
}
