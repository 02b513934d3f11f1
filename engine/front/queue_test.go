package front

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
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
