package main

import (
	"math"
	"slices"
)

// discHazardPlan is a schedule that reads a site again after an interval that grows
// with the time since its last article: c · μ^beta · a^gamma seconds (μ the site's
// mean gap, a the age, both in seconds, a no less than the site's least gap: before
// it nothing is published), at least one slot, at most a day. gamma 0 is a periodic
// schedule split as rate^-beta; gamma > 0 reads a site that just published sooner
// than one quiet for long at the same rate, which pays when the gaps have a
// decreasing hazard (the sandbox's Pareto gaps: right after an article the next is
// likely soon). dated: the age is counted from the last article's publication time
// (a feed's or sitemap's date); else from the read that found it.
type discHazardPlan struct {
	c, beta, gamma float64
	dated          bool
}

// discLaneSimulateHazard runs plan through the one-fetch-a-slot server of
// discLaneSimulate and returns the p95 delay of the articles published in [from, to)
// (+Inf if one is never fetched) and the reads it made in that window.
func discLaneSimulateHazard(pubs [][]float64, plan discHazardPlan, from, to, warm, slot float64) (p95 float64, reads int) {
	n := len(pubs)
	start := from - warm
	sorted := make([][]float64, n)
	mean := make([]float64, n) // mean gap, seconds
	least := make([]float64, n)
	last := make([]float64, n) // the age's origin
	next := make([]float64, n)
	seen := make([]int, n)
	measured := 0
	for i, p := range pubs {
		sorted[i] = slices.Clone(p)
		slices.Sort(sorted[i])
		s := sorted[i]
		mean[i], least[i] = 86400, 0
		if len(s) > 1 {
			mean[i] = (s[len(s)-1] - s[0]) / float64(len(s)-1)
			least[i] = math.Inf(1)
			for j := 1; j < len(s); j++ {
				least[i] = min(least[i], s[j]-s[j-1])
			}
		}
		last[i] = start - mean[i]
		for seen[i] < len(s) && s[seen[i]] < start {
			last[i] = s[seen[i]]
			seen[i]++
		}
		for _, t := range s {
			if t >= from && t < to {
				measured++
			}
		}
		next[i] = start + slot*float64(i)
	}
	interval := func(i int, now float64) float64 {
		a := max(now-last[i], least[i], slot)
		wait := 0.0
		if plan.dated && now-last[i] < least[i] {
			wait = least[i] - (now - last[i]) // nothing can come before the least gap
		}
		d := plan.c * math.Pow(mean[i], plan.beta) * math.Pow(a, plan.gamma)
		return min(wait+max(d, slot), 86400)
	}
	return discLaneRun(start, from, to, slot, measured, next, func(due int, now float64) []float64 {
		first := seen[due]
		for seen[due] < len(sorted[due]) && sorted[due][seen[due]] <= now {
			if plan.dated {
				last[due] = sorted[due][seen[due]]
			}
			seen[due]++
		}
		if seen[due] > first && !plan.dated {
			last[due] = now
		}
		next[due] = now + interval(due, now)
		return sorted[due][first:seen[due]]
	})
}

// discHazardBest is the least p95 over c for one (beta, gamma): a golden-section
// search on log c (the p95 falls as c shrinks until the reads crowd the lane).
func discHazardBest(pubs [][]float64, beta, gamma float64, dated bool, from, to, warm, slot float64) (float64, discHazardPlan) {
	f := func(lc float64) float64 {
		p, _ := discLaneSimulateHazard(pubs, discHazardPlan{c: math.Exp(lc), beta: beta, gamma: gamma, dated: dated}, from, to, warm, slot)
		return p
	}
	// c's range: the interval at the mean age and mean gap from a slot to a day.
	unit := math.Pow(3600, beta+gamma)
	lo, hi := math.Log(slot/unit/10), math.Log(86400/unit*10)
	best, bestC := math.Inf(1), 0.0
	// A coarse scan first (the p95 is +Inf where the lane overflows), then refine.
	const steps = 16
	for k := 0; k <= steps; k++ {
		lc := lo + (hi-lo)*float64(k)/steps
		if p := f(lc); p < best {
			best, bestC = p, lc
		}
	}
	if math.IsInf(best, 1) {
		return best, discHazardPlan{}
	}
	w := (hi - lo) / steps
	a, b := bestC-w, bestC+w
	g := (math.Sqrt(5) - 1) / 2
	x1, x2 := b-g*(b-a), a+g*(b-a)
	f1, f2 := f(x1), f(x2)
	for range 14 {
		if f1 <= f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - g*(b-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + g*(b-a)
			f2 = f(x2)
		}
	}
	for _, c := range []struct{ p, lc float64 }{{f1, x1}, {f2, x2}} {
		if c.p < best {
			best, bestC = c.p, c.lc
		}
	}
	return best, discHazardPlan{c: math.Exp(bestC), beta: beta, gamma: gamma, dated: dated}
}

// discoveryAgeLaneBound is discoveryLaneBound over schedules that also use the time
// since each site's last article (discHazardPlan): the least p95 over beta 0, 0.25,
// 0.5 and gamma 0.25 to 1, counting the age from the article's date (knowing it and
// the site's least gap) or from the read that found it, each at its best c. gamma
// 0 is left to discoveryLaneBound, whose periodic schedules keep fixed phases.
func discoveryAgeLaneBound(pubs [][]float64, from, to, warm, slot float64) float64 {
	best := math.Inf(1)
	for _, dated := range []bool{false, true} {
		for _, beta := range []float64{0, 0.25, 0.5} {
			for _, gamma := range []float64{0.25, 0.5, 0.75, 1} {
				p, _ := discHazardBest(pubs, beta, gamma, dated, from, to, warm, slot)
				best = min(best, p)
			}
		}
	}
	return best
}
