package engine

import (
	"testing"
	"time"
)

// Issue 18's bench: with discovery.poll_budget the crawl spends that many feed and
// sitemap reads per hour, split by the square-root rule, instead of reading each about
// once per new URL it expects. A feed that never changes is then read at the budget's
// pace (here about 20 reads a second over two feeds); without a budget it would wait
// max_poll/2 (30 minutes) between reads, its prior.
func TestPollBudgetSetsTheReadPace(t *testing.T) {
	s := newDiscoSite(t)
	h := s.host
	for _, f := range []string{"/a", "/b"} {
		s.raw[f] = static("application/rss+xml", `<rss version="2.0"><channel><title>quiet</title><item><link>http://`+h+f+`/1</link></item></channel></rss>`)
	}
	s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/a"><link rel="alternate" type="application/rss+xml" href="/b"></head><body>front</body></html>`
	o := discoveryPollOptions(t, "http://"+h+"/")
	o.Discovery.Probe = ProbeOff
	o.Discovery.MinPoll, o.Discovery.MaxPoll = 10*time.Millisecond, time.Hour
	o.Discovery.PollBudget = 20 * 3600 // reads per hour: 20 a second
	startEngine(t, o)
	waitForLong(t, 10*time.Second, "each quiet feed to be read 10 times", func() bool {
		return s.requested("/a") >= 10 && s.requested("/b") >= 10
	})
}

func TestPollBudgetMustNotBeNegative(t *testing.T) {
	o := DefaultOptions()
	o.Discovery.PollBudget = -1
	if err := o.Discovery.validate(); err == nil {
		t.Fatal("a negative discovery.poll_budget was accepted")
	}
}
