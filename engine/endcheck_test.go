package engine

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// A URL the store holds queued that never reached the queue in memory (a link
// lost on its way, as a restarted master lost whole subtrees) must not let the
// crawl say it ran dry: the end's check finds it in the store, names it in an
// error and queues it again. Before, the crawl ended without ever requesting it.
func TestCrawlDoesNotEndWithAURLLeftQueuedInTheStore(t *testing.T) {
	t.Parallel()
	site := startFreezableSite(t)
	o := testDefaults()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.Seeds = []string{site.url + "/p/0"}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Egress = []string{"bind:127.0.0.6"}
	o.Scope.MaxDepth = 1 // the seed and its 8 links
	o.HostRate = 1000
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.Revisit.Enabled = false
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	site.freeze("127.0.0.6")
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the seed's request", func() bool {
		site.mu.Lock()
		defer site.mu.Unlock()
		return site.hanging > 0
	})
	// Written to the store alone, as a link whose confirmation never came.
	lost := site.url + "/p/100"
	e.st.AddURLs([]store.URL{{URL: lost, Host: "127.0.0.1", Depth: 1}}, nil)
	if err := e.st.Flush(); err != nil {
		t.Fatal(err)
	}
	site.unfreeze()
	waitDone(t, e, patience)
	e.Close()
	pages := storedPages(t, o.DB)
	if !slices.Contains(pages, lost) {
		t.Fatalf("the crawl ended with %v stored; %s, queued in the store, was never fetched", pages, lost)
	}
	found := false
	for _, ev := range e.EventsSince(0, 0) {
		found = found || ev.Level == view.LevelError && strings.Contains(ev.Msg, lost)
	}
	if !found {
		t.Fatalf("no error event names %s, the URL found left behind", lost)
	}
}
