package feeds

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
)

// A feed that had a busy run and went quiet is read less as the crawl's
// rate_half_life says: with an hour, six quiet hours after the run leave a small
// share of its rate; with the default day, most of it.
func TestRateHalfLifeReachesThePoller(t *testing.T) {
	rateAfterQuiet := func(half time.Duration) float64 {
		o := config.DefaultDiscovery()
		o.RateHalfLife = half
		d := New(Options{Discovery: o}, nopCrawl{}, nil)
		const src = "http://news.example/feed.xml"
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		d.poller.Observe(src, t0, 0, false)
		d.poller.Observe(src, t0.Add(time.Hour), 30, false)
		for h := 2; h <= 7; h++ {
			d.poller.Observe(src, t0.Add(time.Duration(h)*time.Hour), 0, false)
		}
		return d.poller.Rate(src)
	}
	short, day := rateAfterQuiet(time.Hour), rateAfterQuiet(24*time.Hour)
	if short > day/4 {
		t.Fatalf("after six quiet hours the rate is %.3f/h with a 1h half-life and %.3f/h with 24h: the option does not reach the Poller", short, day)
	}
}
