package balance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestMoves(t *testing.T) {
	old := Assignment{"a": 0, "b": 1, "c": 2, "gone": 1}
	nw := Assignment{"a": 0, "b": 2, "c": 0, "new": 1}
	want := []Move{{"b", 1, 2}, {"c", 2, 0}, {"gone", 1, -1}, {"new", -1, 1}}
	if got := Moves(old, nw); !reflect.DeepEqual(got, want) {
		t.Errorf("moves %v, want %v", got, want)
	}
	if got := Moves(old, old); len(got) != 0 {
		t.Errorf("no change: %v", got)
	}
}

// heavyItems is n lognormal items, keys site000…
func heavyItems(n int, sigma float64, seed uint64) []Item {
	r := rand.New(rand.NewPCG(seed, 0))
	out := make([]Item, n)
	for i := range out {
		out[i] = Item{Key: fmt.Sprintf("site%03d", i), Weight: math.Exp(sigma * r.NormFloat64())}
	}
	return out
}

func TestRebalance(t *testing.T) {
	it := heavyItems(90, 1, 3)
	balanced, err := Balance(it, 3, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	bestMs := Makespan(Totals(it, balanced, 3))

	t.Run("gap under the threshold: nothing moves", func(t *testing.T) {
		got, err := Rebalance(it, balanced, 3, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, balanced) {
			t.Errorf("moved %v", Moves(balanced, got))
		}
	})

	t.Run("renumbered workers: recognised, nothing moves", func(t *testing.T) {
		perm := Assignment{}
		for k, w := range balanced {
			perm[k] = (w + 1) % 3
		}
		// Balance's own deals come out numbered differently; matching them to perm
		// must find the zero-move renumbering.
		got, err := Rebalance(it, perm, 3, Options{Threshold: -1, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		if m := Moves(perm, got); len(m) != 0 {
			t.Errorf("%d moves, want 0", len(m))
		}
	})

	t.Run("a worker joins: few moves, balanced", func(t *testing.T) {
		got, err := Rebalance(it, balanced, 4, Options{Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := Balance(it, 4, Options{Seed: 2})
		ms, freshMs := Makespan(Totals(it, got, 4)), Makespan(Totals(it, fresh, 4))
		if ms > freshMs+DefaultTolerance+1e-12 {
			t.Errorf("makespan %v, a fresh balance %v", ms, freshMs)
		}
		moves := Moves(balanced, got)
		t.Logf("%d moves, makespan %.5f; a fresh balance: %d moves, %.5f", len(moves), ms, len(Moves(balanced, fresh)), freshMs)
		// a quarter of the load must reach the new worker; a fresh numbering-blind
		// deal moves about three quarters of the items.
		if len(moves) > len(it)/4 || len(moves) >= len(Moves(balanced, fresh)) {
			t.Errorf("%d moves (a fresh balance: %d)", len(moves), len(Moves(balanced, fresh)))
		}
		for _, m := range moves {
			if m.From < 0 || m.From > 2 || m.To < 0 || m.To > 3 {
				t.Errorf("odd move %+v", m)
			}
		}
	})

	t.Run("a worker leaves: its items are placed, threshold then decides", func(t *testing.T) {
		four, _ := Balance(it, 4, Options{Seed: 3})
		cur := Assignment{}
		for k, w := range four {
			if w != 3 {
				cur[k] = w
			} else {
				cur[k] = 9 // out of range: a worker that left
			}
		}
		got, err := Rebalance(it, cur, 3, Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range got {
			if w < 0 || w > 2 {
				t.Fatalf("%s on worker %d", k, w)
			}
			if old := cur[k]; old != 9 && old != w && relGap(Totals(it, got, 3)) > 0.2 {
				t.Errorf("unbalanced and moved %s", k)
			}
		}
		if ms := Makespan(Totals(it, got, 3)); ms > bestMs+DefaultThreshold {
			t.Errorf("makespan %v, best %v", ms, bestMs)
		}
	})

	t.Run("new items are placed even under the threshold", func(t *testing.T) {
		more := append(slices.Clone(it), Item{Key: "zzz-new", Weight: 0.5})
		got, err := Rebalance(more, balanced, 3, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := Moves(balanced, got)
		if len(m) != 1 || m[0].Key != "zzz-new" || m[0].From != -1 {
			t.Errorf("moves %v, want only the new item placed", m)
		}
		tot := Totals(it, balanced, 3)
		if lightest := slices.Index(tot, slices.Min(tot)); m[0].To != lightest {
			t.Errorf("new item to worker %d, the lightest is %d", m[0].To, lightest)
		}
	})

	t.Run("very uneven: balanced with fewer moves than a fresh deal", func(t *testing.T) {
		cur := Assignment{}
		for _, x := range it {
			cur[x.Key] = 0
		}
		got, err := Rebalance(it, cur, 3, Options{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if ms := Makespan(Totals(it, got, 3)); ms > bestMs+DefaultTolerance+1e-12 {
			t.Errorf("makespan %v, Balance %v", ms, bestMs)
		}
		if m, fresh := len(Moves(cur, got)), len(Moves(cur, balanced)); m > fresh {
			t.Errorf("%d moves, Balance's assignment is %d away", m, fresh)
		}
	})
}

func TestHungarian(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for n := 1; n <= 6; n++ {
		for range 20 {
			cost := make([][]int64, n)
			for i := range cost {
				cost[i] = make([]int64, n)
				for j := range cost[i] {
					cost[i][j] = int64(r.IntN(21) - 10)
				}
			}
			got := hungarian(cost)
			var sum int64
			for i, j := range got {
				sum += cost[i][j]
			}
			if best := bruteAssign(cost); sum != best {
				t.Fatalf("n=%d: cost %d, optimum %d (%v)", n, sum, best, cost)
			}
			if s := slices.Sorted(slices.Values(got)); !slices.Equal(s, permIdentity(n)) {
				t.Fatalf("not a permutation: %v", got)
			}
		}
	}
}

func permIdentity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

func bruteAssign(cost [][]int64) int64 {
	n := len(cost)
	best := int64(math.MaxInt64)
	p := permIdentity(n)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			var s int64
			for i, j := range p {
				s += cost[i][j]
			}
			best = min(best, s)
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			rec(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	rec(0)
	return best
}
