package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// TestAWorkerPausedOnTheMasterStaysPausedThroughItsRestart: the operator pauses
// w1 on the master; w1's process restarts (a new incarnation of the name). It
// comes back paused, as the master's Nodes pane says, and the sandbox's request
// log shows no request from its address while w2 goes on; resumed, it fetches
// (its sites went to w2 while it was away: the resume gives it its share back).
func TestAWorkerPausedOnTheMasterStaysPausedThroughItsRestart(t *testing.T) {
	t.Parallel()
	cfg := smallWeb(43, 6)
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = 6, 20 // work left for both after the restart
	c := startCluster(t, cfg)
	w1 := c.worker("w1", "127.0.0.2")
	c.worker("w2", "127.0.0.3")
	from := func(ip string, since time.Time) int { return requestsFrom(c, ip, since) }
	enginetest.WaitFor(t, "w1 fetching", func() bool { return from("127.0.0.2", time.Time{}) > 0 })
	if err := c.master.PauseNode("w1", true); err != nil {
		t.Fatal(err)
	}
	w1.Close()
	restart := time.Now()
	// The restarted w1 leaves from an address of its own: a request the closed w1
	// had sent can reach the sandbox's handler after the restart on a loaded box,
	// and would be counted as the restarted w1's.
	w1 = c.worker("w1", "127.0.0.4") // the join's reply is applied before StartWorker returns
	if s := w1.Engine().Snapshot().State; s != view.StatePaused {
		t.Errorf("w1 restarted after the operator paused it on the master is %v", s)
	}
	nodeState := func(s view.Snapshot) view.NodeState { return nodeStateOf(s, "w1") }
	w2 := from("127.0.0.3", restart)
	enginetest.WaitFor(t, "w2 fetching 20 more pages", func() bool { return from("127.0.0.3", restart) >= w2+20 })
	if st := nodeState(c.master.Snapshot()); st != view.NodePaused {
		t.Errorf("the master's Nodes pane shows the restarted w1 %v, want %v", st, view.NodePaused)
	}
	if n := from("127.0.0.4", restart); n > 0 {
		t.Errorf("w1, paused on the master, made %d requests after its restart", n)
	}
	if err := c.master.PauseNode("w1", false); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "w1 fetching once resumed", func() bool { return from("127.0.0.4", restart) > 0 })
	c.master.Close()
}

// TestAWorkerPausedOnTheMasterStaysPausedThroughTheMastersRestart: the operator
// pauses w1; the master stops and starts again on its database while w1 runs on.
// w1 rejoins the restarted master paused, as the Nodes pane says, and the sandbox
// sees no request from its address while w2 goes on.
func TestAWorkerPausedOnTheMasterStaysPausedThroughTheMastersRestart(t *testing.T) {
	t.Parallel()
	cfg := smallWeb(45, 6)
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = 6, 20 // work left for w2 after the restart
	c := startCluster(t, cfg)
	w1 := c.worker("w1", "127.0.0.2")
	c.worker("w2", "127.0.0.3")
	from := func(ip string, since time.Time) int { return requestsFrom(c, ip, since) }
	nodeState := func(s view.Snapshot) view.NodeState { return nodeStateOf(s, "w1") }
	enginetest.WaitFor(t, "w1 fetching", func() bool { return from("127.0.0.2", time.Time{}) > 0 })
	pauseW1(t, c, w1)
	if err := c.master.Close(); err != nil {
		t.Fatal(err)
	}
	restart := time.Now()
	c.opts.Seeds = nil
	c.startMaster()
	enginetest.WaitSnapshot(t, c.master, "w1 rejoined", func(s view.Snapshot) bool {
		st := nodeState(s)
		return st != "" && st != view.NodeState("awaited")
	})
	w2 := from("127.0.0.3", restart)
	enginetest.WaitFor(t, "w2 fetching 20 more pages", func() bool { return from("127.0.0.3", restart) >= w2+20 })
	if s := w1.Engine().Snapshot().State; s != view.StatePaused {
		t.Errorf("w1, paused on the master, is %v after the master's restart", s)
	}
	if st := nodeState(c.master.Snapshot()); st != view.NodePaused {
		t.Errorf("the restarted master's Nodes pane shows w1 %v, want %v", st, view.NodePaused)
	}
	if n := from("127.0.0.2", restart); n > 0 {
		t.Errorf("w1, paused on the master, made %d requests after the master's restart", n)
	}
	c.master.Close()
}

// TestAWorkerJoiningWhileAnotherIsPausedTakesThePausedOnesSites: w1 and w2
// crawl; the operator pauses w2, then w3 joins. The join evens the sites out over
// the active workers alone: the master's Nodes pane shows w2 holding none, w3 its
// share of all of them, and the crawl ends with w2 still paused. Before, the join
// evened them over w2 too: of the crawl's two sites w2 kept its own, held in its
// paused lanes, w3 was dealt none, and the crawl waited on w2 until its resume.
func TestAWorkerJoiningWhileAnotherIsPausedTakesThePausedOnesSites(t *testing.T) {
	t.Parallel()
	c := startCluster(t, smallWeb(47, 6))
	c.worker("w1", "127.0.0.2")
	w2 := c.worker("w2", "127.0.0.3")
	sites := sitesOf
	enginetest.WaitSnapshot(t, c.master, "w1 and w2 holding sites", func(s view.Snapshot) bool {
		return sites(s, "w1") > 0 && sites(s, "w2") > 0
	})
	if err := c.master.PauseNode("w2", true); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitSnapshot(t, w2.Engine(), "w2 paused", func(s view.Snapshot) bool { return s.State == view.StatePaused })
	c.worker("w3", "127.0.0.4") // the join's deal is made before StartWorker returns
	s := c.master.Snapshot()
	if n := sites(s, "w2"); n != 0 {
		t.Fatalf("after w3's join the paused w2 holds %d sites (w1 %d, w3 %d); want none", n, sites(s, "w1"), sites(s, "w3"))
	}
	if w1, w3 := sites(s, "w1"), sites(s, "w3"); w3 < w1-1 {
		t.Errorf("after w3's join w1 holds %d sites and w3 %d; want them even", w1, w3)
	}
	stats := c.waitDone(time.Minute)
	if st := nodeStateOf(c.master.Snapshot(), "w2"); st != view.NodePaused {
		t.Errorf("w2 is %v at the crawl's end, want still %v", st, view.NodePaused)
	}
	t.Logf("%+v", stats.Cluster)
}

// TestAPausedWorkerRejoiningARestartedMasterIsDealtNoSite: the operator pauses w1;
// the master stops and starts again on its database. w2 rejoins first, then w1
// (its heartbeats held back until then). w1's join says it is paused: the restarted
// master's log line for it says so, its sites go to w2, and while w2 goes on the
// Nodes pane shows w1 paused holding none and the sandbox sees no request from it.
// A rejoin that does not carry the pause makes w1 active until its first
// heartbeat: the join deals it its share of the sites, which then sit in its
// paused lanes.
func TestAPausedWorkerRejoiningARestartedMasterIsDealtNoSite(t *testing.T) {
	t.Parallel()
	cfg := smallWeb(49, 6)
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = 6, 20 // work left for w2 after the restart
	c := startCluster(t, cfg)
	w1 := c.worker("w1", "127.0.0.2")
	c.worker("w2", "127.0.0.3")
	from := func(ip string, since time.Time) int { return requestsFrom(c, ip, since) }
	enginetest.WaitSnapshot(t, c.master, "w1 and w2 holding sites", func(s view.Snapshot) bool {
		return sitesOf(s, "w1") > 0 && sitesOf(s, "w2") > 0
	})
	pauseW1(t, c, w1)
	resumeBeats := w1.SilenceHeartbeats() // w1 rejoins once w2 did: it learns of the restart from a heartbeat
	t.Cleanup(resumeBeats)
	if err := c.master.Close(); err != nil {
		t.Fatal(err)
	}
	restart := time.Now()
	c.opts.Seeds = nil
	c.startMaster()
	enginetest.WaitSnapshot(t, c.master, "w2 rejoined", func(s view.Snapshot) bool { return nodeStateOf(s, "w2") == view.NodeActive })
	resumeBeats()
	joined := c.joinLine(t, "w1")
	if !strings.Contains(joined, "paused by the operator") {
		t.Errorf("the restarted master took w1's rejoin for an active worker's: %q", joined)
	}
	w2 := from("127.0.0.3", restart)
	enginetest.WaitFor(t, "w2 fetching 20 more pages", func() bool { return from("127.0.0.3", restart) >= w2+20 })
	s := c.master.Snapshot()
	if st, n := nodeStateOf(s, "w1"), sitesOf(s, "w1"); st != view.NodePaused || n != 0 {
		t.Errorf("the restarted master's Nodes pane shows w1 %v holding %d sites; want %v holding none (w2 holds %d)",
			st, n, view.NodePaused, sitesOf(s, "w2"))
	}
	if n := from("127.0.0.2", restart); n > 0 {
		t.Errorf("w1, paused on the master, made %d requests after the master's restart", n)
	}
	t.Logf("%s", joined)
	c.master.Close()
}

// sitesOf is how many sites node name holds in a snapshot's Nodes pane (-1 when
// not listed).
func sitesOf(s view.Snapshot, name string) int {
	for _, n := range s.Nodes {
		if n.Name == name {
			return n.Sites
		}
	}
	return -1
}

// requestsFrom counts the requests the sandbox saw from ip that began at since or
// after.
func requestsFrom(c *testCluster, ip string, since time.Time) int {
	n := 0
	for _, r := range c.sb.Truth().Requests() {
		if r.IP == ip && !r.Start.Before(since) {
			n++
		}
	}
	return n
}

// nodeStateOf is node name's state in a snapshot's Nodes pane ("" when not listed).
func nodeStateOf(s view.Snapshot, name string) view.NodeState {
	for _, n := range s.Nodes {
		if n.Name == name {
			return n.State
		}
	}
	return ""
}

// pauseW1 pauses w1 on the master and returns once w1 says it is paused and its
// lanes' hands are empty: a request w1 had on the wire at the pause may still
// reach the sandbox until then, so a count of its requests starts after.
func pauseW1(t *testing.T, c *testCluster, w1 *engine.Worker) {
	t.Helper()
	if err := c.master.PauseNode("w1", true); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitSnapshot(t, w1.Engine(), "w1 paused", func(s view.Snapshot) bool { return s.State == view.StatePaused })
	enginetest.WaitSnapshot(t, w1.Engine(), "w1's lanes idle", func(s view.Snapshot) bool {
		for _, l := range s.Lanes {
			if l.Status == view.LaneFetching {
				return false
			}
		}
		return true
	})
}
