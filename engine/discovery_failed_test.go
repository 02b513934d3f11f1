package engine

import (
	"net/http"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A feed or sitemap that the crawl expected and whose fetch failed is a document that
// yielded nothing: the snapshot's per-site problems (the Sites pane) name it with
// the HTTP status, a declared one with where it was declared, and one WARN line says
// so. Before, a typo'd feed URL in the config showed only among the crawl's http_4xx
// counts, with the /sitemap.xml probes that most sites answer 404. The probe's 404
// stays no problem, and is counted as skipped (no_sitemap), not failed.
func TestFailedFeedOrSitemapIsASiteProblem(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/gone-feed"></head><body>front</body></html>`
	o := discoveryPollOptions(t, "http://"+h+"/")
	o.Discovery.Feeds = []string{"http://" + h + "/fed.xml"}
	o.Discovery.Sitemaps = []string{"http://" + h + "/nosuch-sitemap.xml"}
	e := startEngine(t, o)
	// The four 404s counted: each was recorded, its problem with it.
	waitFor(t, "the declared, announced and probed documents' 404s to be counted", func() bool {
		return s.requested("/fed.xml") > 0 && s.requested("/nosuch-sitemap.xml") > 0 &&
			s.requested("/gone-feed") > 0 && s.requested("/sitemap.xml") > 0 &&
			e.Stats().Errors["http_4xx"]+e.Stats().Skipped[front.SkipNoSitemap] >= 4
	})
	// The probe's 404 is no failure in the counts either (the end summary, status,
	// stats): a skip, as the pane and the log treat it, not among the http_4xx.
	st := e.Stats()
	if st.Errors["http_4xx"] != 3 || st.Skipped[front.SkipNoSitemap] != 1 {
		t.Errorf("http_4xx %d, %s %d; want the three expected documents failed and the probe skipped",
			st.Errors["http_4xx"], front.SkipNoSitemap, st.Skipped[front.SkipNoSitemap])
	}
	for _, u := range st.Examples["http_4xx"] {
		if strings.HasSuffix(u, "/sitemap.xml") {
			t.Errorf("the probed %s is an example of a failed http_4xx", u)
		}
	}
	want := map[string]string{
		"http://" + h + "/fed.xml":            "HTTP 404 (http_4xx); the config's discovery.feeds names it: check the URL",
		"http://" + h + "/nosuch-sitemap.xml": "HTTP 404 (http_4xx); the config's discovery.sitemaps names it: check the URL",
		"http://" + h + "/gone-feed":          "HTTP 404 (http_4xx)",
	}
	problems := map[string]string{}
	for _, d := range e.Snapshot().Discovery {
		for u, why := range d.Problems {
			problems[u] = why
		}
	}
	for u, why := range want {
		if problems[u] != why {
			t.Errorf("problem of %s: %q, want %q", u, problems[u], why)
		}
	}
	if why, ok := problems["http://"+h+"/sitemap.xml"]; ok {
		t.Errorf("the probed /sitemap.xml's 404 is a problem (%q): most sites have none", why)
	}
	for u := range want {
		n := 0
		for _, ev := range e.EventsSince(0, 1<<20) {
			if ev.Level >= view.LevelWarn && strings.Contains(ev.Msg, "feed/sitemap "+u+" yielded nothing") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d WARN lines say %s yielded nothing, want 1", n, u)
		}
	}
}

// A /sitemap.xml probe answered 401 (or any 4xx but 404 and 410, which say there is
// none) is a failure in the counts, not "no sitemap", and the Sites pane lists it
// as the site's problem, as the counts show it. (A 403 counts as refused, a block,
// before this.)
func TestAProbeAnsweredUnauthorizedIsAFailure(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	s.pages["/"] = `<html><body>front</body></html>`
	s.status = map[string]int{"/sitemap.xml": http.StatusUnauthorized}
	e := startEngine(t, discoveryPollOptions(t, "http://"+s.host+"/"))
	waitFor(t, "the probe's 401 to be counted", func() bool {
		st := e.Stats()
		return s.requested("/sitemap.xml") > 0 && st.Errors["http_4xx"]+st.Skipped[front.SkipNoSitemap] >= 1
	})
	if st := e.Stats(); st.Errors["http_4xx"] != 1 || st.Skipped[front.SkipNoSitemap] != 0 {
		t.Errorf("http_4xx %d, %s %d; want the probe's 401 failed, not skipped",
			st.Errors["http_4xx"], front.SkipNoSitemap, st.Skipped[front.SkipNoSitemap])
	}
	probe := "http://" + s.host + "/sitemap.xml"
	var why string
	for _, d := range e.Snapshot().Discovery {
		if w, ok := d.Problems[probe]; ok {
			why = w
		}
	}
	if want := "HTTP 401 (http_4xx); asked for as robots.txt names no sitemap"; why != want {
		t.Errorf("problem of the probed %s: %q, want %q", probe, why, want)
	}
}
