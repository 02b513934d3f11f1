package engine_test

import (
	"bytes"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// TestReleaseAnsweredLateLosesNoTask: a worker that answers a release after the
// master stopped waiting for it (a process stalled on a loaded box) still hands the
// released tasks back, with its next heartbeat, so the unit moves on: the worker
// that joined and was dealt a keyword shard searches it. Were they lost with the
// reply, the master would wait for their results until it took the first worker
// for dead, and the shard would sit idle meanwhile.
// The test checks its premise (the shard dealt to w2 has tasks out on w1, so a
// release is asked): it fails saying so, at once, when it does not hold.
func TestReleaseAnsweredLateLosesNoTask(t *testing.T) {
	t.Parallel()
	cfg := enginetest.SandboxConfig(21, 24)
	cfg.Search.PagesPerKeyword, cfg.Search.ResultsPerPage, cfg.Search.Quota = 100, 1, 1_000_000
	var social *sandbox.Site
	c := prepareCluster(t, cfg, 300*time.Millisecond, func(o *config.Options, sb *sandbox.Sandbox) {
		o.Seeds = nil
		social = searchSite(sb)
		if social == nil {
			return
		}
		social.Keywords = social.Keywords[:2] // one shard for each worker
		o.Sites = []config.SiteOptions{{Name: social.Domain, Kind: config.SiteSocial, Search: social.Search,
			Pages: 100, Keywords: social.Keywords, Class: social.Class}}
	})
	if social == nil {
		t.Skip("this sandbox seed has no social site with two keywords")
	}
	c.window = 20 // a window's share of each shard queued on the worker, the rest at the master
	// No worker is taken for dead: burying the stalled one would queue what it held
	// again and hide a lost hand-back.
	c.timeout = 10 * time.Minute
	c.startMaster()
	// searchedFrom tells which keywords ip searched.
	searchedFrom := func(ip string) map[string]bool {
		out := map[string]bool{}
		for _, r := range c.sb.Truth().Requests() {
			if u, err := url.Parse(r.URL); err == nil && r.IP == ip && u.Path == "/search" {
				out[u.Query().Get("q")] = true
			}
		}
		return out
	}
	w1 := c.worker("w1", "127.0.0.2")
	enginetest.WaitFor(t, "w1, alone, searching both keyword shards", func() bool { return len(searchedFrom("127.0.0.2")) == 2 })

	resume := engine.StallWorker(w1)
	t.Cleanup(resume)
	// A failure below says what the master saw and where the cluster's goroutines
	// stand: a release given up on is logged within 5 s of the join, so a wait of
	// minutes is a release never asked for or a master that stopped.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, n := range c.master.Snapshot().Nodes {
			t.Logf("node %s: %s, heartbeat %s, queue %d, keyword shards %d, hosts %d", n.Name, n.State, n.Heartbeat.Format("15:04:05.000"), n.Queue, n.Keywords, n.Hosts)
		}
		for _, ev := range c.master.EventsSince(0, 200) {
			t.Logf("master log: %s %v %s: %s", ev.At.Format("15:04:05.000"), ev.Level, ev.Host, ev.Msg)
		}
		buf := make([]byte, 8<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range bytes.Split(buf, []byte("\n\n")) {
			if bytes.Contains(g, []byte("engine/master")) || bytes.Contains(g, []byte("engine/worker")) {
				t.Logf("goroutine: %s", g)
			}
		}
	})
	c.worker("w2", "127.0.0.3") // dealt one of w1's shards: w1 is asked to release it
	enginetest.WaitFor(t, "the master giving up on w1's answer to the release", func() bool {
		for _, ev := range c.master.EventsSince(0, 1000) {
			if strings.Contains(ev.Msg, "worker w1: release of") {
				return true
			}
		}
		// The premise: both shards have tasks out on w1 when w2 joins, so the one
		// dealt to w2 waits for w1's release. A shard with none out moves at once
		// (no release is asked), and w2 searches it while w1 is stalled.
		if len(searchedFrom("127.0.0.3")) > 0 {
			t.Fatal("w2 searched before any release was given up on: the shard it was dealt had no task out on w1 " +
				"when it joined and moved at once, so this test's premise (a release asked of the stalled w1) does not hold")
		}
		return false
	})
	resume()
	enginetest.WaitFor(t, "w2 searching the keyword shard it was dealt", func() bool { return len(searchedFrom("127.0.0.3")) > 0 })
}
