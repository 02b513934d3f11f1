package balance

import (
	"math"
	"sort"
)

// Weights turns cost tables into item weights (seed 003, formulas (1) and (2)): a
// key's weight is its average cost ÷ the sum of every key's average cost, so the
// weights add up to 1. A key is a news site, or a social site + keyword.
//
// A cost entry that is negative, zero, NaN or infinite is ignored, as if the round had
// not been recorded: a zero cost is a round in which the site was not fetched (its host
// was disabled, say), which says nothing about what it costs. A key with no usable entry
// is unknown. The seed's rule for unknown costs is "all take the same time" (初始…
// 花费时间未知时,认为…采集时间相同); when some keys are known and others not, an unknown
// key is given the mean of the known averages — it is assumed to cost what a typical
// known key costs — and then everything is normalised together. With nothing known at
// all, every key weighs 1 ÷ the number of keys. Nil or empty costs give an empty map.
func Weights(costs map[string][]float64) map[string]float64 {
	avg := make(map[string]float64, len(costs))
	var known []float64
	for k, cs := range costs {
		var sum float64
		var n int
		for _, c := range cs {
			if c > 0 && !math.IsInf(c, 1) { // NaN fails c > 0
				sum += c
				n++
			}
		}
		if n > 0 {
			avg[k] = sum / float64(n)
			known = append(known, avg[k])
		}
	}
	out := make(map[string]float64, len(costs))
	if len(costs) == 0 {
		return out
	}
	fill := 1.0 // nothing known: equal weights
	if len(known) > 0 {
		sort.Float64s(known) // a fixed summation order: the same weights on every run
		fill = mean(known)
	}
	keys := make([]string, 0, len(costs))
	for k := range costs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var total float64
	for _, k := range keys {
		a, ok := avg[k]
		if !ok {
			a = fill
		}
		out[k] = a
		total += a
	}
	for _, k := range keys {
		out[k] /= total
	}
	return out
}

// ItemsOf lists weights as items, by key, ready for Balance.
func ItemsOf(weights map[string]float64) []Item {
	items := make([]Item, 0, len(weights))
	for k, w := range weights {
		items = append(items, Item{Key: k, Weight: w})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Key < items[j].Key })
	return items
}
