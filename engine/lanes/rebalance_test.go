package lanes

import (
	"fmt"
	"strings"
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

// TestRebalancePlansOnlyMovesItCanMake: a host bound to lanes on both addresses (a
// social site's rotation) keeps its lane where it is, though its address is the
// busier one, and every move the plan lists is then made: the operator is never
// shown a move that the apply step refuses.
func TestRebalancePlansOnlyMovesItCanMake(t *testing.T) {
	b := NewBoard(8, []string{"e1", "e2"})
	lane := map[string]*Lane{}
	for i, h := range []string{"b", "b", "b", "c", "c", "c", "d", "d", "d", "a", "a"} {
		t := task(fmt.Sprintf("http://%s/%d", h, i), h, 0)
		if lane[h] == nil {
			lane[h] = b.open(t, 0)
		} else {
			b.join(lane[h], t)
		}
	}
	shared := lane["a"].ID
	rotated := b.open(task("http://a/99", "a", 0), 1)
	r := &Runner{Mu: &sync.Mutex{}, Board: b}
	p := r.PlanRebalance(1)
	if len(p.Moves) == 0 {
		t.Fatalf("plan = %+v; want the busier address relieved", p)
	}
	for _, m := range p.Moves {
		if m.Lane == shared || m.Lane == rotated.ID {
			t.Errorf("plan moves lane %d (%s -> %s), which holds host a bound on both addresses", m.Lane, m.From, m.To)
		}
	}
	moved, err := r.ApplyRebalance(p)
	if err != nil || moved != len(p.Moves) {
		t.Fatalf("applied %d of the plan's %d moves, %v; want every move made", moved, len(p.Moves), err)
	}
}

// TestRebalanceSaysWhyNothingMoves: a plan that moves no lane says why, not
// "busiest address 113.9s -> 113.9s" as if something had changed: one lane carries
// the busiest address's whole load, or the lanes are already even.
func TestRebalanceSaysWhyNothingMoves(t *testing.T) {
	t.Run("one lane on the busiest address", func(t *testing.T) {
		b := NewBoard(8, []string{"e1", "e2"})
		a := b.open(task("http://a/0", "a", 0), 0)
		for i := 1; i < 5; i++ {
			b.join(a, task(fmt.Sprintf("http://a/%d", i), "a", 0))
		}
		b.open(task("http://b/1", "b", 0), 1)
		r := &Runner{Mu: &sync.Mutex{}, Board: b}
		p := r.PlanRebalance(1)
		if len(p.Moves) != 0 {
			t.Fatalf("plan = %+v; want no move", p)
		}
		if strings.Contains(p.Summary, "->") || !strings.Contains(p.Summary, "carries one lane") || !strings.Contains(p.Summary, "6.0s") {
			t.Errorf("summary %q; want why nothing moves: one lane carries the busiest address's 6.0s (5 queued, 1 in hand)", p.Summary)
		}
	})
	t.Run("already even", func(t *testing.T) {
		b := NewBoard(8, []string{"e1", "e2"})
		for i, h := range []string{"a", "b", "c", "d"} {
			b.open(task("http://"+h+"/1", h, 0), i%2)
		}
		r := &Runner{Mu: &sync.Mutex{}, Board: b}
		p := r.PlanRebalance(1)
		if len(p.Moves) != 0 {
			t.Fatalf("plan = %+v; want no move", p)
		}
		if strings.Contains(p.Summary, "->") || !strings.Contains(p.Summary, "already even") {
			t.Errorf("summary %q; want it to say the lanes are already even", p.Summary)
		}
	})
}
