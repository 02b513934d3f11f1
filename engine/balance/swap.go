package balance

import "math/rand/v2"

// dealState is one assignment under improvement: which worker holds each item, the
// items each worker holds (for drawing one at random), and the running totals.
type dealState struct {
	w       []float64 // item weights
	of      []int     // item → worker
	pos     []int     // item → its index in held[of[item]]
	held    [][]int   // worker → items
	tot     []float64 // worker → total weight
	minGain float64   // an exchange must lower Σ total² by more than 2×minGain
}

func newDealState(w []float64, workers int, of []int) *dealState {
	s := &dealState{
		w:    w,
		of:   append([]int(nil), of...),
		pos:  make([]int, len(w)),
		held: make([][]int, workers),
		tot:  make([]float64, workers),
	}
	var total float64
	for i, x := range w {
		j := s.of[i]
		s.pos[i] = len(s.held[j])
		s.held[j] = append(s.held[j], i)
		s.tot[j] += x
		total += x
	}
	// Float noise must not count as a gain: an exchange that only swaps two totals
	// would otherwise be kept back and forth for ever, resetting the counter.
	m := total / float64(workers)
	s.minGain = 1e-12 * m * m
	return s
}

// improve is the seed's swap loop (steps i-8, i-9): pick two workers at random and an
// item of each (or, unless swapsOnly, an item of one for an item or nothing of the
// other), exchange them, keep the exchange only if the variance of the totals falls,
// and stop after counterThreshold failures in a row. It returns the exchanges tried
// and kept.
//
// An exchange moves δ = w_i − w_j from worker a (total ta) to worker b (total tb); the
// mean is unchanged, so the variance falls exactly when Σ total² does, by
// 2δ(ta − tb − δ): only when δ lies strictly between 0 and ta − tb, which puts both
// new totals strictly between the old two. So a kept exchange never raises the
// largest total nor lowers the smallest: the makespan never grows.
func (s *dealState) improve(r *rand.Rand, counterThreshold int, swapsOnly bool) (tried, kept int) {
	n := len(s.tot)
	if n < 2 {
		return 0, 0
	}
	for failed := 0; failed < counterThreshold; {
		tried++
		a := r.IntN(n)
		b := r.IntN(n - 1)
		if b >= a {
			b++
		}
		na, nb := len(s.held[a]), len(s.held[b])
		i, j := -1, -1 // j == -1: a plain move of i
		if swapsOnly {
			if na == 0 || nb == 0 {
				failed++
				continue
			}
			i, j = s.held[a][r.IntN(na)], s.held[b][r.IntN(nb)]
		} else {
			if na+nb == 0 {
				failed++
				continue
			}
			// The item that goes over is drawn from both workers' items; the other
			// side answers with one of its items or its empty slot.
			k := r.IntN(na + nb)
			if k >= na {
				a, b, k, na, nb = b, a, k-na, nb, na
			}
			i = s.held[a][k]
			if x := r.IntN(nb + 1); x < nb {
				j = s.held[b][x]
			}
		}
		d := s.w[i]
		if j >= 0 {
			d -= s.w[j]
		}
		if d*(s.tot[a]-s.tot[b]-d) <= s.minGain {
			failed++
			continue
		}
		s.give(i, b)
		if j >= 0 {
			s.give(j, a)
		}
		s.tot[a] -= d
		s.tot[b] += d
		kept++
		failed = 0
	}
	return tried, kept
}

// give moves item i to worker to (totals are the caller's).
func (s *dealState) give(i, to int) {
	from, p := s.of[i], s.pos[i]
	last := s.held[from][len(s.held[from])-1]
	s.held[from][p], s.pos[last] = last, p
	s.held[from] = s.held[from][:len(s.held[from])-1]
	s.of[i], s.pos[i] = to, len(s.held[to])
	s.held[to] = append(s.held[to], i)
}
