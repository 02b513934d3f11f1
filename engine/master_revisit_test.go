package engine

import (
	"testing"
	"time"
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
