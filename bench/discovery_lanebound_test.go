package main

import (
	"math"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// With the lane, the bound is no lower than without it, falls as slots shorten, and
// a schedule that cannot fetch the articles in time has none.
func TestDiscoveryLaneBound(t *testing.T) {
	// Two sites publishing every 10 and every 30 minutes over two days.
	var a, b []float64
	for s := 0.0; s < 2*86400; s += 600 {
		a = append(a, s)
	}
	for s := 0.0; s < 2*86400; s += 1800 {
		b = append(b, s)
	}
	pubs := [][]float64{a, b}
	from, to := 86400.0, 2*86400.0
	fast := discoveryLaneBound(pubs, from, to, 86400, 60)
	slow := discoveryLaneBound(pubs, from, to, 86400, 180)
	if !(fast < slow) {
		t.Errorf("p95 with a fetch a minute %.0f s, every 3 minutes %.0f s: want shorter slots to bound it lower", fast, slow)
	}
	// 8 articles an hour in all: a slot of 400 s (9 fetches an hour) leaves one read an hour.
	if got := discoveryLaneBound(pubs, from, to, 86400, 400); got < 1800 {
		t.Errorf("one read an hour for two sites: p95 %.0f s, want at least half an hour", got)
	}
	if got := discoveryLaneBound(pubs, from, to, 86400, 500); !math.IsInf(got, 1) {
		t.Errorf("7.2 fetches an hour for 8 articles an hour: p95 %.0f s, want +Inf", got)
	}
}

// On the live bench's sites, the lane only adds waits: its bound is never below the
// bound without it at the same reads, and it falls as the budget grows (the figures
// are logged: go test -v -run LaneBoundOnTheBench ./bench).
func TestDiscoveryLaneBoundOnTheBench(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		l := discLive{hosts: 60, dayReal: 30 * time.Second, backlog: 6 * time.Hour, warmup: 2, measure: 1.5, seed: seed, perArticle: 3}
		web := sandbox.NewWeb(discLiveWeb(l))
		rate := 0.0
		for _, ps := range web.PublishingSites() {
			rate += ps.Rate / 24
		}
		pubs, counts, from, to := discLivePublished(l, web)
		budget := 3 * rate
		prev := 0.0
		for _, share := range []float64{1, 0.9, 0.8, 0.7, 0.6} {
			lane := discoveryLaneBound(pubs, from, to, 86400, 3600/(share*budget))
			// The articles' true count over the window, as the bench's reads budget.
			var total int
			for _, c := range counts {
				total += c
			}
			reads := share*budget*l.measure*24 - float64(total)
			free := discoveryP95Bound(counts, l.measure*24, reads, 24) * 3600
			t.Logf("seed %d at %.1f of the budget: p95 bound %.0f s with the lane, %.0f s without", seed, share, lane, free)
			if lane < free*0.9 {
				t.Errorf("seed %d at %.1f: bound with the lane %.0f s below the one without %.0f s", seed, share, lane, free)
			}
			if lane < prev {
				t.Errorf("seed %d: bound %.0f s at %.1f of the budget, below %.0f s at more", seed, lane, share, prev)
			}
			prev = lane
		}
	}
}
