package main

import (
	"math"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// On sites that publish in runs (a burst, then a long silence), reads timed by the
// age since the last article reach a lower p95 through the lane than any periodic
// schedule of the same slots; on the live bench's sites too (seed 1, figures
// logged with -v), so the periodic lane bound is not one for them.
func TestDiscoveryAgeLaneBound(t *testing.T) {
	// Ten sites, each publishing bursts of five articles a minute apart every six
	// hours, phases spread.
	var pubs [][]float64
	for i := range 10 {
		var p []float64
		for b := float64(i) * 2160; b < 3*86400; b += 6 * 3600 {
			for k := range 5 {
				p = append(p, b+60*float64(k))
			}
		}
		pubs = append(pubs, p)
	}
	from, to := 86400.0, 2*86400.0
	slot := 3600 / 24.0 // 24 fetches an hour for 8.3 articles an hour
	periodic := discoveryLaneBound(pubs, from, to, 86400, slot)
	age := discoveryAgeLaneBound(pubs, from, to, 86400, slot)
	t.Logf("bursts: periodic %.0f s, age-timed %.0f s", periodic, age)
	if !(age < periodic) {
		t.Errorf("bursty sites: age-timed reads' p95 %.0f s, want below the periodic bound %.0f s", age, periodic)
	}

	l := discLive{hosts: 60, dayReal: 30 * time.Second, backlog: 6 * time.Hour, warmup: 2, measure: 1.5, seed: 1, perArticle: 3}
	web := sandbox.NewWeb(discLiveWeb(l))
	rate := 0.0
	for _, ps := range web.PublishingSites() {
		rate += ps.Rate / 24
	}
	bench, _, bfrom, bto := discLivePublished(l, web)
	slot = 3600 / (0.7 * 3 * rate)
	periodic = discoveryLaneBound(bench, bfrom, bto, 86400, slot)
	age = discoveryAgeLaneBound(bench, bfrom, bto, 86400, slot)
	t.Logf("bench seed 1 at 0.7 of the budget: periodic %.0f s, age-timed %.0f s", periodic, age)
	if !(age < periodic) || math.IsInf(age, 1) {
		t.Errorf("bench seed 1 at 0.7: age-timed %.0f s, want below the periodic bound %.0f s", age, periodic)
	}
}
