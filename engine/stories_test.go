package engine_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// TestStoriesGroupedWhileCrawling: one article run under two URLs with two
// templates and headlines, and another article, make one story of two pages in the
// Stories view (earliest stored first); the listing page is in none.
func TestStoriesGroupedWhileCrawling(t *testing.T) {
	t.Parallel()
	srv := syndicationServer(t, nil)
	o := enginetest.DefaultOptions()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	quickSiteOptions(&o, []string{srv.URL + "/"})
	o.Robots = false
	e := enginetest.CrawlToDone(t, o)
	v := e.Snapshot().Stories
	if v == nil || v.Grouped != 1 || len(v.Rows) != 1 || len(v.Rows[0].Pages) != 2 {
		t.Fatalf("stories view %+v: want one story of the two cold-wave pages", v)
	}
	got := map[string]bool{}
	for _, p := range v.Rows[0].Pages {
		got[strings.TrimPrefix(p.URL, srv.URL)] = true
	}
	if !got["/wire/cold"] || !got["/local/2026/brace-yourselves"] {
		t.Fatalf("story pages %v", v.Rows[0].Pages)
	}
	if p := v.Rows[0].Pages; p[0].Fetched.After(p[1].Fetched) {
		t.Fatalf("story pages not earliest first: %v", p)
	}
}

// The wire article, a local outlet's copy of it, and another article.
var (
	wireStory = []string{
		"The national weather service issued a cold wave warning on Friday, saying temperatures across the central and eastern regions would fall by more than ten degrees over the next three days.",
		"Forecasters urged residents to protect themselves against the cold, and asked road authorities to prepare for ice and snow on highways, while farmers were told to keep greenhouses warm.",
		"The chief forecaster said temperatures would recover slowly once the cold wave passes, but another burst of cold air could arrive in early December, and warnings would follow as it develops.",
	}
	otherStory = []string{
		"The city's culture office announced on Thursday that twenty parks would host a winter festival of light this year, showing large lantern installations designed by local artists until spring.",
		"The organisers said the festival has three parts, traditional lanterns, modern light shows and interactive installations, where visitors can play games of light and shadow with their children.",
	}
)

// syndicationServer serves a listing linking the wire article (/wire/cold), a
// local outlet's copy under another template and headline, and another article
// (/lanterns). published gives a page's article:published_time by path (none
// when absent).
func syndicationServer(t *testing.T, published map[string]time.Time) *httptest.Server {
	t.Helper()
	render := func(w http.ResponseWriter, r *http.Request, outlet, headline string, paras []string) {
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		b.WriteString("<html><head>")
		if at, ok := published[r.URL.Path]; ok {
			fmt.Fprintf(&b, `<meta property="article:published_time" content="%s">`, at.Format(time.RFC3339))
		}
		fmt.Fprintf(&b, "</head><body><nav><a href=/>%s</a></nav><article><h1>%s</h1><p>By %s staff</p>", outlet, headline, outlet)
		for _, p := range paras {
			fmt.Fprintf(&b, "<p>%s</p>", p)
		}
		b.WriteString("</article></body></html>")
		w.Write([]byte(b.String()))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><a href="/wire/cold">a</a> <a href="/local/2026/brace-yourselves">b</a> <a href="/lanterns">c</a></body></html>`))
	})
	mux.HandleFunc("/wire/cold", func(w http.ResponseWriter, r *http.Request) {
		render(w, r, "Wire", "Cold wave warning issued", wireStory)
	})
	mux.HandleFunc("/local/2026/brace-yourselves", func(w http.ResponseWriter, r *http.Request) {
		render(w, r, "Harbor Times", "Brace yourselves: temperatures to plunge", wireStory)
	})
	mux.HandleFunc("/lanterns", func(w http.ResponseWriter, r *http.Request) {
		render(w, r, "Wire", "Lantern festival opens", otherStory)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestStoryListsTheEarliestPublisherFirst: the pages of a story are ordered by the
// date each page gives itself, not by when the crawl happened to fetch them: the
// local outlet dated its copy two hours before the wire's, so it leads the story
// whatever the fetch order, and each page shows its own date.
func TestStoryListsTheEarliestPublisherFirst(t *testing.T) {
	t.Parallel()
	local := time.Now().UTC().Add(-50 * time.Hour).Truncate(time.Second)
	wire := local.Add(2 * time.Hour)
	srv := syndicationServer(t, map[string]time.Time{"/wire/cold": wire, "/local/2026/brace-yourselves": local})
	o := enginetest.DefaultOptions()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	quickSiteOptions(&o, []string{srv.URL + "/"})
	o.Robots = false
	e := enginetest.CrawlToDone(t, o)
	v := e.Snapshot().Stories
	if v == nil || len(v.Rows) != 1 || len(v.Rows[0].Pages) != 2 {
		t.Fatalf("stories view %+v: want one story of the two cold-wave pages", v)
	}
	p := v.Rows[0].Pages
	if strings.TrimPrefix(p[0].URL, srv.URL) != "/local/2026/brace-yourselves" || !p[0].Published.Equal(local) || !p[1].Published.Equal(wire) {
		t.Fatalf("story pages %+v: want the local copy (published %v) before the wire's (%v), each with its own date", p, local, wire)
	}
}

// TestDistributedStoriesReachTheMaster: on a distributed crawl the workers'
// results feed the master's story index (the fingerprint travels with the
// result's signature), so the master's Stories view groups the two copies of
// the wire article, earliest publisher first, as one process does.
func TestDistributedStoriesReachTheMaster(t *testing.T) {
	t.Parallel()
	local := time.Now().UTC().Add(-50 * time.Hour).Truncate(time.Second)
	srv := syndicationServer(t, map[string]time.Time{"/wire/cold": local.Add(time.Hour), "/local/2026/brace-yourselves": local})
	c := startClusterWith(t, enginetest.SandboxConfig(3, 2), 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		quickSiteOptions(o, []string{srv.URL + "/"})
		o.Robots = false
	})
	c.worker("w1", "127.0.0.2")
	enginetest.WaitSnapshot(t, c.master, "the master's Stories view with the wire story", func(s view.Snapshot) bool {
		return s.Stories != nil && len(s.Stories.Rows) == 1 && len(s.Stories.Rows[0].Pages) == 2
	})
	p := c.master.Snapshot().Stories.Rows[0].Pages
	if strings.TrimPrefix(p[0].URL, srv.URL) != "/local/2026/brace-yourselves" || !p[0].Published.Equal(local) {
		t.Fatalf("story pages %+v: want the local copy (published %v) first", p, local)
	}
	c.waitDone(time.Minute)
}
