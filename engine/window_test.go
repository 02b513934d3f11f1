package engine

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// datedNews is a news site whose entry lists three articles holding the keyword
// "flood": one its page dates a day ago, one thirty days ago, one undated. The
// articles wait for release (when not nil) before they answer, so a test can
// steer between the entry's fetch and theirs.
func datedNews(t *testing.T, entered chan<- struct{}, release <-chan struct{}) *httptest.Server {
	t.Helper()
	now := time.Now().UTC()
	dates := map[string]time.Time{"/fresh": now.Add(-24 * time.Hour), "/old": now.Add(-30 * 24 * time.Hour)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><body><a href="/fresh">a</a> <a href="/old">b</a> <a href="/undated">c</a></body></html>`)
			if entered != nil {
				select {
				case entered <- struct{}{}:
				default:
				}
			}
		case "/fresh", "/old", "/undated":
			if release != nil {
				<-release
			}
			head := ""
			if at, ok := dates[r.URL.Path]; ok {
				head = fmt.Sprintf(`<meta property="article:published_time" content="%s">`, at.Format(time.RFC3339))
			}
			fmt.Fprintf(w, `<html><head>%s</head><body><article><h1>River %s</h1><p>Flood warnings along the river: the water rose two metres overnight and the quay was closed to traffic until Friday.</p></article></body></html>`, head, r.URL.Path[1:])
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func windowOptions(t *testing.T, entry string, days int) config.Options {
	o := testDefaults()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Robots = false
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 3*time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	o.Keywords = []string{"flood"}
	o.Sites = []config.SiteOptions{{Name: "harbor", Kind: config.SiteNews, Entry: entry, WithinDays: days}}
	return o
}

// checkWindow: of the three articles holding the keyword, the fresh and the
// undated one are results and the one dated thirty days ago is not; it is stored
// all the same, and the Sites pane counts it.
func checkWindow(t *testing.T, e *Engine, o config.Options, srv string) {
	t.Helper()
	var row *view.SiteRow
	if v := e.Snapshot().Sites; v != nil && len(v.Sites) == 1 {
		row = &v.Sites[0]
	}
	if row == nil || row.WithinDays != 7 || row.OutOfWindow != 1 {
		t.Errorf("sites row %+v: want a 7-day window that left out one page", row)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	rs, _ := readResults(t, o.DB)
	var got []string
	for _, r := range rs {
		got = append(got, strings.TrimPrefix(r.URL, srv))
	}
	sort.Strings(got)
	if strings.Join(got, " ") != "/fresh /undated" {
		t.Errorf("results %v, want /fresh and /undated (/old is dated before the 7-day window)", got)
	}
	withStore(t, o.DB, func(st *store.Store) {
		if p, err := st.Page(srv + "/old"); err != nil || p.Status != 200 {
			t.Errorf("the old article is not stored: %+v, %v", p, err)
		}
	})
}

// A news site's date window from the config: only its pages published in the
// last within_days days are keyword results.
func TestKeywordDateWindowFromConfig(t *testing.T) {
	t.Parallel()
	srv := datedNews(t, nil, nil)
	o := windowOptions(t, srv.URL+"/", 7)
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	checkWindow(t, e, o, srv.URL)
}

// The same window set live (:window harbor 7) between the entry's fetch and its
// articles': the pages fetched from then on are judged by it.
func TestKeywordDateWindowSteered(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}, 1), make(chan struct{})
	srv := datedNews(t, entered, release)
	o := windowOptions(t, srv.URL+"/", 0)
	e := startEngine(t, o)
	<-entered
	for line, want := range map[string]string{
		"window nosuch 7":  `no site named "nosuch"`,
		"window harbor -1": "",
	} {
		s, err := steer.Parse(strings.Fields(line))
		if err == nil {
			_, err = e.Steer(s)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", line, err, want)
		}
	}
	s, err := steer.Parse(strings.Fields("window harbor 7"))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := e.Steer(s)
	if err != nil || !strings.Contains(msg, "last 7 days") {
		t.Fatalf("window harbor 7: %q, %v", msg, err)
	}
	close(release)
	waitDone(t, e, 30*time.Second)
	checkWindow(t, e, o, srv.URL)
}
