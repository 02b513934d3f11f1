package engine

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/config"
)

// A master restarted on its database alone (no seeds given) takes the results its
// workers sent while it was down as soon as its crew listens. A page among them is
// stored with its links, which must reach the queue: before, the crew started
// before the front had read the seeds' sites back from the store, the links of such
// a page were all judged off-site, and the subtree under it was never crawled (a
// test crawl ended 38 or 190 pages short, none of them ever requested). The start
// is held right after the crew started until the page is stored, which is the
// order a loaded box gave now and then.
func TestMasterRestartQueuesTheLinksOfResultsItFindsWaiting(t *testing.T) {
	site := startFreezableSite(t)
	dir, conn := natstest.Start(t)
	o := testDefaults()
	o.DB = filepath.Join(dir, "crawl.db")
	o.Seeds = []string{site.url + "/p/0"}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Scope.MaxDepth = 1 // the seed and its 8 links
	o.HostRate = 1000
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.Revisit.Enabled = false
	mo := config.MasterOptions{HeartbeatEvery: 200 * time.Millisecond}
	mo.Conn = conn("master")
	m1, err := NewMaster(o, mo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m1.Close() })
	site.freeze("127.0.0.2") // the worker's requests hang until the master is gone
	if err := m1.Start(); err != nil {
		t.Fatal(err)
	}
	startWorker(t, config.WorkerOptions{Conn: conn("w1"), Node: "w1", Egress: []string{"bind:127.0.0.2"}, AllowPrivate: []string{"127.0.0.0/8"}})
	waitFor(t, "the worker's first request", func() bool {
		site.mu.Lock()
		defer site.mu.Unlock()
		return site.hanging > 0
	})
	if err := m1.Close(); err != nil {
		t.Fatal(err)
	}

	o.Seeds = nil // restarted on its database alone
	mo.Conn = conn("master2")
	m2, err := NewMaster(o, mo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m2.Close() })
	crewStarted = func(e *Engine) {
		if e != m2 {
			return
		}
		site.unfreeze() // the seed's page is fetched and its result waits for the master
		waitFor(t, "the seed's page stored by the restarted master", func() bool {
			return e.Snapshot().Totals.PagesStored >= 1
		})
	}
	t.Cleanup(func() { crewStarted = nil })
	if err := m2.Start(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, m2, patience)
	m2.Close()
	pages := storedPages(t, o.DB)
	if len(pages) != 9 {
		t.Fatalf("stored %d pages (%s); want the seed and its 8 links: the links of the page the restarted master took first were lost",
			len(pages), strings.Join(pages, " "))
	}
}
