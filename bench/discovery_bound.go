package main

import (
	"cmp"
	"math"
	"slices"
)

// discoveryP95Bound is the least p95 delay to discovery (hours) that any schedule of
// periodic reads can reach on sites that published counts[i] articles in hours, with
// reads reads in all and every site read at least every hi hours: the discovery bench's
// cost goal and speed goal checked against each other. It assumes the best case for the
// schedule: one source per site, each site's rate known, Poisson publishing, the
// article fetched the moment it is found.
//
// A site read every T waits its articles a time uniform on [0, T], so the share of
// articles later than d is Σ_i (r_i/R)·max(0, 1 − d/T_i); with read frequencies
// x_i = 1/T_i that share and the reads Σ x_i are both linear in x, and the cheapest
// schedule keeping the share under 5% reads the busiest sites at interval d, the
// next one part of the way, and the rest every hi (a linear program's greedy
// solution). The least d whose cheapest schedule fits the reads is found by
// bisection. +Inf: the reads cannot even visit every site every hi hours.
func discoveryP95Bound(counts []int, hours, reads, hi float64) float64 {
	rates := make([]float64, 0, len(counts))
	total := 0.0
	for _, c := range counts {
		rates = append(rates, float64(c)/hours)
		total += float64(c) / hours
	}
	slices.SortFunc(rates, func(a, b float64) int { return cmp.Compare(b, a) }) // busiest first
	n := len(rates)
	budget := reads / hours // reads per hour
	if n == 0 || total == 0 {
		return 0
	}
	after := make([]float64, n+1) // after[k]: Σ rates from k on
	for k := n - 1; k >= 0; k-- {
		after[k] = after[k+1] + rates[k]
	}
	allowed := 0.05 * total
	cost := func(d float64) float64 {
		late := max(0, 1-d/hi) // share of a site read every hi that waits past d
		k := 0
		for k < n && late*after[k] > allowed {
			k++
		}
		if k == 0 {
			return float64(n) / hi
		}
		j := k - 1 // read at d only as much as the 5% needs
		left := allowed - late*after[k]
		x := min(1/d, max(1/hi, (1-left/rates[j])/d))
		return float64(j)/d + x + float64(n-k)/hi
	}
	if cost(hi) > budget {
		return math.Inf(1)
	}
	lo, up := math.Log(1e-6), math.Log(hi)
	for range 100 {
		m := (lo + up) / 2
		if cost(math.Exp(m)) <= budget {
			up = m
		} else {
			lo = m
		}
	}
	return math.Exp(up)
}
