package engine

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store"
)

// A crawl stopped while its lanes are fetching records each lane's pages: stats'
// lane history has no lane left open and counts what they fetched. Only a lane that
// ran dry was recorded before, so a stopped crawl's lanes stayed open with 0 pages.
func TestStoppedCrawlClosesItsLanesWithTheirPages(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 2, 100000, 2*time.Millisecond) // far more than the test fetches: lanes never run dry
	o := testOptions(t, w)
	e := startEngine(t, o)
	deadline := time.Now().Add(patience)
	for e.Stats().PagesFetched < 40 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d pages fetched", e.Stats().PagesFetched)
		}
		time.Sleep(10 * time.Millisecond)
	}
	open := len(e.Snapshot().Lanes)
	e.Stop()
	fetched := e.Stats().PagesFetched
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if open == 0 {
		t.Fatal("no lane was open when the crawl stopped: the test shows nothing")
	}
	st, err := store.OpenReadOnly(o.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s.Lanes.Open != 0 || s.Lanes.Pages < fetched {
		t.Errorf("after a stop with %d lanes open: stats say %d open, %d pages by lanes; want 0 open and >= the %d pages fetched",
			open, s.Lanes.Open, s.Lanes.Pages, fetched)
	}
}
