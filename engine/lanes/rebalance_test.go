package lanes

import (
	"sync"
	"testing"
)

// TestRebalanceSpreadsLanesOverEgresses: four lanes all on one of two addresses are
// dealt two and two by the plan, and applying it moves them so.
func TestRebalanceSpreadsLanesOverEgresses(t *testing.T) {
	b := NewBoard(8, []string{"e1", "e2"})
	for _, h := range []string{"a", "b", "c", "d"} {
		b.Add(task("http://"+h+"/1", h, 0))
	}
	for _, v := range b.View() {
		if err := b.SetEgress(v.ID, 0); err != nil {
			t.Fatal(err)
		}
	}
	r := &Runner{Mu: &sync.Mutex{}, Board: b}
	p := r.PlanRebalance(1)
	if len(p.Moves) != 2 || p.Before[0].Lanes != 4 || p.After[0].Lanes != 2 || p.After[1].Lanes != 2 {
		t.Fatalf("plan = %+v; want 2 of the 4 lanes on e1 moved to e2", p)
	}
	moved, err := r.ApplyRebalance(p)
	if err != nil || moved != 2 {
		t.Fatalf("applied: %d moved, %v; want 2, nil", moved, err)
	}
	on := map[string]int{}
	for _, v := range b.View() {
		on[v.Egress]++
	}
	if on["e1"] != 2 || on["e2"] != 2 {
		t.Fatalf("lanes per egress after the rebalance: %v; want 2 and 2", on)
	}
}
