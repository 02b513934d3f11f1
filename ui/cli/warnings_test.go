package cli

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadlessRefusedSeedsPrintTheFix: a headless crawl whose only seeds are on
// loopback (refused by the SSRF guard without --allow-private) says so on stderr
// while it runs, once for the two hosts, with the range to allow; names the refused
// URLs in its summary; and exits non-zero, since nothing was fetched.
func TestHeadlessRefusedSeedsPrintTheFix(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	a, b := "http://127.0.0.1"+port+"/", "http://127.0.0.2"+port+"/"
	var stdout, stderr strings.Builder
	code := Main([]string{"crawl", "--headless", "--until-idle", "--db", filepath.Join(t.TempDir(), "c.db"), a, b}, &stdout, &stderr)
	if code != ExitNothingFetched {
		t.Errorf("exit status %d after every seed was refused; want %d (nothing fetched)", code, ExitNothingFetched)
	}
	errs := stderr.String()
	if n := strings.Count(errs, "refused by the SSRF guard"); n != 2 {
		t.Errorf("the SSRF guard's warning is on stderr %d times; want it once whole and once in the count of its repeats\n%s", n, errs)
	}
	if !strings.Contains(errs, "warning ×2 (127.0.0.1, 127.0.0.2), like the one above") &&
		!strings.Contains(errs, "warning ×2 (127.0.0.2, 127.0.0.1), like the one above") {
		t.Errorf("stderr does not group the two hosts' warnings\n%s", errs)
	}
	if !strings.Contains(errs, "nothing was fetched") || !strings.Contains(errs, "--allow-private 127.0.0.0/8") {
		t.Errorf("stderr does not end saying nothing was fetched and how to allow loopback\n%s", errs)
	}
	if out := stdout.String(); !strings.Contains(out, "failed ssrf_blocked ×2: "+a+", "+b) &&
		!strings.Contains(out, "failed ssrf_blocked ×2: "+b+", "+a) {
		t.Errorf("the summary does not name the refused URLs\n%s", out)
	}
}

// The README's first crawl: refused by the SSRF guard without --allow-private, then
// started again with it on the same --db. Opening the store queues the refused URL
// again, so the second start counts it among the URLs left to fetch, not among the
// failed ("0 URLs left to fetch, …, 1 failed or skipped" read as nothing to do).
func TestResumeAfterTheSSRFGuardCountsItsURLsAsLeft(t *testing.T) {
	t.Parallel() // its own site and store; it waits on two crawls
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "first.db")
	var out1, err1 strings.Builder
	if code := Main([]string{"crawl", "--headless", "--until-idle", "--db", db, srv.URL + "/"}, &out1, &err1); code != ExitNothingFetched {
		t.Fatalf("first run: exit %d, want %d\n%s%s", code, ExitNothingFetched, out1.String(), err1.String())
	}
	var out2, err2 strings.Builder
	if code := Main([]string{"crawl", "--headless", "--until-idle", "--allow-private", "127.0.0.0/8", "--delay", "0s..0s", "--db", db, srv.URL + "/"}, &out2, &err2); code != 0 {
		t.Fatalf("second run: exit %d\n%s%s", code, out2.String(), err2.String())
	}
	want := "resuming the crawl in " + db + ": 0 pages stored (kept), 1 URL left to fetch, 0 URLs done, 0 failed or skipped (1 refused by the SSRF guard before: tried again)"
	if !strings.Contains(err2.String(), want) {
		t.Errorf("the second start does not say %q:\n%s", want, err2.String())
	}
	if !strings.Contains(out2.String(), "1 stored") {
		t.Errorf("the second run did not store the page:\n%s", out2.String())
	}
}
