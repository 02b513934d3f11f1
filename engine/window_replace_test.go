package engine

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/steer"
)

// generationNews is a news site whose entry lists, per generation of the test, an
// article its page dates a day ago, one thirty days ago and one undated, all holding
// the keyword "flood": generation 1 lists /fresh1 /old1 /undated1, generation 2
// /fresh2 /old2 /undated2, so a restarted crawl has new articles to judge. The
// articles wait for release (when not nil) before they answer.
func generationNews(t *testing.T, gen *atomic.Int32, entered chan<- struct{}, release <-chan struct{}) *httptest.Server {
	t.Helper()
	now := time.Now().UTC()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		path := r.URL.Path
		if path == "/" {
			g := gen.Load()
			fmt.Fprintf(w, `<html><body><a href="/fresh%d">a</a> <a href="/old%d">b</a> <a href="/undated%d">c</a></body></html>`, g, g, g)
			if entered != nil {
				select {
				case entered <- struct{}{}:
				default:
				}
			}
			return
		}
		kind := strings.TrimRight(path[1:], "0123456789")
		if kind != "fresh" && kind != "old" && kind != "undated" || len(kind) == len(path)-1 {
			http.NotFound(w, r)
			return
		}
		if release != nil {
			<-release
		}
		head := ""
		switch kind {
		case "fresh":
			head = now.Add(-24 * time.Hour).Format(time.RFC3339)
		case "old":
			head = now.Add(-30 * 24 * time.Hour).Format(time.RFC3339)
		}
		if head != "" {
			head = `<meta property="article:published_time" content="` + head + `">`
		}
		fmt.Fprintf(w, `<html><head>%s</head><body><article><h1>River %s</h1><p>Flood warnings along the river: the water rose two metres overnight and the quay was closed to traffic until Friday.</p></article></body></html>`, head, path[1:])
	}))
	t.Cleanup(srv.Close)
	return srv
}

// resultPaths are the result URLs of the store at path, on srv, sorted.
func resultPaths(t *testing.T, path, srv string) []string {
	t.Helper()
	rs, _ := readResults(t, path)
	var got []string
	for _, r := range rs {
		got = append(got, strings.TrimPrefix(r.URL, srv))
	}
	slices.Sort(got)
	return slices.Compact(got)
}

// A later date window replaces an earlier one: the operator widens a news site's
// window to 60 days and then narrows it to 7, so the article dated thirty days ago
// is not a keyword result, while the crawl runs and after a restart (the steering
// changes are replayed over a config that sets no window, and the restarted crawl's
// new articles are judged by the last window set).
func TestKeywordDateWindowLaterReplacesEarlier(t *testing.T) {
	t.Parallel()
	var gen atomic.Int32
	gen.Store(1)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	srv := generationNews(t, &gen, entered, release)
	o := windowOptions(t, srv.URL+"/", 0)
	e := startEngine(t, o)
	<-entered
	for _, line := range []string{"window harbor 60", "window harbor 7"} {
		s, err := steer.Parse(strings.Fields(line))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Steer(s); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	close(release)
	waitDone(t, e, 30*time.Second)
	if v := e.Snapshot().Sites; v == nil || len(v.Sites) != 1 || v.Sites[0].WithinDays != 7 || v.Sites[0].OutOfWindow != 1 {
		t.Errorf("sites %+v: want harbor with the 7-day window set last, which left out one page", v)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(resultPaths(t, o.DB, srv.URL), " "); got != "/fresh1 /undated1" {
		t.Errorf("results %s, want /fresh1 /undated1: /old1 is dated before the 7-day window set last (the 60-day one before it would keep it)", got)
	}

	// The restart: the same config (no window), the steering list replayed. The
	// entry, fetched already, is fetched again by the next round (rounds come every
	// 200 ms here), and now lists generation 2's articles.
	gen.Store(2)
	o.Rounds.Every = 200 * time.Millisecond
	e2 := startEngine(t, o)
	waitFor(t, "the restarted crawl's new articles fetched", func() bool {
		done := 0
		for _, p := range []string{"/fresh2", "/old2", "/undated2"} {
			if pg, err := e2.st.Page(srv.URL + p); err == nil && pg.Status == 200 {
				done++
			}
		}
		return done == 3
	})
	waitDone(t, e2, 30*time.Second)
	if v := e2.Snapshot().Sites; v == nil || len(v.Sites) != 1 || v.Sites[0].WithinDays != 7 {
		t.Errorf("sites after the restart %+v: want harbor's 7-day window, the last one set", v)
	}
	if err := e2.Close(); err != nil {
		t.Fatal(err)
	}
	got := resultPaths(t, o.DB, srv.URL)
	if slices.Contains(got, "/old2") || !slices.Contains(got, "/fresh2") || !slices.Contains(got, "/undated2") {
		t.Errorf("results after the restart %v: want /fresh2 and /undated2 and not /old2 (dated before the 7-day window the replay keeps)", got)
	}
}
