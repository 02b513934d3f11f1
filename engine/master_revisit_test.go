package engine

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A master over workers records a page's refetch as a refetch: with its stored
// history (the revisit estimator's visits, the previous read of a feed or sitemap
// that a moved date is measured against), counted once among the pages stored. Before,
// the master dropped the page's "requeued revisit" mark when the worker's result came
// in and only then asked for the page's state, so every refetch was a first fetch:
// the page's history restarted at each visit, date hints never fired, and each
// refetch was counted as one more page stored.
func TestMasterRecordsARefetchAsOne(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	s.pages["/"] = `<html><body><p>front page</p></body></html>`
	o := discoveryPollOptions(t, "http://"+s.host+"/")
	o.Discovery.Enabled = false
	o.Revisit.Initial = 50 * time.Millisecond
	o.Revisit.MinInterval = 50 * time.Millisecond
	rig := newRestartRig(t, o, true)
	m := rig.start()
	u := "http://" + s.host + "/"
	waitFor(t, "the front page refetched", func() bool { return s.requested("/") >= 2 })
	var seen time.Time // the stored last fetch when first read
	waitFor(t, "the refetch recorded", func() bool {
		rv, err := m.st.Revisit(u)
		switch {
		case err != nil:
			return false
		case seen.IsZero():
			seen = rv.Last
			return rv.First.Before(rv.Last)
		}
		return rv.Last.After(seen)
	})
	rv, err := m.st.Revisit(u)
	if err != nil {
		t.Fatal(err)
	}
	if rv.Fetches != 2 || !rv.First.Before(rv.Last) {
		t.Errorf("after a refetch the page's stored state counts %d fetches, first %v, last %v: its history restarted", rv.Fetches, rv.First, rv.Last)
	}
	if n := m.Snapshot().Totals.PagesStored; n != 1 {
		t.Errorf("%d pages stored, want 1 (one page, refetched)", n)
	}
}

// A master restarted on a crawl whose pages are all fetched, idle until the first of
// them is due again, says when: its snapshot's NextRevisit is that page's due time
// (the console's header and `ctl status` show "IDLE (next revisit in 59m…)"), as
// one box's is. Before, an idle master said IDLE alone, for up to revisit.initial
// or longer, with no word of when it would fetch again.
func TestRestartedMasterIdleBetweenRevisitsSaysWhenTheNextIs(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "<html><body><p>the one page</p></body></html>")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	o := testDefaults()
	o.DB = filepath.Join(t.TempDir(), "c.db")
	o.Seeds = []string{"http://" + ln.Addr().String() + "/"}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.HostRate = 0
	o.Revisit.Enabled, o.Revisit.Initial = true, time.Hour
	idleUntil := func(who string, e *Engine) time.Time {
		t.Helper()
		var next time.Time
		waitFor(t, who+" idle, its next revisit known", func() bool {
			s := e.Snapshot()
			next = s.NextRevisit
			return s.State == view.StateIdle && !next.IsZero()
		})
		return next
	}
	e := startEngine(t, o)
	due := idleUntil("one box", e)
	e.Close()
	if left := time.Until(due); left < 50*time.Minute || left > time.Hour {
		t.Fatalf("one box's next revisit in %v; want within revisit.initial (1h)", left)
	}
	o.Seeds = nil
	_, conn := natstest.Start(t)
	m := startMaster(t, o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: 200 * time.Millisecond})
	if got := idleUntil("the restarted master", m); !got.Equal(due) {
		t.Fatalf("the restarted master's next revisit %v; want the page's due time %v", got, due)
	}
}
