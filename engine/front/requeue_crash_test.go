package front

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// A process killed while the scheduler's tick puts due pages back in the queue
// leaves the store as it was at the last commit. Whatever that commit is, a crawl
// resumed on the file must revisit the pages the schedule still wants: a page left
// fetched (processed) with its due time parked (never) was never revisited again,
// and a store of those alone said "nothing to crawl". A page past its class window
// is parked for good at every commit, and a store of those alone still says
// "nothing to crawl".
//
// The kill is real at the file's level: the tick runs on a store that commits every
// write on its own, and each crash state is the file before the tick with its
// write-ahead log cut after one of the tick's commits, as SQLite finds it after a
// kill -9.
func TestATickKilledAtAnyCommitLeavesItsPagesToRevisit(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		name      string
		first     time.Time // first fetch: the class window (14 days) counts from it
		resumable bool
	}{
		{"class window open", now.Add(-time.Hour), true},
		{"class window closed", now.Add(-20 * 24 * time.Hour), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			pages := []string{"http://a.test/one", "http://a.test/two"}
			opts := config.DefaultOptions() // revisits on
			opts.QueueMemory = 100
			dir := t.TempDir()
			path := filepath.Join(dir, "crawl.db")
			st, err := store.Open(path, store.Options{BatchSize: 1, BatchDelay: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			f, fc := frontOn(t, &opts, nil, st)
			f.crawl = runningCrawl{fc}
			for _, u := range pages {
				storeFetched(t, st, u, c.first, now.Add(-time.Minute), now.Add(-time.Second), 2, store.Processed)
			}
			before := readCrashFiles(t, path)

			f.RevisitTick(now)
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			after := readCrashFiles(t, path)
			if !bytes.Equal(after.db, before.db) || !bytes.HasPrefix(after.wal, before.wal) {
				t.Fatal("the database file changed or its log restarted during the tick (a checkpoint): the crash states cannot be cut from the log")
			}
			cuts := append([]int{len(before.wal)}, walCommitEnds(t, after.wal, len(before.wal))...)
			if len(cuts) < 2 {
				t.Fatalf("the tick committed nothing")
			}
			for i, cut := range cuts {
				crashed := filepath.Join(t.TempDir(), "crawl.db")
				writeCrashFiles(t, crashed, crashFiles{db: before.db, wal: after.wal[:cut]})
				st2, err := store.Open(crashed, store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				f2, fc2 := frontOn(t, &opts, nil, st2)
				f2.crawl = runningCrawl{fc2}
				if err := f2.Resume(); err != nil {
					t.Fatal(err)
				}
				err = f2.QueueSeeds(nil, nil)
				f2.RevisitTick(time.Now())
				if err := st2.Flush(); err != nil {
					t.Fatal(err)
				}
				var queued []string
				for _, p := range fc2.placed {
					queued = append(queued, p.URL)
				}
				slices.Sort(queued)
				queued = slices.Compact(queued)
				switch {
				case c.resumable && err != nil:
					t.Errorf("killed after commit %d of %d: resume refused (%v); want the crawl to go on with its revisits", i, len(cuts)-1, err)
				case c.resumable && !slices.Equal(queued, pages):
					t.Errorf("killed after commit %d of %d: resumed, the crawl queues %v; want both pages revisited %v", i, len(cuts)-1, queued, pages)
				case !c.resumable && len(queued) > 0:
					t.Errorf("killed after commit %d of %d: pages past their class window queued again: %v", i, len(cuts)-1, queued)
				case !c.resumable && i > 0 && err == nil:
					// Before the tick's first commit they were still due: the tick
					// that parks them for good is to come.
					t.Errorf("killed after commit %d of %d: a store of pages parked for good past their class window resumes; want \"nothing to crawl\"", i, len(cuts)-1)
				}
				st2.Close()
			}
		})
	}
}

// crashFiles are a store's database file and its write-ahead log.
type crashFiles struct{ db, wal []byte }

func readCrashFiles(t *testing.T, path string) crashFiles {
	t.Helper()
	db, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wal, err := os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return crashFiles{db: db, wal: wal}
}

func writeCrashFiles(t *testing.T, path string, c crashFiles) {
	t.Helper()
	if err := os.WriteFile(path, c.db, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+"-wal", c.wal, 0o600); err != nil {
		t.Fatal(err)
	}
}

// walCommitEnds returns the offset just past each commit frame of a SQLite
// write-ahead log from offset from (a frame boundary) on: a 32-byte header, then
// frames of a 24-byte header and a page, a commit's last frame giving the database
// size after it (non-zero) at bytes 4..8, and the header's salts at 8..16.
func walCommitEnds(t *testing.T, wal []byte, from int) []int {
	t.Helper()
	if len(wal) < 32 {
		t.Fatalf("write-ahead log of %d bytes", len(wal))
	}
	pageSize := int(binary.BigEndian.Uint32(wal[8:12]))
	if pageSize == 1 {
		pageSize = 65536
	}
	frame := 24 + pageSize
	if (from-32)%frame != 0 {
		t.Fatalf("offset %d is not a frame boundary (frames of %d bytes)", from, frame)
	}
	var ends []int
	for off := from; off+frame <= len(wal); off += frame {
		h := wal[off : off+24]
		if !bytes.Equal(h[8:16], wal[16:24]) {
			break // a frame of an earlier log: the valid log ends here
		}
		if binary.BigEndian.Uint32(h[4:8]) != 0 {
			ends = append(ends, off+frame)
		}
	}
	return ends
}

// Pages a hint, a round or the operator's steering queued again wait in the queue
// for their fetch, which gives them their next due time. A tick meanwhile has
// nothing to do with them: it must not write to the store for them (it parked each
// and made it due again, two writes a page, at every tick while they waited).
func TestATickLeavesPagesWaitingInTheQueueAlone(t *testing.T) {
	opts := config.DefaultOptions()
	opts.QueueMemory = 1000
	f, fc, st := storeFront(t, &opts, nil)
	f.crawl = runningCrawl{fc}
	const n = 50
	now := time.Now()
	var urls []string
	for i := range n {
		u := fmt.Sprintf("http://a.test/p%d", i)
		urls = append(urls, u)
		storeFetched(t, st, u, now.Add(-time.Hour), now.Add(-time.Minute), now.Add(-time.Second), 2, store.Processed)
	}
	if q, err := (feedsPort{f}).Requeue(urls, now); err != nil || q != n {
		t.Fatalf("a hint queued %d of %d pages: %v", q, n, err)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	commits := st.CommitLatency().Count
	const ticks = 5
	for i := range ticks {
		f.RevisitTick(now.Add(time.Duration(i+1) * time.Minute))
		if err := st.Flush(); err != nil { // what the tick wrote is in before the next (a minute on)
			t.Fatal(err)
		}
	}
	if got := st.CommitLatency().Count - commits; got != 0 {
		t.Errorf("%d ticks over %d pages waiting in the queue committed %d store writes; want none", ticks, n, got)
	}
	if len(fc.placed) != n {
		t.Errorf("%d tasks placed; want the hint's %d, none again", len(fc.placed), n)
	}
	for _, u := range urls {
		s, err := st.URLState(u)
		if err != nil || s.State != store.Unprocessed {
			t.Fatalf("%s: %v, %v; want unprocessed (queued, a stop resumes it)", u, s.State, err)
		}
	}
}

// A store whose revisit tick was killed by code older than the one-write tick kept
// pages parked for good (next = never) with their URLs fetched: no task, no due
// time, never revisited again, and a store of them alone said "nothing to crawl".
// Opened by this code, such a page is due again and the first tick queues it; a page
// past its class window, parked on purpose and alike in the store, is parked again
// by that tick, and one parked while it waits in the queue keeps its park. The store
// is built in that state and marked with the schema of that code (18).
func TestAStoreLeftParkedByAnOlderTickRevisitsItsPages(t *testing.T) {
	now := time.Now()
	const lost, retired, waiting = "http://a.test/lost", "http://a.test/retired", "http://a.test/waiting"
	opts := config.DefaultOptions() // revisits on
	opts.QueueMemory = 100
	path := filepath.Join(t.TempDir(), "crawl.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	storeFetched(t, st, lost, now.Add(-time.Hour), now.Add(-time.Minute), revisit.Never, 2, store.Processed)
	storeFetched(t, st, retired, now.Add(-20*24*time.Hour), now.Add(-time.Minute), revisit.Never, 2, store.Processed)
	storeFetched(t, st, waiting, now.Add(-time.Hour), now.Add(-time.Minute), revisit.Never, 2, store.Unprocessed)
	st = reopenAtSchema18(t, st, path)
	next := func(u string) time.Time {
		t.Helper()
		r, err := st.Revisit(u)
		if err != nil {
			t.Fatal(err)
		}
		return r.Next
	}
	if n := next(waiting); !n.Equal(revisit.Never) {
		t.Errorf("a page parked while its URL waits in the queue is due at %v once opened; want it parked, its fetch to give its due time", n)
	}
	f, fc := frontOn(t, &opts, nil, st)
	f.crawl = runningCrawl{fc}
	if err := f.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := f.QueueSeeds(nil, nil); err != nil {
		t.Fatalf("resumed, the crawl says %v; want the parked page revisited", err)
	}
	f.RevisitTick(time.Now())
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	var queued []string
	for _, p := range fc.placed {
		queued = append(queued, p.URL)
	}
	slices.Sort(queued)
	queued = slices.Compact(queued)
	if want := []string{lost, waiting}; !slices.Equal(queued, want) {
		t.Errorf("resumed and ticked, the crawl queues %v; want %v (the page left parked by the old tick revisited, the retired one not)", queued, want)
	}
	if n := next(retired); !n.Equal(revisit.Never) {
		t.Errorf("the page past its class window is due at %v after the tick; want it parked again", n)
	}
}

// reopenAtSchema18 closes st, marks its database as made at schema 18 (before
// migration 0019, which repairs what older ticks left parked) and opens it again:
// the upgrade runs on what st held. The store is closed at the test's end.
func reopenAtSchema18(t *testing.T, st *store.Store, path string) *store.Store {
	t.Helper()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 18"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
