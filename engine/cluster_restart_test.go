package engine_test

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
)

// TestMasterRestartKeepsWorkersResults: the master stops mid-crawl and a new one
// starts on the same database (no seeds given) and NATS server; the worker, still running, rejoins by
// itself and the crawl finishes with every page of a single-process crawl. Its results
// for the new master's hand-outs must reach it even though the worker published
// results for the old master's hand-outs moments before.
func TestMasterRestartKeepsWorkersResults(t *testing.T) {
	t.Parallel()
	c := startCluster(t, enginetest.SandboxConfig(5, 12))
	c.worker("w1", "127.0.0.2", "127.0.0.3")
	enginetest.WaitSnapshot(t, c.master, "w1 stores pages", func(s engine.Snapshot) bool { return s.Totals.PagesStored >= 60 })
	if err := c.master.Close(); err != nil {
		t.Fatal(err)
	}
	// Restarted on its database alone, as after a kill -9: its queued URLs are
	// the crawl (it refused to start, "nothing to crawl", without the seeds).
	c.opts.Seeds = nil
	c.startMaster()
	stats := c.waitDone(60 * time.Second)
	want := uniqueCrawl(t, c.sb)
	got := enginetest.StoredSet(t, c.opts.DB)
	if len(got) != len(want) {
		t.Fatalf("stored %d pages after the master's restart, a single-process crawl stores %d", len(got), len(want))
	}
	t.Logf("%d pages; %+v", len(got), stats.Cluster)
}
