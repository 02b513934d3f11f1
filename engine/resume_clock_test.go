package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store"
)

// TestResumeOnEngineClock resumes a crawl stopped mid-way, on a clock ten years
// ahead of the wall's: a URL deferred until an hour before the engine's now is due
// and is resumed with the queue (the wall clock would keep it set aside for ten
// years), and the URLs the earlier run left count among those taken, so the header
// never reads all done while the resumed queue waits.
func TestResumeOnEngineClock(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 1, 8, 0)
	o := testOptions(t, w)
	const ahead = 10 * 365 * 24 * time.Hour
	o.Now = func() time.Time { return time.Now().Add(ahead) }
	page := func(n int) string { return fmt.Sprintf("http://%s/p/%d", w.hosts[0], n) }
	host := strings.Split(w.hosts[0], ":")[0]

	st, err := store.Open(o.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.AddURLs([]store.URL{
		{URL: page(0), Host: host},
		{URL: page(1), Host: host, Depth: 1, ParentHash: 1},
		{URL: page(2), Host: host, Depth: 1, ParentHash: 1},
	}, nil)
	st.Defer(page(2), o.Now().Add(-time.Hour))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	e := startEngine(t, o)
	s := e.Snapshot()
	if s.Totals.URLsQueued < 3 {
		t.Errorf("at the resume %d URLs counted queued, want the 3 the earlier run left", s.Totals.URLsQueued)
	}
	waitDone(t, e, 30*time.Second)
	resumed := ""
	for _, ev := range e.EventsSince(0, 0) {
		if strings.HasPrefix(ev.Msg, "resuming ") {
			resumed = ev.Msg
		}
	}
	if !strings.HasPrefix(resumed, "resuming 3 queued URLs") {
		t.Errorf("resume event %q, want 3 queued URLs resumed (the deferred one due on the engine's clock)", resumed)
	}
	s = e.Snapshot()
	if s.Totals.URLsDone > s.Totals.URLsQueued {
		// What ended how tells which path counted a URL twice (seen once at load
		// 20: 17 done of 16; idle, 16 of 16 with 8 robots_disallowed skips).
		t.Errorf("%d URLs done of %d queued: more done than taken; errors %v, skipped %v, events:\n%s",
			s.Totals.URLsDone, s.Totals.URLsQueued, s.Totals.Errors, s.Totals.Skipped, eventLines(e))
	}
	e.Close()
	if u, err := storedURL(t, o.DB, page(2)); err != nil || u.State != store.Processed {
		t.Errorf("deferred URL %s: state %v (%v), want processed", page(2), u.State, err)
	}
}

// eventLines is the crawl's log, one event a line.
func eventLines(e *Engine) string {
	var b strings.Builder
	for _, ev := range e.EventsSince(0, 0) {
		fmt.Fprintf(&b, "%s %s %s\n", ev.Level, ev.Host, ev.Msg)
	}
	return b.String()
}
