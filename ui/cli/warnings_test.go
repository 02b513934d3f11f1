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
