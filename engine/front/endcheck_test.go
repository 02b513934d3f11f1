package front

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/store"
)

// endCrawl is a running, dry crawl whose first FlushDeferred (the end check's
// first step) waits for the test, and whose Dry runs what happens while the check
// reads the store.
type endCrawl struct {
	runningCrawl
	flushes  atomic.Int32
	entered  chan struct{} // the end check is under way
	gate     chan struct{} // let it read the store
	meantime func()        // runs in Dry, the lock held
}

func (c *endCrawl) FlushDeferred() {
	if c.flushes.Add(1) == 1 {
		close(c.entered)
		<-c.gate
	}
}

func (c *endCrawl) Dry() bool {
	if c.meantime != nil {
		c.meantime()
		c.meantime = nil
	}
	return true
}

// The end-of-crawl check reads what the store holds queued while the crawl is
// dry. A revisit the scheduler queues meanwhile reads queued there; by the time
// the check decides, its fetch may have ended and its lane let it go. That page
// is no URL lost on its way to the queue: queued again by the check, it is
// fetched a second time right after its revisit (and the log calls it a bug).
func TestTheEndCheckDoesNotQueueAgainARevisitPlacedWhileItRead(t *testing.T) {
	f, fc, st := storeFront(t, &config.Options{QueueMemory: 100}, nil)
	ec := &endCrawl{runningCrawl: runningCrawl{fc}, entered: make(chan struct{}), gate: make(chan struct{})}
	f.crawl = ec
	const u = "http://a.test/news/1.html"
	fetched := time.Now().Add(-time.Second)
	storeFetched(t, st, u, fetched, fetched, fetched.Add(50*time.Millisecond), 1, store.Processed)

	f.Mu.Lock()
	if f.EndChecked() {
		f.Mu.Unlock()
		t.Fatal("a dry crawl said it ended without asking the store")
	}
	f.Mu.Unlock()
	<-ec.entered

	f.RevisitTick(time.Now()) // the page is due: queued as a revisit
	if len(fc.placed) != 1 || fc.placed[0].URL != u {
		t.Fatalf("the tick queued %v; want the page's revisit", fc.placed)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	// While the check reads the store (the revisit's row queued), the revisit is
	// fetched, its result stored and its lane lets go.
	ec.meantime = func() {
		hand := f.marks.Taken(u)
		st.SetState(u, store.Processed, 0, "")
		f.marks.Released(u, hand, true)
	}
	close(ec.gate)
	fc.wg.Wait()
	if len(fc.placed) != 1 {
		t.Fatalf("placed %d times: the end check queued the revisit it read queued again after its fetch ended", len(fc.placed))
	}
}

// A revisit the scheduler queues is written queued in the store before its task
// is placed. An end check asked in between would read its row queued with no task
// in memory and queue it a second time: fetched twice in a row. Nor may the crawl
// end then (a round's, a hint's or steering's requeue claims its pages the same
// way, revisits on or off): Done closed and --until-idle exited before they were
// fetched. The crawl is busy until they are placed, and asks for its end again.
func TestTheEndCheckWaitsForARevisitOnItsWayToTheQueue(t *testing.T) {
	f, fc, st := storeFrontWith(t, &config.Options{QueueMemory: 100}, nil, store.Options{BatchDelay: time.Hour})
	f.crawl = dryCrawl{runningCrawl{fc}}
	const u = "http://a.test/news/1.html"
	fetched := time.Now().Add(-time.Second)
	storeFetched(t, st, u, fetched, fetched, fetched.Add(50*time.Millisecond), 1, store.Processed)

	// The tick's write commits in the batch of this callback, which takes the lock
	// before the tick can place the task.
	held := make(chan struct{})
	st.AfterCommit(func(error) { f.Mu.Lock(); close(held) })
	ticked := make(chan struct{})
	go func() { defer close(ticked); f.RevisitTick(time.Now()) }()
	<-held
	s, err := st.URLState(u)
	if err != nil || s.State != store.Unprocessed {
		f.Mu.Unlock()
		t.Fatalf("state %v, %v; want the revisit written queued before it is placed", s.State, err)
	}
	busy, checked, asked := f.Busy(), f.EndChecked(), f.end.running
	f.Mu.Unlock()
	<-ticked
	fc.wg.Wait()
	if !busy || checked {
		t.Error("the crawl could end while a revisit was on its way to the queue (busy false or end checked)")
	}
	if asked {
		t.Error("the end check asked the store while a revisit was on its way to the queue")
	}
	select {
	case <-fc.idle: // the end that could not come meanwhile is asked again
	default:
		t.Error("no idle check once the claimed revisit was placed")
	}
	if len(fc.placed) != 1 || fc.placed[0].URL != u {
		t.Errorf("placed %v; want the revisit once", fc.placed)
	}
}

// dryCrawl is a running crawl with nothing queued but revisits.
type dryCrawl struct{ runningCrawl }

func (dryCrawl) Dry() bool { return true }
