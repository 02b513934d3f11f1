package front

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// runningCrawl is a fakeCrawl that runs.
type runningCrawl struct{ *fakeCrawl }

func (runningCrawl) Running() bool  { return true }
func (runningCrawl) FlushDeferred() {}

// A revisit whose fetch has ended and stored its next due time, while its lane has
// not yet let the task go (the mark goes after the result is recorded), may be due
// by the scheduler's next tick on a loaded box. That tick cannot queue it again (it
// is still marked); before, it left the page parked (next = never) all the same,
// and the page was never revisited again: a feed read every 50 ms stopped for good.
// It is now due again, and queued by the first tick after the lane let go.
func TestARevisitDueBeforeItsLaneLetGoIsNotParkedForGood(t *testing.T) {
	for _, c := range []struct {
		name  string
		state store.State // the URL's state in the store at the tick
	}{
		{"stored", store.Processed},
		{"a 304 whose state is not written yet", store.InProgress},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, fc, st := storeFront(t, &config.Options{QueueMemory: 100}, nil)
			f.crawl = runningCrawl{fc}
			const u = "http://a.test/feed.xml"
			fetched := time.Now().Add(-time.Second)
			st.SavePage(store.Page{URL: u, FetchedAt: fetched, Status: 200, Body: []byte("<rss/>"),
				Revisit: &store.Revisit{URL: u, Class: "web_com", First: fetched, X: 1, Last: fetched, Next: fetched.Add(50 * time.Millisecond), Fetches: 2}}, nil, nil)
			st.SetState(u, c.state, 0, "")
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			f.Mu.Lock()
			f.marks.Mark(u) // the revisit that fetched it, still in its lane's hand
			f.Mu.Unlock()

			f.RevisitTick(time.Now())
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			rv, err := st.Revisit(u)
			if err != nil {
				t.Fatal(err)
			}
			if rv.Next.Equal(revisit.Never) {
				t.Fatal("the page was parked for good: due while its revisit was still marked, the tick neither queued it nor made it due again")
			}
			if len(fc.placed) != 0 {
				t.Fatalf("queued %v while its last revisit is still in a lane's hand", fc.placed)
			}

			st.SetState(u, store.Processed, 0, "")
			f.Mu.Lock()
			f.marks.Released(u, true) // the lane lets go
			f.Mu.Unlock()
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			f.RevisitTick(time.Now())
			if len(fc.placed) != 1 || fc.placed[0].URL != u {
				t.Fatalf("the tick after the lane let go queued %v; want the page's revisit", fc.placed)
			}
		})
	}
}
