package main

import (
	"cmp"
	"math"
	"slices"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// discoveryLaneBound is discoveryP95Bound with the lane in it: the least p95 delay
// (seconds) that a schedule of periodic reads knowing every site's true article rate
// reaches on the articles the sites really published (heavy-tailed runs and all),
// when every fetch, read or article, takes one slot of a server that serves one a
// slot (the live bench's pacing proxy: slot seconds each) and the articles a read
// finds go ahead of the reads that came due. discoveryP95Bound lets the articles be
// fetched the moment a read finds them; here they wait for their slots, as every
// crawl's do, so the figure is one an engine could be held to.
//
// pubs[i] are site i's publication times (seconds; any origin); the articles published
// in [from, to) are measured, and the simulation runs from warm before from to the
// last slot that fetches a measured article. The schedules tried are the two
// families the Poller's doc comment weighs: reads split as rate^alpha (alpha 0, 0.25,
// 0.5: one common interval, between, the square-root rule), and the p95 linear
// program's (the k busiest sites at one interval, the rest daily), each spending a
// share use of the slots the articles leave (1, 0.9, 0.8: fewer reads, shorter
// queues); the least p95 over them is returned (+Inf: no schedule stores every
// measured article by the end). One source per site, phases spread evenly, every read
// lists everything its site published since its last: the best case for the schedule.
func discoveryLaneBound(pubs [][]float64, from, to, warm, slot float64) float64 {
	n := len(pubs)
	if n == 0 || slot <= 0 {
		return math.Inf(1)
	}
	hours := (to - from) / 3600
	rates := make([]float64, n) // articles per second, true, over the measured window
	total := 0.0
	for i, p := range pubs {
		c := 0
		for _, t := range p {
			if t >= from && t < to {
				c++
			}
		}
		rates[i] = float64(c) / (hours * 3600)
		total += rates[i]
	}
	if total == 0 {
		return 0
	}
	slotsPerSec := 1 / slot
	order := make([]int, n) // busiest first
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(rates[b], rates[a]) })
	const day = 86400.0
	best := math.Inf(1)
	for _, use := range []float64{1, 0.9, 0.8} {
		reads := use*slotsPerSec - total // reads per second
		if reads <= float64(n)/day {
			continue
		}
		var plans [][]float64
		for _, alpha := range []float64{0, 0.25, 0.5} {
			plans = append(plans, discLaneSplit(rates, reads, alpha, day))
		}
		for k := 1; k <= n; k++ {
			left := reads - float64(n-k)/day
			if left <= 0 {
				break
			}
			iv := make([]float64, n)
			for j, i := range order {
				if j < k {
					iv[i] = min(float64(k)/left, day)
				} else {
					iv[i] = day
				}
			}
			plans = append(plans, iv)
		}
		for _, iv := range plans {
			best = min(best, discLaneSimulate(pubs, iv, from, to, warm, slot))
		}
	}
	return best
}

// discLaneSplit is the intervals (seconds) of reads split as rate^alpha over reads
// per second, none longer than hi.
func discLaneSplit(rates []float64, reads, alpha, hi float64) []float64 {
	sum := 0.0
	for _, r := range rates {
		sum += math.Pow(max(r, 1e-12), alpha)
	}
	iv := make([]float64, len(rates))
	for i, r := range rates {
		f := reads * math.Pow(max(r, 1e-12), alpha) / sum
		iv[i] = min(1/f, hi)
	}
	return iv
}

// discLaneSimulate runs one schedule through the one-fetch-a-slot server and returns
// the p95 delay of the articles published in [from, to) (+Inf if one is never
// fetched by the time every read has passed to plus a day).
func discLaneSimulate(pubs [][]float64, iv []float64, from, to, warm, slot float64) float64 {
	n := len(pubs)
	start := from - warm
	next := make([]float64, n) // each site's next read due
	seen := make([]int, n)     // each site's articles found so far (pubs sorted)
	sorted := make([][]float64, n)
	for i, p := range pubs {
		sorted[i] = slices.Clone(p)
		slices.Sort(sorted[i])
		for seen[i] < len(sorted[i]) && sorted[i][seen[i]] < start {
			seen[i]++ // published before the simulation: not the schedule's to find
		}
		next[i] = start + iv[i]*float64(i)/float64(n)
	}
	measured := 0
	for _, p := range pubs {
		for _, t := range p {
			if t >= from && t < to {
				measured++
			}
		}
	}
	p95, _ := discLaneRun(start, from, to, slot, measured, next, func(due int, now float64) []float64 {
		first := seen[due]
		for seen[due] < len(sorted[due]) && sorted[due][seen[due]] <= now {
			seen[due]++
		}
		next[due] += iv[due]
		if next[due] < now {
			next[due] = now + iv[due] // a read that came late does not bunch the next
		}
		return sorted[due][first:seen[due]]
	})
	return p95
}

// discLaneRun is the one-fetch-a-slot server both lane bounds run. From start, each
// slot fetches the article found first and not yet fetched, or else reads the site
// most overdue (next[i] <= now): read returns the articles that read found and sets
// next[due]. It returns the p95 delay of the measured articles published in
// [from, to) (+Inf if one is never fetched by to plus a day) and the reads made in
// that window.
func discLaneRun(start, from, to, slot float64, measured int, next []float64, read func(due int, now float64) []float64) (p95 float64, reads int) {
	var queue []float64 // found articles' publication times, in the order found
	var delays []float64
	end := to + 86400
	for now := start; now < end && len(delays) < measured; now += slot {
		if len(queue) > 0 {
			if pub := queue[0]; pub >= from && pub < to {
				delays = append(delays, now-pub)
			}
			queue = queue[1:]
			continue
		}
		due := -1
		for i := range next {
			if next[i] <= now && (due < 0 || next[i] < next[due]) {
				due = i
			}
		}
		if due < 0 {
			continue // the slot goes unused
		}
		if now >= from && now < to {
			reads++
		}
		queue = append(queue, read(due, now)...)
	}
	if len(delays) < measured {
		return math.Inf(1), reads
	}
	slices.Sort(delays)
	return delays[int(math.Ceil(0.95*float64(len(delays))))-1], reads
}

// discLivePublished is what the live bench's sites published from a day before its
// measured window to the window's end, per site, in seconds from the web's epoch
// (the bounds' input), how many of them fall in the window, and the window [from, to).
func discLivePublished(l discLive, web *sandbox.Web) (pubs [][]float64, counts []int, from, to float64) {
	from, to = l.webDays(l.warmup).Seconds(), l.webDays(l.warmup+l.measure).Seconds()
	for _, ps := range web.PublishingSites() {
		var p []float64
		n := 0
		for _, a := range web.Published(ps.Domain, web.Epoch().Add(l.webDays(l.warmup-1)), web.Epoch().Add(l.webDays(l.warmup+l.measure))) {
			x := a.Published.Sub(web.Epoch()).Seconds()
			p = append(p, x)
			if x >= from && x < to {
				n++
			}
		}
		pubs, counts = append(pubs, p), append(counts, n)
	}
	return pubs, counts, from, to
}
