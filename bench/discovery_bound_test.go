package main

import (
	"math"
	"testing"
)

// The bound is what a hand computation gives on small cases, and it moves the right
// way with the reads.
func TestDiscoveryP95Bound(t *testing.T) {
	// Four equal sites, 4 reads an hour: each read hourly (4/d = 4, d = 1 h), a
	// little less where one site may leave its share of the 5% late.
	got := discoveryP95Bound([]int{24, 24, 24, 24}, 24, 96, 24)
	if got < 0.9 || got > 1.0 {
		t.Errorf("four equal sites at one read an hour each: p95 bound %.3f h, want about 0.95-1 h", got)
	}
	// One site with 96% of the articles and three with the rest: the three are read
	// daily (their 4% of articles may be late), the busy one uses the rest.
	got = discoveryP95Bound([]int{96, 2, 1, 1}, 24, 24*(1+3.0/24), 24)
	if got < 0.9 || got > 1.01 {
		t.Errorf("one busy site read hourly, three quiet daily: p95 bound %.3f h, want about 1 h", got)
	}
	more := discoveryP95Bound([]int{50, 30, 10, 5, 3, 2}, 24, 200, 24)
	fewer := discoveryP95Bound([]int{50, 30, 10, 5, 3, 2}, 24, 100, 24)
	if !(more < fewer) {
		t.Errorf("p95 bound %.3f h with 200 reads, %.3f h with 100: want fewer reads to bound it higher", more, fewer)
	}
	if b := discoveryP95Bound([]int{5, 5}, 24, 1, 24); !math.IsInf(b, 1) {
		t.Errorf("1 read for 2 sites in a day: bound %v, want +Inf (not every site can be read daily)", b)
	}
}

// The p95 over every article published counts one never stored as never: a crawl
// that stored 9 of 10 has no p95 short of forever; one that stored all has its own.
func TestDiscoveryPercentileOfAll(t *testing.T) {
	lat := func(n int) []float64 {
		var xs []float64
		for i := range n {
			xs = append(xs, float64(n-i)) // unsorted on purpose
		}
		return xs
	}
	if got := discoveryPercentileOfAll(lat(9), 10, 0.95); !math.IsInf(got, 1) {
		t.Errorf("9 of 10 stored: p95 %v, want +Inf", got)
	}
	if got := discoveryPercentileOfAll(lat(20), 20, 0.95); got != 19 {
		t.Errorf("20 of 20 stored, latencies 1..20: p95 %v, want 19", got)
	}
	if got := discoveryPercentileOfAll(lat(19), 20, 0.95); got != 19 {
		t.Errorf("19 of 20 stored: p95 %v, want the 19th, 19", got)
	}
	if got := discoveryPercentileOfAll(nil, 0, 0.95); got != -1 {
		t.Errorf("nothing published: %v, want -1", got)
	}
}
