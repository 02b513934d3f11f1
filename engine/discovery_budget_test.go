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
			e := startEngine(t, o)
			t.Cleanup(func() {
				if !t.Failed() {
					return
				}
				count := map[string]int{}
				for _, p := range s.paths() {
					count[p]++
				}
				t.Logf("requests by path: %v", count)
				pl := e.disc.Poller()
				for _, f := range []string{"/a", "/b", "/"} {
					u := "http://" + h + f
					rv, rerr := e.st.Revisit(u)
					us, uerr := e.st.URLState(u)
					t.Logf("%s: poller knows %v shadowed %v interval %v rate %.3f; revisit next in %v (%v); state %v %s attempts %d (%v)",
						u, pl.Knows(u), pl.Shadowed(u), pl.Interval(u), pl.Rate(u), time.Until(rv.Next), rerr, us.State, us.ErrKind, us.Attempts, uerr)
				}
				snap := e.Snapshot()
				for _, g := range snap.Groups {
					t.Logf("lane %d hosts %+v", g.Lane, g.Hosts)
				}
				for _, l := range snap.Lanes {
					t.Logf("lane %d: %v %s gap %v %s", l.ID, l.Status, l.Current, l.Gap, l.GapWhy)
				}
				for _, ev := range e.EventsSince(0, 100) {
					t.Logf("log: %s %v %s: %s", ev.At.Format("15:04:05.000"), ev.Level, ev.Host, ev.Msg)
				}
			})
			waitFor(t, "each quiet feed to be read 10 times", func() bool {
				return s.requested("/a") >= 10 && s.requested("/b") >= 10
			})
		})
	}
}
