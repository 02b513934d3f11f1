package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A worker's stderr says a host's warning once, as a headless crawl does (a dead
// host's robots.txt is warned of again at every retry, and a long-lived worker's
// stderr filled with the same line), and at its end how often it came; the worker's
// own warnings, each a change of its link to the master, every time.
func TestWorkerSaysAHostsWarningOnceAndItsOwnEachTime(t *testing.T) {
	var stderr strings.Builder
	warns := newWarnReporter(&stderr)
	warns.who = "worker b1"
	say := func(format string, a ...any) { fmt.Fprintf(&stderr, "worker b1: "+format+"\n", a...) }
	robots := func(port int) view.Event {
		return view.Event{Level: view.LevelWarn, Host: "legacy.valley.gov", Msg: fmt.Sprintf(
			"robots.txt for http://legacy.valley.gov:8080 did not answer (dns legacy.valley.gov: servfail: server 127.0.0.1:%d)", port)}
	}
	unreachable := view.Event{Level: view.LevelWarn, Msg: "master unreachable: 2 heartbeats unanswered"}
	for _, ev := range []view.Event{robots(51551), unreachable, {Level: view.LevelWarn, Msg: "master reachable again"},
		robots(43102), unreachable, {Level: view.LevelInfo, Host: "a.test", Msg: "lane 3 opened"}} {
		workerWarning(ev, warns, say)
	}
	warns.finish()
	out := stderr.String()
	if n := strings.Count(out, "worker b1: warning: robots.txt for http://legacy.valley.gov:8080"); n != 1 {
		t.Errorf("the host's robots.txt warning is printed %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "worker b1: warning ×2, like the one above") {
		t.Errorf("the end does not count the warning's repeats:\n%s", out)
	}
	if n := strings.Count(out, "worker b1: master unreachable"); n != 2 {
		t.Errorf("the master unreachable is printed %d times, want each time (2):\n%s", n, out)
	}
	if strings.Contains(out, "lane 3 opened") {
		t.Errorf("an INFO event reached stderr:\n%s", out)
	}
}
