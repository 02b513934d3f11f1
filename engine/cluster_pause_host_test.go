package engine_test

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/crew"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// TestAHostPausedOnTheMasterIsRequestedByNoWorker: a master and two workers; the
// operator pauses, on the master, a section host of a news site once its listing
// pages were read (its articles queued). The sandbox's request log shows no worker
// requesting it until it is resumed, while the same site's other section host (the
// same assignment unit, so the same worker) and the other site go on being fetched;
// resumed, it is fetched again. A window of four hand-outs per worker: the paused
// host's tasks must not take the window the others need.
func TestAHostPausedOnTheMasterIsRequestedByNoWorker(t *testing.T) {
	t.Parallel()
	cfg := smallWeb(41, 6)
	cfg.Layout.SectionsMin, cfg.Layout.SectionsMax = 2, 2
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = 6, 20 // 120 articles a section host
	c := prepareCluster(t, cfg, 300*time.Millisecond, nil)
	c.window = 4
	c.startMaster()
	w1, w2 := c.worker("w1", "127.0.0.2"), c.worker("w2", "127.0.0.3")

	var site sandbox.Site
	for _, s := range c.sb.Info().Sites {
		if s.Search == "" && len(s.Hosts) >= 3 {
			site = s
			break
		}
	}
	if site.Domain == "" {
		t.Fatalf("no news site with two section hosts in %+v", c.sb.Info().Sites)
	}
	paused, sibling := site.Hosts[1], site.Hosts[2]
	truth := c.sb.Truth()
	count := func(host string) (n int, urls map[string]bool) {
		urls = map[string]bool{}
		for _, r := range truth.Requests() {
			if r.Host == host {
				n++
				urls[r.URL] = true
			}
		}
		return n, urls
	}
	others := func() int {
		n := 0
		for _, r := range truth.Requests() {
			if r.Host != paused {
				n++
			}
		}
		return n
	}
	// Its section page and listing pages read: its articles wait at the master.
	enginetest.WaitFor(t, paused+" requested 4 times", func() bool { n, _ := count(paused); return n >= 4 })
	// A worker that answers after the master's wait (a loaded box) is no failure:
	// the master holds the pause all the same (crew.Unanswered), and the worker
	// carries it out when it reads it. The judgement starts once both hold it.
	holdOnMaster(t, c, paused, true)
	for _, w := range []*engine.Worker{w1, w2} {
		enginetest.WaitSnapshot(t, w.Engine(), paused+" paused on the worker", func(s view.Snapshot) bool {
			return slices.Contains(s.PausedHosts, paused)
		})
	}
	// What may still reach the sandbox: what was requested already, and what a lane
	// had in flight when the pause returned (on a loaded box a request sent before it
	// can reach the handler well after). Judged by those sets, not by the clock.
	_, allowed := count(paused)
	for _, w := range []interface{ Snapshot() view.Snapshot }{w1.Engine(), w2.Engine()} {
		for _, l := range w.Snapshot().Lanes {
			if u, err := url.Parse(l.Current); err == nil && u.Hostname() == paused && l.Status == view.LaneFetching {
				allowed[l.Current] = true
				allowed[u.Scheme+"://"+u.Host+"/robots.txt"] = true
			}
		}
	}
	sib, _ := count(sibling)
	all := others()
	// The others go on: a stall shows as this wait never ending.
	enginetest.WaitFor(t, sibling+" and the other hosts requested 20 more times while "+paused+" is paused", func() bool {
		n, _ := count(sibling)
		return n >= sib+20 && others() >= all+40
	})
	_, after := count(paused)
	for u := range after {
		if !allowed[u] {
			t.Errorf("%s requested while %s was paused on the master", u, paused)
		}
	}
	held := len(after)
	holdOnMaster(t, c, paused, false)
	enginetest.WaitFor(t, paused+" fetched again once resumed", func() bool { _, urls := count(paused); return len(urls) > held })
	c.master.Close()
}

// holdOnMaster pauses (or resumes) host on the master; a worker that did not answer
// in time is logged, not failed: the master holds the control all the same.
func holdOnMaster(t *testing.T, c *testCluster, host string, paused bool) {
	t.Helper()
	err := c.master.PauseHost(host, paused)
	if !crew.Holds(err) {
		t.Fatalf("PauseHost(%s, %v) on the master: %v", host, paused, err)
	}
	if err != nil {
		t.Logf("PauseHost(%s, %v) on the master, held but not answered: %v", host, paused, err)
	}
}
