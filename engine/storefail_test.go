package engine_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// fillUpAt makes the database at db refuse every page past the first n, as a full
// disk would: a trigger, so the failure comes from inside the store's own write path.
// The subprocess test in ui/cli (TestFullDiskStopsTheCrawlAndLosesNothing) does it
// under a real file-size limit; a master and its workers need one process.
func fillUpAt(t *testing.T, db string, n int) {
	t.Helper()
	st, err := store.Open(db, store.Options{}) // creates the schema
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	execSQL(t, db, `CREATE TRIGGER test_full BEFORE INSERT ON pages WHEN (SELECT count(*) FROM pages) >= `+itoa(n)+`
		BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END`)
}

func execSQL(t *testing.T, db, stmt string) {
	t.Helper()
	h, err := sql.Open("sqlite3", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}

// TestMasterStopsOnAFailedStore: on the master of a distributed crawl (M4) a store
// that stops taking pages stops the crawl: no more tasks go out, fetching ends, the
// snapshot and stats say why and the log has the error. The results it could not
// commit are not acknowledged and their URLs not marked done; a new master on the same
// database, once there is room, ends the crawl with every page of a single-process
// crawl.
func TestMasterStopsOnAFailedStore(t *testing.T) {
	t.Parallel()
	const room = 40
	c := startClusterWith(t, smallWeb(5, 12), 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		fillUpAt(t, o.DB, room)
	})
	ref := enginetest.StartReference(t, c.sb)
	c.worker("w1", "127.0.0.2", "127.0.0.3")
	select {
	case <-c.master.Failed():
	case <-time.After(enginetest.Patience):
		t.Fatalf("the master did not stop after its store failed: %+v", c.master.Stats())
	}
	s := c.master.Snapshot()
	if s.State != view.StateFailed || !strings.Contains(s.StoreError, "disk is full (test)") {
		t.Errorf("snapshot after the failure: state %s, store error %q; want FAILED and the store's error", s.State, s.StoreError)
	}
	logged := false
	for _, ev := range c.master.EventsSince(0, 0) {
		if ev.Level == view.LevelError && strings.Contains(ev.Msg, "STORE FAILED") && strings.Contains(ev.Msg, "--db "+c.opts.DB) {
			logged = true
		}
	}
	if !logged {
		t.Error("no error event saying the store failed and how to resume")
	}
	var se *front.StoreError
	if err := c.master.Failure(); !errors.As(err, &se) || se.DB != c.opts.DB {
		t.Errorf("Failure() = %v; want a *StoreError for %s", err, c.opts.DB)
	}
	// Fetching stops: the worker's requests in the sandbox's log stop growing, well
	// before the web is crawled (hundreds of pages).
	truth := c.sb.Truth()
	asked := func() int {
		n := 0
		for _, r := range truth.Requests() {
			if !enginetest.IsReference(r.IP) {
				n++
			}
		}
		return n
	}
	last, stable := asked(), time.Now()
	for deadline := time.Now().Add(enginetest.Patience); time.Since(stable) < 2*time.Second; {
		if time.Now().After(deadline) {
			t.Fatalf("the workers still fetch 30 s after the master's store failed (%d requests)", last)
		}
		time.Sleep(50 * time.Millisecond)
		if n := asked(); n != last {
			last, stable = n, time.Now()
		}
	}
	stats := c.master.Stats()
	if stats.StoreError == "" || stats.PagesStored != room {
		t.Errorf("stats after the failure: store_error %q, pages_stored %d; want the error and the %d committed pages",
			stats.StoreError, stats.PagesStored, room)
	}
	if err := c.master.Close(); err == nil {
		t.Error("Close after a store failure returned no error")
	}
	if got := enginetest.StoredSet(t, c.opts.DB); len(got) != room {
		t.Fatalf("%d pages in the store; the full store took %d", len(got), room)
	}

	// Room again: a new master on the same database finishes the crawl.
	execSQL(t, c.opts.DB, `DROP TRIGGER test_full`)
	c.startMaster()
	after := c.waitDone(90 * time.Second)
	want := ref.Pages(t)
	got := enginetest.StoredSet(t, c.opts.DB)
	if len(got) != len(want) {
		t.Fatalf("stored %d pages after the resume; a single-process crawl stores %d", len(got), len(want))
	}
	t.Logf("stopped at %d pages, %d requests by then; resumed to %d pages (%+v)", room, last, len(got), after.Cluster)
}
