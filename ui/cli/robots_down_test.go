package cli

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestSiteDownSaysWhyAndThatItsURLsWait: a crawl of a site that does not answer (a
// closed port: the operator's server not started yet) says on stderr why its
// robots.txt failed and that the URLs wait; started again at once on the same store,
// it does not end as a finished crawl ("done: 0 pages fetched", "0 URLs left to
// fetch") but says the URL waits deferred and how to go on.
func TestSiteDownSaysWhyAndThatItsURLsWait(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	seed := "http://" + addr + "/"
	db := filepath.Join(t.TempDir(), "down.db")
	args := []string{"crawl", "--headless", "--until-idle", "--allow-private", "127.0.0.0/8", "--db", db, seed}

	var stdout, stderr strings.Builder
	if code := Main(args, &stdout, &stderr); code != ExitNothingFetched {
		t.Errorf("exit %d for a site that does not answer; want %d (nothing fetched)\n%s", code, ExitNothingFetched, stderr.String())
	}
	errs := stderr.String()
	if !strings.Contains(errs, "robots.txt for http://"+addr+" did not answer") || !strings.Contains(errs, "connection refused") {
		t.Errorf("stderr does not say robots.txt did not answer and why (connection refused)\n%s", errs)
	}
	if !strings.Contains(errs, "fetched once it answers") {
		t.Errorf("the end of stderr does not say the URLs wait for the site\n%s", errs)
	}

	stdout.Reset()
	stderr.Reset()
	Main(args, &stdout, &stderr)
	errs = stderr.String()
	if !strings.Contains(errs, "1 deferred (fetched when due)") {
		t.Errorf("the resume line does not count the deferred URL\n%s", errs)
	}
	if !strings.Contains(errs, "nothing was due: 1 URLs wait deferred in "+db) {
		t.Errorf("a second run that found nothing due does not say its URL waits\n%s", errs)
	}
}
