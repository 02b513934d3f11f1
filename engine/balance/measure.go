package balance

import (
	"math"
	"slices"
)

// Assignment says which worker holds each item: item key → worker index in
// [0, workers). Balance, Rebalance and the baselines return one entry per item.
type Assignment map[string]int

// Totals is each worker's weight total under a: the load the seed evens out (M3: a
// node's sum of its sites' and keywords' weights). Items a does not place, or places
// on a worker index outside [0, workers), count for no worker.
func Totals(items []Item, a Assignment, workers int) []float64 {
	t := make([]float64, max(workers, 0))
	for _, it := range items {
		if w, ok := a[it.Key]; ok && w >= 0 && w < workers {
			t[w] += it.Weight
		}
	}
	return t
}

// Variance is the population variance of the workers' totals: what the seed's swaps
// lower (step i-8: "权重方差"). 0 for no workers.
func Variance(totals []float64) float64 {
	if len(totals) == 0 {
		return 0
	}
	m := mean(totals)
	var s float64
	for _, t := range totals {
		s += (t - m) * (t - m)
	}
	return s / float64(len(totals))
}

// Makespan is the largest total ÷ the mean total: how much longer the slowest worker's
// round is than a perfectly even one (1 = perfect). 0 when there is no load.
func Makespan(totals []float64) float64 {
	m := mean(totals)
	if m <= 0 {
		return 0
	}
	return slices.Max(totals) / m
}

// Gap is the slowest worker's total minus the fastest's: what the seed compares to its
// threshold before balancing (step i-3). Options.Threshold is relative: Gap ÷ mean.
func Gap(totals []float64) float64 {
	if len(totals) == 0 {
		return 0
	}
	return slices.Max(totals) - slices.Min(totals)
}

// LowerBound is the smallest makespan any assignment of items to workers can have,
// max(largest item, total ÷ workers) ÷ mean: no worker can finish before the largest
// item, nor can all finish before the mean. 0 without items or workers.
func LowerBound(items []Item, workers int) float64 {
	if workers < 1 {
		return 0
	}
	var total, largest float64
	for _, it := range items {
		total += it.Weight
		largest = max(largest, it.Weight)
	}
	if total <= 0 {
		return 0
	}
	m := total / float64(workers)
	return max(largest, m) / m
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// relGap is Gap ÷ mean, the figure Options.Threshold bounds; +Inf-free: 0 without load.
func relGap(totals []float64) float64 {
	m := mean(totals)
	if m <= 0 || math.IsNaN(m) {
		return 0
	}
	return Gap(totals) / m
}
