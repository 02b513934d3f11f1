package engine

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
)

// A budget sets the pace of the reads instead of each source's expected news: two
// feeds that never change are read at the budget's pace (here 20 reads a second),
// where without one they would wait max_poll/2 (30 minutes), their prior. With
// discovery.poll_budget the reads get it all, split by the square-root rule; with
// discovery.fetch_budget and no poll budget they get what the new pages expected
// leave of it (all of it here: the feeds bring nothing new).
func TestBudgetSetsTheReadPace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		budget func(o *config.Options)
	}{
		{"poll_budget", func(o *config.Options) { o.Discovery.PollBudget = 20 * 3600 }},
		{"fetch_budget", func(o *config.Options) { o.Discovery.FetchBudget = 20 * 3600 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newDiscoSite(t)
			h := s.host
			for _, f := range []string{"/a", "/b"} {
				s.raw[f] = static("application/rss+xml", `<rss version="2.0"><channel><title>quiet</title><item><link>http://`+h+f+`/1</link></item></channel></rss>`)
			}
			s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/a"><link rel="alternate" type="application/rss+xml" href="/b"></head><body>front</body></html>`
			o := discoveryPollOptions(t, "http://"+h+"/")
			o.Discovery.Probe = config.ProbeOff
			o.Discovery.MinPoll, o.Discovery.MaxPoll = 10*time.Millisecond, time.Hour
			c.budget(&o)
			startEngine(t, o)
			waitFor(t, "each quiet feed to be read 10 times", func() bool {
				return s.requested("/a") >= 10 && s.requested("/b") >= 10
			})
		})
	}
}
