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
	t.Parallel()
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
	waitFor(t, "each quiet feed to be read 10 times", func() bool {
		return s.requested("/a") >= 10 && s.requested("/b") >= 10
	})
}

// With discovery.fetch_budget and no poll budget the reads get what the new pages
// expected leave of the fetch budget: two feeds that bring nothing new are read at
// about the whole budget's pace (here 20 fetches a second), not at their prior's
// max_poll/2 (30 minutes).
func TestFetchBudgetIsSpentOnReads(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	for _, f := range []string{"/a", "/b"} {
		s.raw[f] = static("application/rss+xml", `<rss version="2.0"><channel><title>quiet</title><item><link>http://`+h+f+`/1</link></item></channel></rss>`)
	}
	s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/a"><link rel="alternate" type="application/rss+xml" href="/b"></head><body>front</body></html>`
	o := discoveryPollOptions(t, "http://"+h+"/")
	o.Discovery.Probe = ProbeOff
	o.Discovery.MinPoll, o.Discovery.MaxPoll = 10*time.Millisecond, time.Hour
	o.Discovery.FetchBudget = 20 * 3600 // fetches per hour: 20 a second
	startEngine(t, o)
	waitFor(t, "each quiet feed to be read 10 times", func() bool {
		return s.requested("/a") >= 10 && s.requested("/b") >= 10
	})
}
