package front

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// A page withdrawn by steering (EndSteeredOut: processed, kind
// steered_out, parked at never, "no longer revisited") in a schema-18 store is made
// due by no upgrade: it stays parked, and the first tick does not queue it.
func TestASteeredOutPageStaysParkedThroughTheUpgrade(t *testing.T) {
	now := time.Now()
	const out = "http://a.test/withdrawn"
	opts := config.DefaultOptions()
	opts.QueueMemory = 100
	path := filepath.Join(t.TempDir(), "crawl.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.SavePage(store.Page{URL: out, FetchedAt: now.Add(-time.Minute), Status: 200, Body: []byte("<p>news</p>"),
		Revisit: &store.Revisit{URL: out, Class: "web_com", First: now.Add(-time.Hour), X: 1, Last: now.Add(-time.Minute), Next: revisit.Never, Fetches: 2}}, nil, nil)
	st.SetState(out, store.Processed, 0, SkipSteeredOut)
	st = reopenAtSchema18(t, st, path)
	if r, err := st.Revisit(out); err != nil || !r.Next.Equal(revisit.Never) {
		t.Errorf("steered-out page after open: next %v, %v; want still parked at never", r.Next, err)
	}
	f, fc := frontOn(t, &opts, nil, st)
	f.crawl = runningCrawl{fc}
	if err := f.Resume(); err != nil {
		t.Fatal(err)
	}
	f.QueueSeeds(nil, nil)
	f.RevisitTick(time.Now())
	st.Flush()
	var queued []string
	for _, p := range fc.placed {
		queued = append(queued, p.URL)
	}
	if slices.Contains(queued, out) {
		t.Errorf("the steered-out page was queued again by the first tick: %v", queued)
	}
}
