package balance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// items builds items k0, k1, … with the given weights.
func items(ws ...float64) []Item {
	out := make([]Item, len(ws))
	for i, w := range ws {
		out[i] = Item{Key: fmt.Sprintf("k%02d", i), Weight: w}
	}
	return out
}

// byWorker lists each worker's keys, sorted: an assignment as a test reads it.
func byWorker(it []Item, a Assignment, workers int) [][]string {
	out := make([][]string, workers)
	for _, x := range it {
		out[a[x.Key]] = append(out[a[x.Key]], x.Key)
	}
	for _, ks := range out {
		slices.Sort(ks)
	}
	return out
}

func TestSnakeDeal(t *testing.T) {
	for _, tc := range []struct {
		items, workers int
		want           []int
	}{
		{7, 3, []int{0, 1, 2, 2, 1, 0, 0}},
		{8, 2, []int{0, 1, 1, 0, 0, 1, 1, 0}},
		{4, 1, []int{0, 0, 0, 0}},
		{3, 5, []int{0, 1, 2}},
		{0, 3, []int{}},
	} {
		t.Run(fmt.Sprintf("%d items %d workers", tc.items, tc.workers), func(t *testing.T) {
			if got := snakeDeal(tc.items, tc.workers); !slices.Equal(got, tc.want) {
				t.Errorf("snake deal %v, want %v", got, tc.want)
			}
		})
	}
}

// With equal weights no exchange lowers the variance, so Balance returns its starting
// deal: the snake order over keys (ties are broken by key), whatever the input order.
func TestBalanceTiesKeepTheSnakeDeal(t *testing.T) {
	it := items(1, 1, 1, 1, 1, 1, 1)
	want := [][]string{{"k00", "k05", "k06"}, {"k01", "k04"}, {"k02", "k03"}}
	for _, start := range []Start{StartSnake, StartLPT} {
		a, err := Balance(it, 3, Options{Start: start})
		if err != nil {
			t.Fatal(err)
		}
		got := byWorker(it, a, 3)
		if start == StartSnake && !reflect.DeepEqual(got, want) {
			t.Errorf("snake: %v, want %v", got, want)
		}
		if ms := Makespan(Totals(it, a, 3)); math.Abs(ms-3/(7.0/3)) > 1e-12 {
			t.Errorf("%s: makespan %v, want 9/7", start, ms)
		}
		rev := slices.Clone(it)
		slices.Reverse(rev)
		b, _ := Balance(rev, 3, Options{Start: start})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: input order changed the result: %v vs %v", start, a, b)
		}
	}
}

// The swap loop keeps an exchange only if it lowers the variance, and stops after
// exactly CounterThreshold failures in a row.
func TestSwapLoop(t *testing.T) {
	t.Run("one kept move then the counter", func(t *testing.T) {
		// weights 3 and 1, both on worker 0: either move to worker 1 is kept, then nothing is.
		for _, ct := range []int{1, 5, 50} {
			s := newDealState([]float64{3, 1}, 2, []int{0, 0})
			tried, kept := s.improve(rand.New(rand.NewPCG(1, 2)), ct, false)
			if kept != 1 || tried != 1+ct {
				t.Errorf("counter %d: tried %d kept %d, want %d and 1", ct, tried, kept, 1+ct)
			}
			if Variance(s.tot) != 1 {
				t.Errorf("totals %v, want 3 and 1", s.tot)
			}
		}
	})
	t.Run("local optimum: counter only", func(t *testing.T) {
		s := newDealState([]float64{2, 2, 2, 2}, 2, []int{0, 1, 1, 0})
		tried, kept := s.improve(rand.New(rand.NewPCG(1, 2)), 37, false)
		if kept != 0 || tried != 37 {
			t.Errorf("tried %d kept %d, want 37 and 0", tried, kept)
		}
	})
	t.Run("lowers the variance, never raises the largest total", func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 7))
		w := make([]float64, 60)
		for i := range w {
			w[i] = math.Exp(r.NormFloat64())
		}
		slices.SortFunc(w, func(a, b float64) int { return -cmpF(a, b) })
		for _, swapsOnly := range []bool{false, true} {
			start := snakeDeal(len(w), 4)
			before := exactTotals(w, start, 4)
			s := newDealState(w, 4, start)
			_, kept := s.improve(rand.New(rand.NewPCG(3, 0)), 500, swapsOnly)
			after := exactTotals(w, s.of, 4)
			if kept == 0 || Variance(after) >= Variance(before) {
				t.Errorf("swapsOnly %v: kept %d, variance %v → %v", swapsOnly, kept, Variance(before), Variance(after))
			}
			if slices.Max(after) > slices.Max(before) || slices.Min(after) < slices.Min(before) {
				t.Errorf("swapsOnly %v: totals widened: %v → %v", swapsOnly, before, after)
			}
			for i, x := range after {
				if math.Abs(x-s.tot[i]) > 1e-9 {
					t.Errorf("running total %v drifted from %v", s.tot[i], x)
				}
			}
			if swapsOnly {
				for j := range 4 {
					if n := len(s.held[j]); n != 15 {
						t.Errorf("swaps only: worker %d holds %d items, want the deal's 15", j, n)
					}
				}
			}
		}
	})
	t.Run("swaps only cannot fill an empty worker", func(t *testing.T) {
		s := newDealState([]float64{2, 1}, 2, []int{0, 0})
		if tried, kept := s.improve(rand.New(rand.NewPCG(1, 1)), 10, true); kept != 0 || tried != 10 {
			t.Errorf("tried %d kept %d, want 10 and 0", tried, kept)
		}
	})
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// LPT's classic miss, {3,3,2,2,2} on two workers (7 vs the optimum 6): the swap loop
// finds 6 from either start.
func TestBalanceBeatsLPTOnItsClassicMiss(t *testing.T) {
	it := items(3, 3, 2, 2, 2)
	l, _ := LPT(it, 2)
	if got := slices.Max(Totals(it, l, 2)); got != 7 {
		t.Fatalf("LPT's largest total %v, want 7", got)
	}
	for _, o := range []Options{{Start: StartSnake}, {Start: StartLPT}, {Start: StartSnake, SwapsOnly: true}} {
		a, err := Balance(it, 2, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := Totals(it, a, 2); got[0] != 6 || got[1] != 6 {
			t.Errorf("%+v: totals %v, want 6 and 6", o, got)
		}
	}
}

func TestBalanceEdgeCases(t *testing.T) {
	t.Run("one worker", func(t *testing.T) {
		it := items(5, 1, 3)
		a, err := Balance(it, 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range a {
			if w != 0 {
				t.Errorf("%s on worker %d", k, w)
			}
		}
		if len(a) != 3 || Makespan(Totals(it, a, 1)) != 1 {
			t.Errorf("assignment %v", a)
		}
	})
	t.Run("more workers than items", func(t *testing.T) {
		it := items(5, 1, 3)
		for _, start := range []Start{StartSnake, StartLPT} {
			a, err := Balance(it, 5, Options{Start: start})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int]bool{}
			for _, w := range a {
				if seen[w] || w < 0 || w >= 5 {
					t.Errorf("%s: %v: one item per worker wanted", start, a)
				}
				seen[w] = true
			}
			// the heaviest item alone is the bound
			if got, want := Makespan(Totals(it, a, 5)), LowerBound(it, 5); got != want {
				t.Errorf("%s: makespan %v, bound %v", start, got, want)
			}
		}
	})
	t.Run("no items", func(t *testing.T) {
		a, err := Balance(nil, 3, Options{})
		if err != nil || len(a) != 0 {
			t.Errorf("got %v, %v", a, err)
		}
	})
}

func TestBadInputRejected(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name    string
		items   []Item
		workers int
		opt     Options
		want    string
	}{
		{"zero weight", items(1, 0), 2, Options{}, `"k01": weight 0`},
		{"negative weight", items(-2, 1), 2, Options{}, `"k00": weight -2`},
		{"NaN weight", items(1, nan), 2, Options{}, `"k01": weight NaN`},
		{"infinite weight", items(math.Inf(1)), 2, Options{}, `weight +Inf`},
		{"duplicate key", []Item{{"a", 1}, {"a", 2}}, 2, Options{}, `"a" given twice`},
		{"no workers", items(1), 0, Options{}, "0 workers"},
		{"unknown start", items(1), 2, Options{Start: "random"}, `start "random"`},
		{"negative counter", items(1), 2, Options{CounterThreshold: -1}, "counter threshold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Balance(tc.items, tc.workers, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Balance: %v, want an error with %q", err, tc.want)
			}
			if _, err := Rebalance(tc.items, Assignment{}, tc.workers, tc.opt); err == nil {
				t.Error("Rebalance accepted it")
			}
			if tc.opt == (Options{}) {
				for name, f := range map[string]func([]Item, int) (Assignment, error){"RoundRobin": RoundRobin, "HashByDomain": HashByDomain, "LPT": LPT} {
					if _, err := f(tc.items, tc.workers); err == nil {
						t.Errorf("%s accepted it", name)
					}
				}
			}
		})
	}
}

func TestBalanceDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var it []Item
	for i := range 120 {
		it = append(it, Item{Key: fmt.Sprintf("site%03d", i), Weight: math.Exp(1.5 * r.NormFloat64())})
	}
	for _, start := range []Start{StartSnake, StartLPT} {
		a, _ := Balance(it, 7, Options{Seed: 42, Start: start})
		b, _ := Balance(it, 7, Options{Seed: 42, Start: start})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: the same seed gave two assignments", start)
		}
		ra, _ := Rebalance(it, a, 8, Options{Seed: 9, Start: start})
		rb, _ := Rebalance(it, a, 8, Options{Seed: 9, Start: start})
		if !reflect.DeepEqual(ra, rb) {
			t.Errorf("%s: Rebalance with the same seed gave two assignments", start)
		}
		lpt, _ := LPT(it, 7)
		if Makespan(Totals(it, a, 7)) > Makespan(Totals(it, lpt, 7)) && start == StartLPT {
			t.Errorf("LPT start ended worse than LPT")
		}
	}
}

func TestMeasures(t *testing.T) {
	it := items(4, 2, 2, 1, 1)
	a := Assignment{"k00": 0, "k01": 1, "k02": 1, "k03": 2, "k04": 2, "other": 1, "far": 7}
	tot := Totals(it, a, 3)
	if !slices.Equal(tot, []float64{4, 4, 2}) {
		t.Fatalf("totals %v", tot)
	}
	mean := 10.0 / 3
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"variance", Variance(tot), (2*(4-mean)*(4-mean) + (2-mean)*(2-mean)) / 3},
		{"makespan", Makespan(tot), 4 / mean},
		{"gap", Gap(tot), 2},
		{"lower bound", LowerBound(it, 3), 4 / mean},
		{"lower bound, mean dominates", LowerBound(it, 2), 1},
		{"empty", Makespan(nil) + Variance(nil) + Gap(nil) + LowerBound(nil, 3), 0},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestWeights(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name  string
		costs map[string][]float64
		want  map[string]float64
	}{
		{"empty", nil, map[string]float64{}},
		{"average over rounds, ÷ sum of averages", map[string][]float64{"a": {1, 3}, "b": {6}},
			map[string]float64{"a": 0.25, "b": 0.75}},
		{"nothing known: equal", map[string][]float64{"a": nil, "b": {}, "c": {0}, "d": {-1}},
			map[string]float64{"a": 0.25, "b": 0.25, "c": 0.25, "d": 0.25}},
		{"unknown keys take the mean known average", map[string][]float64{"a": {1, 3}, "b": {4}, "new": nil},
			map[string]float64{"a": 2.0 / 9, "b": 4.0 / 9, "new": 3.0 / 9}},
		{"unusable entries ignored", map[string][]float64{"a": {-1, nan, 0, inf, 2}, "b": {2}},
			map[string]float64{"a": 0.5, "b": 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Weights(tc.costs)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			var sum float64
			for k, w := range tc.want {
				if math.Abs(got[k]-w) > 1e-12 {
					t.Errorf("%s: %v, want %v", k, got[k], w)
				}
				sum += got[k]
			}
			if len(got) > 0 && math.Abs(sum-1) > 1e-12 {
				t.Errorf("weights add up to %v", sum)
			}
			if _, err := Balance(ItemsOf(got), 2, Options{}); err != nil {
				t.Errorf("Balance refused Weights' output: %v", err)
			}
		})
	}
}

func TestBaselines(t *testing.T) {
	it := items(1, 2, 3, 4, 5)
	rr, _ := RoundRobin(it, 2)
	if want := [][]string{{"k00", "k02", "k04"}, {"k01", "k03"}}; !reflect.DeepEqual(byWorker(it, rr, 2), want) {
		t.Errorf("round robin %v", byWorker(it, rr, 2))
	}
	l, _ := LPT(it, 2) // 5→0, 4→1, 3→1, 2→0, 1→0: totals 8 and 7
	if got := Totals(it, l, 2); !slices.Equal(got, []float64{8, 7}) {
		t.Errorf("LPT totals %v", got)
	}
	h1, _ := HashByDomain(it, 3)
	rev := slices.Clone(it)
	slices.Reverse(rev)
	h2, _ := HashByDomain(rev, 3)
	if !reflect.DeepEqual(h1, h2) {
		t.Errorf("hash partitioning depends on order")
	}
}
