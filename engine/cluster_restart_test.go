package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// TestMasterRestartKeepsWorkersResults: the master stops mid-crawl and a new one
// starts on the same database (no seeds given) and NATS server; the worker, still running, rejoins by
// itself and the crawl finishes with every page of a single-process crawl. Its results
// for the new master's hand-outs must reach it even though the worker published
// results for the old master's hand-outs moments before.
func TestMasterRestartKeepsWorkersResults(t *testing.T) {
	t.Parallel()
	c := startCluster(t, smallWeb(5, 12))
	ref := enginetest.StartReference(t, c.sb)
	c.worker("w1", "127.0.0.2", "127.0.0.3")
	enginetest.WaitSnapshot(t, c.master, "w1 stores pages", func(s view.Snapshot) bool { return s.Totals.PagesStored >= 60 })
	if err := c.master.Close(); err != nil {
		t.Fatal(err)
	}
	// Restarted on its database alone, as after a kill -9: its queued URLs are
	// the crawl (it refused to start, "nothing to crawl", without the seeds).
	c.opts.Seeds = nil
	c.startMaster()
	stats := c.waitDone(60 * time.Second)
	want := ref.Pages(t)
	got := enginetest.StoredSet(t, c.opts.DB)
	if len(got) != len(want) {
		t.Fatalf("stored %d pages after the master's restart, a single-process crawl stores %d", len(got), len(want))
	}
	t.Logf("%d pages; %+v", len(got), stats.Cluster)
}

// TestMasterRestartRefetchesNothing: a master stopped mid-crawl (its store left as
// a kill -9 leaves it: what it had handed out in progress) and started again on its
// database takes back what its two workers still hold and the results they send
// meanwhile, instead of queueing every URL in progress again: the sandbox sees at
// most 1% of the URLs requested twice (it saw about 10% before: each a request the
// site did not need to answer), and every page is stored once.
func TestMasterRestartRefetchesNothing(t *testing.T) {
	t.Parallel()
	c := prepareCluster(t, enginetest.SandboxConfig(11, 12), 300*time.Millisecond, nil)
	// No worker is taken for dead: a worker buried meanwhile has its tasks handed
	// out again, and the requests it had already sent are asked twice, which is
	// what a false death costs, not the restart. The default timeout (3
	// heartbeats, 900 ms here) is within what a loaded box can stall a worker for.
	c.timeout = time.Minute
	ref := enginetest.StartReference(t, c.sb)
	c.startMaster()
	c.worker("w1", "127.0.0.2", "127.0.0.3")
	c.worker("w2", "127.0.0.4", "127.0.0.5")
	enginetest.WaitSnapshot(t, c.master, "the workers store pages", func(s view.Snapshot) bool { return s.Totals.PagesStored >= 60 })
	if err := c.master.Close(); err != nil {
		t.Fatal(err)
	}
	c.opts.Seeds = nil
	restarted := time.Now() // for the failure message: requests before and after it
	c.startMaster()
	st := c.waitDone(60 * time.Second)
	asked := map[string]int{}
	how := map[string][]string{} // URL -> each request's source, status and start
	for _, r := range c.sb.Truth().Requests() {
		if r.Kind != "robots" && !enginetest.IsReference(r.IP) { // the reference crawl asks them all again
			asked[r.URL]++
			how[r.URL] = append(how[r.URL], fmt.Sprintf("%s %d %s", r.IP, r.Status, r.Start.Format("15:04:05.000")))
		}
	}
	want := ref.Pages(t)
	got := enginetest.StoredSet(t, c.opts.DB) // fails on a page stored twice
	if len(got) != len(want) {
		var missing []string
		for u := range want {
			if _, ok := got[u]; !ok && len(missing) < 5 {
				missing = append(missing, u)
			}
		}
		t.Fatalf("stored %d pages after the master's restart, a single-process crawl stores %d; missing %v (asked %v times); the restarted master's errors %v, skips %v, examples %v",
			len(got), len(want), missing, askedOf(asked, missing), st.Errors, st.Skipped, st.Examples)
	}
	twice := 0
	var examples []string
	for u, n := range asked {
		if n > 1 {
			twice++
			if len(examples) < 5 {
				examples = append(examples, fmt.Sprintf("%s (%s)", u, strings.Join(how[u], ", ")))
			}
		}
	}
	if twice*100 > len(asked) {
		t.Fatalf("%d of %d URLs requested twice across the master's restart (at %s); want at most 1%%; e.g. %s; the restarted master's cluster %+v",
			twice, len(asked), restarted.Format("15:04:05.000"), strings.Join(examples, "; "), st.Cluster)
	}
	t.Logf("%d pages, %d URLs requested, %d of them twice", len(got), len(asked), twice)
}

// askedOf is how many times the sandbox was asked each of urls.
func askedOf(asked map[string]int, urls []string) []int {
	out := make([]int, len(urls))
	for i, u := range urls {
		out[i] = asked[u]
	}
	return out
}
