package cli

import (
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// TestSiteDownSaysWhyAndThatItsURLsWait: a crawl of a site that does not answer (a
// closed port: the operator's server not started yet) says on stderr why its
// robots.txt failed and that the URLs wait; started again at once on the same store,
// it does not end as a finished crawl ("done: 0 pages fetched", "0 URLs left to
// fetch"): it asks robots.txt again and says the URL waits and how to go on.
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
	// The robots cache starts empty: the URL is due at once, its robots.txt asked
	// again (not left to the first run's wait), and it still waits.
	if !strings.Contains(errs, "robots.txt for http://"+addr+" did not answer") || !strings.Contains(errs, "fetched once it answers") {
		t.Errorf("a second run did not ask robots.txt again and say the URL waits\n%s", errs)
	}
}

// URLs waiting for their site's robots.txt are said to wait, in the same words and
// figures, by the end of a crawl, the headless progress line and `ctl status` (text
// and JSON): "robots.txt wait: 180 URLs on 3 sites not answering", not listed as
// failed. robots_unreachable among the errors counts them once each; a refetch that
// failed on it is still a failure, and those that went on once robots.txt answered
// are said so.
func TestRobotsDeferredURLsShowAsWaitingNotFailed(t *testing.T) {
	wait := view.RobotsWaiting{URLs: 180, Sites: 3, Waited: 185}
	st := view.Stats{Errors: map[string]int64{"robots_unreachable": 187, "http_4xx": 2}, RobotsWaiting: &wait,
		Examples: map[string][]string{"robots_unreachable": {"http://down.example/a", "http://down.example/b"}}}
	const says = "robots.txt wait: 180 URLs on 3 sites not answering"
	report := strings.Join(kindReport(st), "\n") + "\n"
	for _, want := range []string{"  " + says + "; fetched once it answers: http://down.example/a …",
		"  robots_unreachable: 5 deferred went on once robots.txt answered", "  failed robots_unreachable ×2\n", "  failed http_4xx ×2"} {
		if !strings.Contains(report, want) {
			t.Errorf("end of crawl:\n%s\nwant %q", report, want)
		}
	}
	if strings.Contains(report, "×187") || strings.Contains(report, "×180") {
		t.Errorf("end of crawl lists the waiting URLs as failed:\n%s", report)
	}
	if got := summary(st); !strings.HasSuffix(got, "errors: http_4xx=2 robots_unreachable=187; skipped: none; "+says) {
		t.Errorf("summary %q: want the errors, then %q", got, says)
	}
	s := view.Snapshot{Totals: view.Totals{Errors: st.Errors, Deferred: 190, Robots: wait}}
	if got := progress(s); !strings.Contains(got, "errors 189  skipped 0  "+says) {
		t.Errorf("progress %q: want %q after the errors", got, says)
	}
	var out, js strings.Builder
	printStatus(s, false, &out)
	if !strings.Contains(out.String(), "errors: http_4xx=2 robots_unreachable=187\nskipped: none\n"+says+" (fetched once it answers)\n") {
		t.Errorf("ctl status:\n%s\nwant %q under the errors", out.String(), says)
	}
	printStatus(s, true, &js)
	var r ctlStatusReport
	if err := json.Unmarshal([]byte(js.String()), &r); err != nil || r.Deferred != 190 || r.RobotsWaiting != wait {
		t.Errorf("ctl status --json: %v\n%s\nwant deferred 190 and robots_waiting %+v", err, js.String(), wait)
	}
}
