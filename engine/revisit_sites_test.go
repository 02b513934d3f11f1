package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/refresh"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
)

// A restarted crawl keeps what each site's new pages showed at their first refetch
// (the estimator's site priors): a new page of a site whose articles never changed
// is planned days out after the restart as before it, not refetched blind after
// revisit.initial. Before, the priors lived in memory only and every site's first
// new pages were refetched after the hour again at each restart. A damaged record
// in the store costs its own site only.
func TestSitePriorsSurviveARestartOfTheCrawl(t *testing.T) {
	t.Parallel()
	o := robotsOptions(t, "http://127.0.0.1:1/")
	o.Revisit.Enabled = true
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 { // more than the evidence a site needs
		p := &revisit.Page{URL: fmt.Sprintf("https://www.news.example/story/%d", i), Class: revisit.ClassCom}
		at := t0.Add(time.Duration(i) * time.Minute)
		e.rv.Tracker.Observe(p, at, revisit.Outcome{Hash: 1, OK: true})
		e.rv.Tracker.Observe(p, p.Next, revisit.Outcome{Hash: 1, OK: true}) // unchanged at the first refetch
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// A damaged record among them costs that site only.
	withStore(t, o.DB, func(st *store.Store) {
		b, err := st.GetMeta(refresh.SitePriorsMeta)
		if err != nil {
			t.Fatalf("no site priors stored at stop: %v", err)
		}
		var plans map[string][]json.RawMessage
		if err := json.Unmarshal(b, &plans); err != nil {
			t.Fatal(err)
		}
		plans[""] = append([]json.RawMessage{json.RawMessage(`{"site":"damaged.example","n":"eight"}`)}, plans[""]...)
		b, _ = json.Marshal(plans)
		st.SetMeta(refresh.SitePriorsMeta, b)
	})
	firstOf := func(o config.Options) time.Duration {
		t.Helper()
		e, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		// A page of another site, fetched twice, sets the fetch price as the stored
		// pages' shares do when the crawl starts.
		q := &revisit.Page{URL: "https://other.example/", Class: revisit.ClassCom}
		e.rv.Tracker.Observe(q, t0, revisit.Outcome{Hash: 1, OK: true})
		e.rv.Tracker.Observe(q, q.Next, revisit.Outcome{Hash: 2, OK: true})
		p := &revisit.Page{URL: "https://section.news.example/story/new", Class: revisit.ClassCom}
		at := t0.Add(6 * time.Hour)
		e.rv.Tracker.Observe(p, at, revisit.Outcome{Hash: 1, OK: true})
		return p.Next.Sub(at)
	}
	if got := firstOf(o); got < 24*time.Hour {
		t.Errorf("after the restart a new page of the quiet site is refetched %v after its first fetch, want at least a day", got)
	}
	fresh := o
	fresh.DB = filepath.Join(t.TempDir(), "fresh.db")
	if got := firstOf(fresh); got != o.Revisit.Initial {
		t.Errorf("a crawl that never saw the site plans it %v after, want revisit.initial (%v): the test shows nothing", got, o.Revisit.Initial)
	}
}
