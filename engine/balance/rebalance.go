package balance

import (
	"math"
	"sort"
)

// Move is one item changing hands: From −1 for an item the old assignment did not
// hold (a new site), To −1 for one the new assignment dropped (a site removed).
type Move struct {
	Key      string
	From, To int
}

// Moves lists what changes from old to new, by key: the plan the console shows
// before a rebalance is applied.
func Moves(old, new Assignment) []Move {
	var out []Move
	for k, to := range new {
		if from, ok := old[k]; !ok {
			out = append(out, Move{Key: k, From: -1, To: to})
		} else if from != to {
			out = append(out, Move{Key: k, From: from, To: to})
		}
	}
	for k, from := range old {
		if _, ok := new[k]; !ok {
			out = append(out, Move{Key: k, From: from, To: -1})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Rebalance is Balance for a crawl already under way: it returns an assignment of
// items to workers that is as even as Balance's but moves as few items as it can,
// since every move hands a site's hosts from one worker to another.
//
// Items that current does not place on a worker in [0, workers) — new sites, or those
// of a worker that left — are placed first, heaviest first on the lightest worker.
// If then the gap between the slowest and fastest worker is at most Threshold × the
// mean (seed step i-3), that is the answer: nothing else moves. Otherwise the
// candidates are: Balance's IterationThreshold results, each with its workers
// renumbered to keep the most items where they are (an optimal matching: the
// numbering of a fresh deal means nothing); the swap loop run IterationThreshold
// times from the current assignment; the current assignment; and a greedy descent
// from it that moves the fewest items it can. Of the candidates whose makespan is
// within Tolerance of the smallest, the one with the fewest moves wins, then the
// lowest variance.
func Rebalance(items []Item, current Assignment, workers int, opt Options) (Assignment, error) {
	if err := checkItems(items, workers); err != nil {
		return nil, err
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	order := byWeight(items)
	w := make([]float64, len(order))
	cur := make([]int, len(order)) // the current worker, −1 if none
	base := make([]float64, workers)
	var orphans []int
	for i, k := range order {
		w[i] = items[k].Weight
		cur[i] = -1
		if j, ok := current[items[k].Key]; ok && j >= 0 && j < workers {
			cur[i] = j
			base[j] += w[i]
		} else {
			orphans = append(orphans, i)
		}
	}
	placed := append([]int(nil), cur...)
	ow := make([]float64, len(orphans))
	for x, i := range orphans {
		ow[x] = w[i]
	}
	for x, j := range lptDeal(ow, workers, base) {
		placed[orphans[x]] = j
	}
	if relGap(exactTotals(w, placed, workers)) <= opt.Threshold {
		return assignmentOf(items, order, placed), nil
	}

	cands := [][]int{placed}
	start := deal(w, workers, opt.Start)
	for k := 0; k < opt.IterationThreshold; k++ {
		one := opt
		one.IterationThreshold = 1
		cands = append(cands, relabel(bestOf(w, workers, start, one, uint64(k)), cur, workers))
		cands = append(cands, bestOf(w, workers, placed, one, uint64(opt.IterationThreshold+k)))
	}
	type scored struct {
		of    []int
		ms, v float64
		moves int
	}
	var sc []scored
	minMs := math.Inf(1)
	score := func(of []int) {
		t := exactTotals(w, of, workers)
		s := scored{of: of, ms: Makespan(t), v: Variance(t)}
		for i := range of {
			if of[i] != cur[i] {
				s.moves++
			}
		}
		sc = append(sc, s)
		minMs = min(minMs, s.ms)
	}
	for _, of := range cands {
		score(of)
	}
	tol := max(opt.Tolerance, 0)
	score(fewMoves(w, placed, workers, minMs+tol))
	best := -1
	for x, s := range sc {
		if s.ms > minMs+tol {
			continue
		}
		if best < 0 || s.moves < sc[best].moves || s.moves == sc[best].moves && s.v < sc[best].v {
			best = x
		}
	}
	return assignmentOf(items, order, sc[best].of), nil
}

// fewMoves improves placed greedily, fewest items first: while the largest total is
// above target × the mean, it applies the move or swap involving the heaviest worker
// that lowers the variance most per item moved. It reaches an even assignment in
// about as many moves as the load to shift needs, where the random swap loop also
// trades items between workers that were already even.
func fewMoves(w []float64, placed []int, workers int, target float64) []int {
	s := newDealState(w, workers, placed)
	m := 0.0
	for _, x := range w {
		m += x
	}
	m /= float64(workers)
	for range len(w) {
		h := 0
		for j := range s.tot {
			if s.tot[j] > s.tot[h] {
				h = j
			}
		}
		if s.tot[h] <= target*m {
			break
		}
		bi, bj, bb, best := -1, -1, -1, s.minGain
		for _, i := range s.held[h] {
			for b := range s.tot {
				if b == h {
					continue
				}
				diff := s.tot[h] - s.tot[b]
				if g := w[i] * (diff - w[i]); g > best { // a plain move: one item
					bi, bj, bb, best = i, -1, b, g
				}
				for _, j := range s.held[b] {
					d := w[i] - w[j]
					if g := d * (diff - d) / 2; g > best { // a swap moves two
						bi, bj, bb, best = i, j, b, g
					}
				}
			}
		}
		if bi < 0 {
			break
		}
		d := w[bi]
		s.give(bi, bb)
		if bj >= 0 {
			d -= w[bj]
			s.give(bj, h)
		}
		s.tot[h] -= d
		s.tot[bb] += d
	}
	return s.of
}

// relabel renumbers the workers of of so that as many items as possible keep their
// worker in cur (−1: none): the numbering of a fresh deal carries no meaning, and a
// renumbering changes no total.
func relabel(of, cur []int, workers int) []int {
	keep := make([][]int64, workers) // keep[g][j]: items of new group g now on worker j
	for g := range keep {
		keep[g] = make([]int64, workers)
	}
	for i, g := range of {
		if cur[i] >= 0 {
			keep[g][cur[i]]++
		}
	}
	cost := make([][]int64, workers)
	for g := range cost {
		cost[g] = make([]int64, workers)
		for j := range cost[g] {
			cost[g][j] = -keep[g][j]
		}
	}
	to := hungarian(cost)
	out := make([]int, len(of))
	for i, g := range of {
		out[i] = to[g]
	}
	return out
}

// hungarian solves the square assignment problem: the permutation row → column of
// least total cost (Kuhn–Munkres with potentials, O(n³)).
func hungarian(cost [][]int64) []int {
	n := len(cost)
	const inf = math.MaxInt64 / 4
	u, v := make([]int64, n+1), make([]int64, n+1)
	p, way := make([]int, n+1), make([]int, n+1) // p[col] = row (1-based), 0 = free
	minv := make([]int64, n+1)
	used := make([]bool, n+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j], used[j] = inf, false
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], int64(inf), 0
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				if c := cost[i0-1][j-1] - u[i0] - v[j]; c < minv[j] {
					minv[j], way[j] = c, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	row := make([]int, n)
	for j := 1; j <= n; j++ {
		row[p[j]-1] = j - 1
	}
	return row
}
