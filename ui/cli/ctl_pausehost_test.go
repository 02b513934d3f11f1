package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store"
)

// An operator holds a site back before the crawl reaches it: `ctl pause host` takes
// a host the crawl knows only from its store (a URL an earlier run left parked,
// which no lane holds and nothing fetched yet) and pauses it; a host the crawl has
// never seen is still refused, exit 1, saying so.
func TestCtlPausesAHostOnlyQueuedInTheStore(t *testing.T) {
	t.Parallel() // its own sandbox and store
	sb := clusterSandbox(t, 21, 24, nil)
	opts := DemoOptions(sb, filepath.Join(t.TempDir(), "demo.db"))
	const held = "held.example"
	st, err := store.Open(opts.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.AddURLs([]store.URL{{URL: "http://" + held + "/", Host: held}}, nil)
	st.Defer("http://"+held+"/", time.Now().Add(24*time.Hour))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	eng := startedEngine(t, opts)
	url, tokenFile := servedOperator(t, opts.DB, eng)

	if code, out, errs := ctlRun(t, url, tokenFile, "pause", "host", held); code != 0 || !strings.Contains(out, "host "+held+" paused") {
		t.Errorf("ctl pause host %s (queued in the store): exit %d, %q, %q; want paused", held, code, out, errs)
	}
	if r := ctlStatusJSON(t, url, tokenFile); !strings.Contains(strings.Join(r.PausedHosts, " "), held) {
		t.Errorf("paused hosts %v after the pause, want %s", r.PausedHosts, held)
	}
	if code, out, errs := ctlRun(t, url, tokenFile, "resume", "host", held); code != 0 || !strings.Contains(out, "host "+held+" resumed") {
		t.Errorf("ctl resume host %s: exit %d, %q, %q", held, code, out, errs)
	}
	if code, _, errs := ctlRun(t, url, tokenFile, "pause", "host", "nosuch.example"); code != 1 || !strings.Contains(errs, "no host nosuch.example in the crawl") {
		t.Errorf("ctl pause host nosuch.example: exit %d, %q; want 1, no host in the crawl", code, errs)
	}
}
