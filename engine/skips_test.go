package engine

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/front"
)

// TestSkipsApartFromErrors crawls a small site that has one of each thing the crawl
// skips by choice — a robots.txt exclusion, a PDF, binary content labelled as HTML,
// links off the site, too deep and excluded by pattern — next to one real failure (a
// 404), and checks that only the 404 is an error and that each skip is counted under
// its reason: robots.txt exclusions counted as errors would read as a failing crawl.
func TestSkipsApartFromErrors(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<html><body>"+body+"</body></html>")
		}
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/{$}", html(`<a href="/private/1">p</a><a href="/doc.pdf">pdf</a><a href="/bin">bin</a>`+
		`<a href="/missing">404</a><a href="http://elsewhere.example/">off</a><a href="http://other.example/x">off</a>`+
		`<a href="/skip/me">excluded</a><a href="/d1">deeper</a>`))
	mux.HandleFunc("/d1", html(`<a href="/d1/d2">too deep</a><a href="http://elsewhere.example/">off again</a>`))
	mux.HandleFunc("/doc.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.4 ..."))
	})
	mux.HandleFunc("/bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte{0x89, 'P', 'N', 'G', 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0xff, 0xfe, 0, 0})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	o := testDefaults()
	o.Seeds = []string{srv.URL + "/"}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Scope.SameSite = true
	o.Scope.MaxDepth = 1
	o.Scope.Exclude = []string{`/skip/`}
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.HostRate = 0
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	st := e.Stats()

	wantSkipped := map[string]int64{
		"robots_disallowed":     1,
		"content_type":          1,
		"binary_body":           1,
		"out_of_scope_off_site": 2, // the two off-site links on /
		"out_of_scope_too_deep": 2, // both links on /d1 (depth is checked first: the off-site one too)
		"out_of_scope_excluded": 1,
	}
	if fmt.Sprint(st.Skipped) != fmt.Sprint(wantSkipped) {
		t.Errorf("skipped %v\nwant    %v", st.Skipped, wantSkipped)
	}
	if want := map[string]int64{"http_4xx": 1}; fmt.Sprint(st.Errors) != fmt.Sprint(want) {
		t.Errorf("errors %v, want only the 404: %v", st.Errors, want)
	}
	if st.RobotsSkips != 1 {
		t.Errorf("robots_disallowed (top level) = %d, want 1", st.RobotsSkips)
	}
	snap := e.Snapshot()
	if fmt.Sprint(snap.Totals.Skipped) != fmt.Sprint(wantSkipped) {
		t.Errorf("the console's totals: skipped %v", snap.Totals.Skipped)
	}
	var classes int64
	for _, n := range st.StatusClass {
		classes += n
	}
	if classes != st.PagesFetched || st.StatusClass["4xx"] != 1 {
		t.Errorf("status classes %v add up to %d, pages fetched %d (one 4xx)", st.StatusClass, classes, st.PagesFetched)
	}
	for _, k := range front.SkipKinds() {
		if !front.IsSkip(k) {
			t.Errorf("IsSkip(%q) = false", k)
		}
	}
	for _, k := range []string{"http_4xx", "timeout", "robots_unreachable", "redirected", ""} {
		if front.IsSkip(k) {
			t.Errorf("IsSkip(%q) = true: a failure counted as a skip", k)
		}
	}
}
