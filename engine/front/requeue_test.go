package front

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/robots"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// runningCrawl is a fakeCrawl that runs.
type runningCrawl struct{ *fakeCrawl }

func (runningCrawl) Running() bool  { return true }
func (runningCrawl) FlushDeferred() {}

// storeFetched stores u as a page fetched at last (first fetched at first), its
// fetches-th fetch, due again at next, with its URL in state, all committed.
func storeFetched(t *testing.T, st *store.Store, u string, first, last, next time.Time, fetches int, state store.State) {
	t.Helper()
	st.SavePage(store.Page{URL: u, FetchedAt: last, Status: 200, Body: []byte("<p>news</p>"),
		Revisit: &store.Revisit{URL: u, Class: "web_com", First: first, X: 1, Last: last, Next: next, Fetches: fetches}}, nil, nil)
	st.SetState(u, state, 0, "")
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
}

// A revisit whose fetch has ended and stored its next due time, while its lane has
// not yet let the task go (the mark goes after the result is recorded), may be due
// by the scheduler's next tick on a loaded box. That tick cannot queue it again (it
// is still marked), and must not leave it parked (next = never), which no tick picks
// again: a feed read every 50 ms would stop for good. The page must be due again,
// not queued while in the lane's hand, and queued by the first tick after the lane
// let go.
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
			storeFetched(t, st, u, fetched, fetched, fetched.Add(50*time.Millisecond), 2, c.state)
			f.Mu.Lock()
			f.marks.Mark(u) // the revisit that fetched it, still in its lane's hand
			f.marks.Placed(u)
			hand := f.marks.Taken(u)
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
				t.Fatal("the page was parked for good: due while its revisit was still marked, the tick neither queued it nor left it due")
			}
			if len(fc.placed) != 0 {
				t.Fatalf("queued %v while its last revisit is still in a lane's hand", fc.placed)
			}

			st.SetState(u, store.Processed, 0, "")
			f.Mu.Lock()
			f.marks.Released(u, hand, true) // the lane lets go
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

// A page in the queue with a past due time (resumed from a store a crash left so,
// or a hint's from before hints parked their pages) is found due by a tick; its fetch records its result (next due in an hour) between the
// tick's read and Requeue's write, the lane still holding the mark. The due time
// the fetch stored must stand: overwritten with the tick's time, the page is
// fetched again at the next tick, right after its fetch.
func TestARevisitDueWhileInALanesHandKeepsTheDueTimeItsFetchStored(t *testing.T) {
	f, fc, st := storeFront(t, &config.Options{QueueMemory: 100}, nil)
	f.crawl = runningCrawl{fc}
	const u = "http://a.test/feed.xml"
	fetched := time.Now().Add(-time.Second)
	storeFetched(t, st, u, fetched, fetched, fetched.Add(50*time.Millisecond), 2, store.Unprocessed) // queued, not parked
	f.Mu.Lock()
	f.marks.Mark(u)
	f.marks.Taken(u) // in a lane's hand
	f.Mu.Unlock()

	now := time.Now()
	due, err := f.Revisit.Tick(now) // the tick reads it due
	if err != nil || len(due) != 1 {
		t.Fatalf("tick: %v %v", due, err)
	}
	// The lane's fetch ends now: its result stores the next due time, an hour on.
	done := time.Now()
	next := done.Add(time.Hour)
	storeFetched(t, st, u, fetched, done, next, 3, store.Processed)
	// Requeue runs with the lane still holding the mark.
	if _, err := f.RequeueDue(due, now); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	rv, err := st.Revisit(u)
	if err != nil {
		t.Fatal(err)
	}
	if rv.Next.Before(next.Add(-time.Second)) {
		t.Fatalf("next due %v (in %v) after the fetch stored %v: the page is fetched again at the next tick", rv.Next, time.Until(rv.Next).Round(time.Millisecond), next)
	}
}

// A page's first fetch is still in its lane's hand (its result stored, the lane not
// yet done with it) when the scheduler finds the page due and queues its revisit.
// The first fetch's release must leave the revisit's mark alone, and the revisit
// must be fetched as a revisit: a mark taken off by URL leaves the revisit
// unmarked, fetched as a first fetch and counted done a second time ("Done with 38
// of 37 URLs done"), the counts of revisits waiting and in hand off by one each.
func TestAFirstFetchsReleaseLeavesItsRevisitsMark(t *testing.T) {
	f, fc, st := storeFront(t, &config.Options{QueueMemory: 100}, nil)
	f.crawl = runningCrawl{fc}
	const u = "http://a.test/feed.xml"
	marks := f.Marks()

	f.Mu.Lock()
	first := marks.Taken(u) // the first fetch, taken by a lane
	f.Mu.Unlock()
	fetched := time.Now().Add(-time.Second)
	storeFetched(t, st, u, fetched, fetched, fetched.Add(50*time.Millisecond), 1, store.Processed)
	f.RevisitTick(time.Now()) // due: its revisit is queued while the first fetch is in hand
	if len(fc.placed) != 1 || fc.placed[0].URL != u {
		t.Fatalf("the tick queued %v; want the page's revisit", fc.placed)
	}
	revisit := fc.placed[0]
	f.Mu.Lock()
	marks.Placed(revisit.URL) // on the lane board
	marks.Released(u, first, true)
	queued, pending := marks.Queued(u), marks.Pending()
	f.Mu.Unlock()
	if !queued || pending != 1 {
		t.Fatalf("after the first fetch's release: queued as a revisit %v, %d revisits waiting or in hand; want true and 1 (the revisit waiting)", queued, pending)
	}

	f.Mu.Lock()
	hand := marks.Taken(revisit.URL) // a lane takes the revisit
	f.Mu.Unlock()
	if prev, _ := f.RevisitState(revisit); prev == nil {
		t.Fatal("the revisit is fetched as a first fetch")
	}
	f.Mu.Lock()
	pending = marks.Pending()
	marks.Released(u, hand, true)
	queued, after := marks.Queued(u), marks.Pending()
	f.Mu.Unlock()
	if pending != 1 || queued || after != 0 {
		t.Fatalf("revisit in hand: %d pending, want 1; after its release: queued %v, %d pending, want false and 0", pending, queued, after)
	}
}

// A page found due while a fetch of it was on its way (a hint's, or one made due
// again while its revisit was marked) is read due by the tick; its fetch then ends,
// stores its next due time (an hour on) and its lane lets go, all before Requeue
// claims the page. The page must not be queued: its fetch just ended, and its next
// due time stands.
func TestAPageWhoseFetchEndedAfterTheTicksParkIsNotQueued(t *testing.T) {
	f, fc, st := storeFront(t, &config.Options{QueueMemory: 100}, nil)
	f.crawl = runningCrawl{fc}
	const u, other = "http://a.test/feed.xml", "http://a.test/other.xml"
	fetched := time.Now().Add(-time.Second)
	for _, p := range []string{u, other} {
		st.SavePage(store.Page{URL: p, FetchedAt: fetched, Status: 200, Body: []byte("<rss/>"),
			Revisit: &store.Revisit{URL: p, Class: "web_com", First: fetched, X: 1, Last: fetched, Next: fetched.Add(50 * time.Millisecond), Fetches: 2}}, nil, nil)
	}
	st.SetState(u, store.InProgress, 0, "") // its fetch in a lane's hand, not parked
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Mu.Lock()
	f.marks.Mark(u)
	hand := f.marks.Taken(u) // in a lane's hand
	f.Mu.Unlock()

	now := time.Now()
	due, err := f.Revisit.Tick(now) // the tick reads both due
	if err != nil || len(due) != 2 {
		t.Fatalf("tick: %v %v; want both pages", due, err)
	}
	// The lane's fetch ends: its result stores the next due time, an hour on, and the
	// lane lets go.
	done := time.Now()
	next := done.Add(time.Hour)
	storeFetched(t, st, u, fetched, done, next, 3, store.Processed)
	f.Mu.Lock()
	f.marks.Released(u, hand, true)
	f.Mu.Unlock()

	if _, err := f.RequeueDue(due, now); err != nil {
		t.Fatal(err)
	}
	if len(fc.placed) != 1 || fc.placed[0].URL != other {
		t.Errorf("queued %v; want only %s (%s was fetched a moment ago)", fc.placed, other, u)
	}
	f.Mu.Lock()
	queued := f.marks.Queued(u)
	f.Mu.Unlock()
	if queued {
		t.Errorf("%s is marked as a queued revisit, with nothing queued", u)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	if rv, err := st.Revisit(u); err != nil || !rv.Next.Equal(next) {
		t.Errorf("next due %v, %v; want the %v its fetch stored", rv.Next, err, next)
	}
	if s, err := st.URLState(u); err != nil || s.State != store.Processed {
		t.Errorf("state %v, %v; want processed (its fetch ended)", s.State, err)
	}
}

// A refetch that fails (a timeout, a 5xx, a redirect elsewhere, noindex) keeps the
// stored page and gives it a new due time. The store commits its writes in batches,
// and a batch may end between any two of them; the scheduler's Requeue, reading the
// page right after its lane let go, must never see the URL processed with the page
// still parked (next = never), or the page is queued and fetched again at once: the
// user sees a failing page asked twice in a row, its backoff lost. Every commit
// boundary inside Record is tried: the batch ends after its first, second, ... write.
func TestAFailedRefetchIsNotQueuedAgainWhereverTheCommitFalls(t *testing.T) {
	const u = "http://a.test/feed.xml"
	for _, c := range []struct {
		name string
		o    lanes.Outcome
	}{
		{"timeout", lanes.Outcome{Kind: fetch.KindTimeout}},
		{"503", lanes.Outcome{Res: &fetch.Result{FinalURL: u, Status: 503}}},
		{"404", lanes.Outcome{Res: &fetch.Result{FinalURL: u, Status: 404}}},
		{"redirect elsewhere", lanes.Outcome{Res: &fetch.Result{FinalURL: u, Status: 301, Header: http.Header{"Location": {"http://b.test/"}}}}},
		{"noindex", lanes.Outcome{Res: &fetch.Result{FinalURL: u, Status: 200, Body: []byte("<p>x</p>"), Robots: robots.Directives{NoIndex: true}}}},
	} {
		for commitAfter := 1; commitAfter <= 3; commitAfter++ {
			t.Run(fmt.Sprintf("%s/commit after write %d", c.name, commitAfter), func(t *testing.T) {
				opts := config.DefaultOptions()
				opts.QueueMemory = 100
				// A batch of one op before Record and commitAfter of Record's, held open
				// otherwise (a Flush commits at once).
				f, fc, st := storeFrontWith(t, &opts, frontier.NewDedupe(1000, 0.01, 1), store.Options{BatchSize: 1 + commitAfter, BatchDelay: time.Hour})
				f.crawl = recordingCrawl{runningCrawl{fc}}
				f.Hosts = hostreport.New()
				fetched := time.Now().Add(-time.Second)
				storeFetched(t, st, u, fetched, fetched, fetched.Add(50*time.Millisecond), 2, store.InProgress) // its revisit, in a lane's hand
				f.Mu.Lock()
				f.marks.Mark(u)
				hand := f.marks.Taken(u)
				f.Mu.Unlock()
				task := frontier.Task{URL: u, Host: "a.test", Refetch: true}
				prev, track := f.RevisitState(task) // as the lane's prepare read it
				if prev == nil {
					t.Fatal("no stored revisit state")
				}

				now := time.Now()
				due, err := f.Revisit.Tick(now) // due again: the tick reads it
				if err != nil || len(due) != 1 {
					t.Fatalf("tick: %v %v", due, err)
				}
				if err := st.Flush(); err != nil {
					t.Fatal(err)
				}
				// The batch holds this op and Record's first commitAfter writes (all of
				// them if it makes fewer: the Flush after it ends the batch). Its callback
				// holds the writer after that commit while Requeue reads.
				committed, resume := make(chan struct{}), make(chan struct{})
				st.AfterCommit(func(error) { close(committed); <-resume })
				var resumed sync.Once
				defer resumed.Do(func() { close(resume) }) // a failure must not leave the writer held
				o := c.o
				o.Task, o.Note = task, Prior{Page: prev, Track: track}
				f.Record(o)
				flushed := make(chan error, 1)
				go func() { flushed <- st.Flush() }()
				<-committed
				f.Mu.Lock()
				f.marks.Released(u, hand, true) // the lane lets go after Record returns
				f.Mu.Unlock()
				_, err = f.RequeueDue(due, now)
				resumed.Do(func() { close(resume) })
				if err != nil {
					t.Fatal(err)
				}
				if err := <-flushed; err != nil {
					t.Fatal(err)
				}
				if err := st.Flush(); err != nil {
					t.Fatal(err)
				}
				for _, p := range fc.placed {
					if p.URL == u {
						t.Fatalf("%s queued again right after its failed refetch", u)
					}
				}
				rv, err := st.Revisit(u)
				if err != nil {
					t.Fatal(err)
				}
				if !rv.Next.After(now) || rv.Next.Equal(revisit.Never) {
					t.Errorf("next due %v; want the failed refetch's due time, after %v", rv.Next, now)
				}
			})
		}
	}
}

// recordingCrawl is a running crawl that takes Record's log lines and refusals
// counting.
type recordingCrawl struct{ runningCrawl }

func (recordingCrawl) LaneLogf(view.Level, int, string, string, ...any) {}
func (recordingCrawl) DirectRefusals() bool                             { return true }
