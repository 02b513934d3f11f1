package front

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// fakeCrawl is a crawl whose crew only collects what the front places. The
// embedded Crawl is nil: a call the test did not expect panics.
type fakeCrawl struct {
	Crawl
	placed []frontier.Task
	idle   chan struct{} // a signal per CheckIdle
	wg     sync.WaitGroup
}

func (c *fakeCrawl) Place(t frontier.Task)                   { c.placed = append(c.placed, t) }
func (c *fakeCrawl) Counts() (waiting, inHand int)           { return len(c.placed), 0 }
func (c *fakeCrawl) CountsAtHandOut() bool                   { return false }
func (c *fakeCrawl) CheckIdle()                              { c.idle <- struct{}{} }
func (c *fakeCrawl) Stopping() bool                          { return false }
func (c *fakeCrawl) Now() time.Time                          { return time.Now() }
func (c *fakeCrawl) Logf(view.Level, string, string, ...any) {}

func (c *fakeCrawl) Go(f func()) bool {
	c.wg.Add(1)
	go func() { defer c.wg.Done(); f() }()
	return true
}

// URLs confirmed beyond the queue's memory wait in the store and come back as the
// lanes drain the queue: every one of them once, in the order they were queued.
func TestQueueSpillsToTheStoreAndPagesBackInOrder(t *testing.T) {
	opts := &config.Options{QueueMemory: 4}
	f, c, st := storeFront(t, opts, nil)
	mu := f.Mu
	const n = 10
	var rows []store.URL
	var want []string
	for i := range n {
		u := fmt.Sprintf("http://a.test/p%d", i)
		rows = append(rows, f.LinkRecord(u, 0, 1))
		want = append(want, u)
	}
	f.Submit(rows, st.AddURLs)
	for range n { // each confirmation checks whether the crawl is idle
		<-c.idle
	}
	mu.Lock()
	if len(c.placed) != opts.QueueMemory || !f.Spilled() || f.SpilledCount() != n-opts.QueueMemory {
		t.Fatalf("placed %d, spilled %v (%d), want %d placed and %d waiting in the store",
			len(c.placed), f.Spilled(), f.SpilledCount(), opts.QueueMemory, n-opts.QueueMemory)
	}
	var got []string
	for f.Spilled() {
		for _, tk := range c.placed {
			got = append(got, tk.URL)
		}
		c.placed = nil // the lanes took them
		f.StartRefill()
		mu.Unlock()
		<-c.idle // the page-in is over
		mu.Lock()
	}
	for _, tk := range c.placed {
		got = append(got, tk.URL)
	}
	mu.Unlock()
	c.wg.Wait()
	if !slices.Equal(got, want) {
		t.Fatalf("queued in this order:\n%q\nwant\n%q", got, want)
	}
	if q := f.Counters.URLsQueued.Load(); q != n {
		t.Errorf("URLs counted queued: %d, want %d", q, n)
	}
}

// A crawl started again on its --db alone, its discovery run dry and nothing queued,
// goes on with its revisits while a page is still due some day. A store whose pages
// are all parked for good (their class window closed) has nothing left to fetch: it
// must say "nothing to crawl", not start and idle for ever.
func TestResumeOnItsRevisitsOnlyWithAPageStillDue(t *testing.T) {
	for _, c := range []struct {
		name      string
		next      time.Time
		resumable bool
	}{
		{"a page due in an hour", time.Now().Add(time.Hour), true},
		{"every page parked for good", revisit.Never, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := config.DefaultOptions()
			f, _, st := storeFront(t, &opts, frontier.NewDedupe(1000, 0.01, 1))
			const u = "http://a.test/"
			fetched := time.Now().Add(-time.Hour)
			st.AddURLs([]store.URL{{URL: u, Host: "a.test"}}, nil)
			st.SavePage(store.Page{URL: u, FetchedAt: fetched, Status: 200, Body: []byte("<p>x</p>"),
				Revisit: &store.Revisit{URL: u, Class: "web_com", First: fetched, X: 1, Last: fetched, Next: c.next, Fetches: 3}}, nil, nil)
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			if !opts.Revisit.Enabled {
				t.Fatal("revisit is off by default")
			}
			err := f.QueueSeeds(nil, nil)
			var seedErr *SeedError
			switch {
			case c.resumable && err != nil:
				t.Errorf("resume refused: %v; want the crawl to go on with its revisits", err)
			case !c.resumable && !errors.As(err, &seedErr):
				t.Errorf("resume: %v; want %q", err, (&SeedError{}).Error())
			}
		})
	}
}
