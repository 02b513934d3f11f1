package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
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
	page := leftMidway(t, w, o)

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
		// Idle, 16 of 16 with 8 robots_disallowed skips; a URL counted twice is
		// named by how each ended (TestResumedDeferredQueuedOnce: the deferred one).
		t.Errorf("%d URLs done of %d queued: more done than taken; errors %v, skipped %v, events:\n%s",
			s.Totals.URLsDone, s.Totals.URLsQueued, s.Totals.Errors, s.Totals.Skipped, eventLines(e))
	}
	e.Close()
	if u, err := storedURL(t, o.DB, page(2)); err != nil || u.State != store.Processed {
		t.Errorf("deferred URL %s: state %v (%v), want processed", page(2), u.State, err)
	}
}

// leftMidway writes to o's store what a crawl of w stopped mid-way leaves: pages
// 0 and 1 queued, page 2 deferred until an hour before o's clock (due at the
// resume). It returns the URL of page n.
func leftMidway(t *testing.T, w *miniWeb, o config.Options) func(n int) string {
	t.Helper()
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
	return page
}

// TestResumedDeferredQueuedOnce: a deferred URL the resume queued (due at the
// start) is not queued again by the deferrals' next look at the store while it
// waits for its lane. It stayed deferred in the store until a lane took it, so
// every look meanwhile (once a second) put it on the board again: fetched and
// counted done twice, more URLs done than queued (17 of 16 on a loaded box).
func TestResumedDeferredQueuedOnce(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 1, 8, 0)
	o := testOptions(t, w)
	leftMidway(t, w, o)

	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	e.Pause() // no lane takes a task: the resumed URLs wait on the board
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	e.front.RequeueDeferred() // what the deferrals' tick does while they wait
	e.front.RequeueDeferred()
	e.Resume()
	waitDone(t, e, 30*time.Second)
	s := e.Snapshot()
	if s.Totals.URLsDone != s.Totals.URLsQueued || w.hits.Load() != int64(w.pages) {
		t.Errorf("%d URLs done of %d queued, %d fetches of %d pages: want each URL queued and fetched once; events:\n%s",
			s.Totals.URLsDone, s.Totals.URLsQueued, w.hits.Load(), w.pages, eventLines(e))
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
