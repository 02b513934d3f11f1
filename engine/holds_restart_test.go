package engine_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/holds"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// holdsWeb is a sandbox web whose news sites have two section hosts of 120
// articles each: work left on the held hosts, and on the others, after a restart.
func holdsWeb(seed int64) sandbox.Config {
	cfg := smallWeb(seed, 6)
	cfg.Layout.SectionsMin, cfg.Layout.SectionsMax = 2, 2
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = 6, 20
	return cfg
}

// heldHosts are two section hosts of one news site of sb (the one to pause, the
// one to disable) and the sandbox's count of requests to a host begun at since or
// after, and to the other hosts.
func heldHosts(t *testing.T, sb *sandbox.Sandbox) (paused, disabled string, count func(host string, since time.Time) int, others func(since time.Time) int) {
	t.Helper()
	for _, s := range sb.Info().Sites {
		if s.Search == "" && len(s.Hosts) >= 3 {
			paused, disabled = s.Hosts[1], s.Hosts[2]
			break
		}
	}
	if paused == "" {
		t.Fatalf("no news site with two section hosts in %+v", sb.Info().Sites)
	}
	count = func(host string, since time.Time) int {
		n := 0
		for _, r := range sb.Truth().Requests() {
			if r.Host == host && !r.Start.Before(since) {
				n++
			}
		}
		return n
	}
	others = func(since time.Time) int {
		n := 0
		for _, r := range sb.Truth().Requests() {
			if r.Host != paused && r.Host != disabled && !r.Start.Before(since) {
				n++
			}
		}
		return n
	}
	return paused, disabled, count, others
}

// TestTheOperatorsHostHoldsSurviveARestart: on one box, the operator pauses one
// host and disables another mid-crawl, and the crawl stops; started again on the
// same database, it says so and holds both: the sandbox sees no request to either
// while the other hosts go on, the Groups pane's paused hosts and the Egress
// pane's disabled ones list them. Resumed, the paused host is fetched again; the
// disabled one waits for its disable's end (rotation.disable_for, 2 hours).
func TestTheOperatorsHostHoldsSurviveARestart(t *testing.T) {
	t.Parallel()
	sb := enginetest.StartSandbox(t, holdsWeb(61))
	o := enginetest.PoliteOptions(sb, filepath.Join(t.TempDir(), "crawl.db"))
	o.Egress = []string{"bind:127.0.0.1"} // the host_disable_list is the egress rotation's
	paused, disabled, count, others := heldHosts(t, sb)

	e := enginetest.Start(t, o)
	// Their section and listing pages read: their articles wait in the queue.
	enginetest.WaitFor(t, "both hosts requested 4 times", func() bool {
		return count(paused, time.Time{}) >= 4 && count(disabled, time.Time{}) >= 4
	})
	if err := e.PauseHost(paused, true); err != nil {
		t.Fatal(err)
	}
	if err := e.SetHostDisabled(disabled, true); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	restart := time.Now() // the first run's requests all began before its Close returned

	e = enginetest.Start(t, o)
	if got, want := e.HeldHosts(), (holds.Restored{Paused: 1, Disabled: 1}); got != want {
		t.Errorf("the restart set again %+v of the operator's holds, want %+v", got, want)
	}
	s := e.Snapshot()
	if !slices.Contains(s.PausedHosts, paused) {
		t.Errorf("the restarted crawl's paused hosts %v miss %s", s.PausedHosts, paused)
	}
	if !disabledOn(s, disabled) {
		t.Errorf("the restarted crawl's host_disable_list misses %s", disabled)
	}
	enginetest.WaitFor(t, "the other hosts fetched 30 times since the restart", func() bool { return others(restart) >= 30 })
	for _, h := range []string{paused, disabled} {
		if n := count(h, restart); n > 0 {
			t.Errorf("%s, held by the operator before the restart, was requested %d times after it", h, n)
		}
	}
	if err := e.PauseHost(paused, false); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, paused+" fetched once resumed", func() bool { return count(paused, restart) > 0 })
	if n := count(disabled, restart); n > 0 {
		t.Errorf("%s, disabled for 2 hours before the restart, was requested %d times after it", disabled, n)
	}
	if warns := holdWarnings(e); len(warns) > 0 {
		t.Errorf("the restart warned about the holds: %q", warns)
	}
	checkKeptLog(t, e, paused, disabled)
}

// checkKeptLog fails t unless e's log says the holds on paused and disabled were
// set again as kept from the last run, and not as if the operator had just set
// them: an operator reading the log after a restart knows no key was pressed.
func checkKeptLog(t *testing.T, e *engine.Engine, paused, disabled string) {
	t.Helper()
	var holdLines []string
	for _, ev := range e.EventsSince(0, 10000) {
		if strings.HasPrefix(ev.Msg, "host "+paused+" ") || strings.HasPrefix(ev.Msg, "host "+disabled+" ") {
			holdLines = append(holdLines, ev.Msg)
		}
	}
	if len(holdLines) < 2 {
		t.Fatalf("the restarted crawl's log says of the held hosts %q; want their holds kept from the last run", holdLines)
	}
	for i, want := range []string{"host " + paused + " paused by operator (kept from the last run)", "host " + disabled + " disabled by operator until "} {
		if !strings.HasPrefix(holdLines[i], want) || !strings.HasSuffix(holdLines[i], " (kept from the last run)") {
			t.Errorf("the restarted crawl's log line %d on the held hosts is %q; want %q… (kept from the last run)", i+1, holdLines[i], want)
		}
	}
}

// TestTheMastersHostHoldsSurviveItsRestart: the operator pauses one host and
// disables another on a master; the master stops and starts again on its
// database while its worker runs on. The restarted master holds both, for the
// worker that rejoins it and for one joining later: the sandbox sees no request to
// either while the others go on. Resumed on the master, the paused host is fetched
// again.
func TestTheMastersHostHoldsSurviveItsRestart(t *testing.T) {
	t.Parallel()
	c := startCluster(t, holdsWeb(63))
	w1 := c.worker("w1", "127.0.0.2")
	paused, disabled, count, others := heldHosts(t, c.sb)
	enginetest.WaitFor(t, "both hosts requested 4 times", func() bool {
		return count(paused, time.Time{}) >= 4 && count(disabled, time.Time{}) >= 4
	})
	if err := c.master.PauseHost(paused, true); err != nil {
		t.Fatal(err)
	}
	if err := c.master.SetHostDisabled(disabled, true); err != nil {
		t.Fatal(err)
	}
	// A request w1 sent before the holds reached it can reach the sandbox well
	// after them on a loaded box: the holds are judged from the moment w1 has no
	// request out to either host, not from a mark on the clock.
	enginetest.WaitSnapshot(t, w1.Engine(), "w1 with no request out to the held hosts", func(s view.Snapshot) bool {
		for _, l := range s.Lanes {
			if l.Status == view.LaneFetching && (strings.Contains(l.Current, "//"+paused+":") || strings.Contains(l.Current, "//"+disabled+":")) {
				return false
			}
		}
		return true
	})
	restart := time.Now()
	if err := c.master.Close(); err != nil {
		t.Fatal(err)
	}
	c.opts.Seeds = nil
	c.startMaster()
	if got, want := c.master.HeldHosts(), (holds.Restored{Paused: 1, Disabled: 1}); got != want {
		t.Errorf("the restarted master set again %+v of the operator's holds, want %+v", got, want)
	}
	enginetest.WaitSnapshot(t, c.master, "w1 rejoined", func(s view.Snapshot) bool {
		st := nodeStateOf(s, "w1")
		return st != "" && st != view.NodeState("awaited")
	})
	w2 := c.worker("w2", "127.0.0.3")
	if !disabledOn(w2.Engine().Snapshot(), disabled) {
		t.Errorf("w2, joining the restarted master, does not hold %s disabled", disabled)
	}
	enginetest.WaitFor(t, "the other hosts fetched 30 times since the restart", func() bool { return others(restart) >= 30 })
	for _, h := range []string{paused, disabled} {
		if n := count(h, restart); n > 0 {
			t.Errorf("%s, held by the operator on the master before its restart, was requested %d times after it", h, n)
		}
	}
	if err := c.master.PauseHost(paused, false); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, paused+" fetched once resumed", func() bool { return count(paused, restart) > 0 })
	if n := count(disabled, restart); n > 0 {
		t.Errorf("%s, disabled on the master for 2 hours before its restart, was requested %d times after it", disabled, n)
	}
	checkKeptLog(t, c.master, paused, disabled)
	c.master.Close()
}

// TestAMastersHostHoldsAreKeptWhenAWorkerDoesNotAnswer: the operator pauses one
// host and disables another on a master whose only worker stopped without leaving
// (the master counts it live until its heartbeat timeout). The controls say the
// worker did not answer, but the master holds both, for the workers to come; so
// does the master started again on its database. Before, the master held them
// but the store kept neither, and its restart lost them.
func TestAMastersHostHoldsAreKeptWhenAWorkerDoesNotAnswer(t *testing.T) {
	t.Parallel()
	c := startCluster(t, holdsWeb(65))
	w1 := c.worker("w1", "127.0.0.2")
	w1conn := c.conns[len(c.conns)-1] // w1's, connected last
	paused, disabled, count, _ := heldHosts(t, c.sb)
	enginetest.WaitFor(t, "both hosts requested 4 times", func() bool {
		return count(paused, time.Time{}) >= 4 && count(disabled, time.Time{}) >= 4
	})
	// Silent from now on: no leave. Its connection goes with it, as a stopped
	// process's does, so a control finds no one to answer at once rather than
	// waiting out its 5 s for an answer.
	w1.Close()
	w1conn.Close()
	if err := c.master.PauseHost(paused, true); err == nil {
		t.Errorf("pausing %s with w1 gone said nothing of w1", paused)
	}
	if err := c.master.SetHostDisabled(disabled, true); err == nil {
		t.Errorf("disabling %s with w1 gone said nothing of w1", disabled)
	}
	s := c.master.Snapshot()
	if !slices.Contains(s.PausedHosts, paused) {
		t.Errorf("the master's paused hosts %v miss %s, which it holds for the workers to come", s.PausedHosts, paused)
	}
	if err := c.master.Close(); err != nil {
		t.Fatal(err)
	}
	c.opts.Seeds = nil
	c.startMaster()
	if got, want := c.master.HeldHosts(), (holds.Restored{Paused: 1, Disabled: 1}); got != want {
		t.Errorf("the restarted master set again %+v of the operator's holds, want %+v", got, want)
	}
	w2 := c.worker("w2", "127.0.0.3")
	if !disabledOn(w2.Engine().Snapshot(), disabled) {
		t.Errorf("w2, joining the restarted master, does not hold %s disabled", disabled)
	}
	c.master.Close()
}

// holdWarnings are the warnings in e's event log about the holds kept.
func holdWarnings(e *engine.Engine) []string {
	var out []string
	for _, ev := range e.EventsSince(0, 10000) {
		if ev.Level >= view.LevelWarn && strings.Contains(ev.Msg, holds.MetaKey) {
			out = append(out, ev.Msg)
		}
	}
	return out
}

// deferredOf are the URLs of host the store at db holds deferred past now (read
// beside the running crawl, as `stats` does).
func deferredOf(t *testing.T, db, host string) []string {
	t.Helper()
	ro, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	now := time.Now()
	urls, err := ro.DueDeferred(now.Add(24*time.Hour), 100000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range urls {
		if u.Host == host && u.DeferredUntil.After(now) {
			out = append(out, u.URL)
		}
	}
	return out
}

// unended are those of urls the store at db has not ended (processed or failed),
// each with its state.
func unended(t *testing.T, db string, urls []string) []string {
	t.Helper()
	ro, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	us, err := ro.URLStates(urls)
	if err != nil {
		t.Fatal(err)
	}
	state := map[string]store.URL{}
	for _, u := range us {
		state[u.URL] = u
	}
	var out []string
	for _, url := range urls {
		switch u, ok := state[url]; {
		case !ok:
			out = append(out, url+" not in the store")
		case u.State != store.Processed && u.State != store.Failed:
			out = append(out, fmt.Sprintf("%s %v until %s", url, u.State, u.DeferredUntil.Format("15:04:05.000")))
		}
	}
	return out
}

// TestAHostDisabledBeforeARestartAndEnabledAfterItGetsItsURLsBack: on one box, the
// operator disables a host mid-crawl (its queued URLs deferred for
// rotation.disable_for, 2 hours) and the crawl stops; started again, the disable is
// held, and the operator enables the host: the URLs the first run deferred come
// back at once, as those of a disable enabled in the same run do, and are fetched.
// Before, only the URLs this run had deferred came back: the first run's waited in
// the store for the 2 hours.
func TestAHostDisabledBeforeARestartAndEnabledAfterItGetsItsURLsBack(t *testing.T) {
	t.Parallel()
	sb := enginetest.StartSandbox(t, holdsWeb(65))
	db := filepath.Join(t.TempDir(), "crawl.db")
	o := enginetest.PoliteOptions(sb, db)
	o.Egress = []string{"bind:127.0.0.1"}
	_, disabled, count, _ := heldHosts(t, sb)
	e := enginetest.Start(t, o)
	enginetest.WaitFor(t, disabled+" requested 4 times", func() bool { return count(disabled, time.Time{}) >= 4 })
	if err := e.SetHostDisabled(disabled, true); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	left := deferredOf(t, db, disabled)
	if len(left) == 0 {
		t.Fatalf("the disable of %s deferred none of its URLs", disabled)
	}
	e = enginetest.Start(t, o)
	if err := e.SetHostDisabled(disabled, false); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, db, disabled, left, "the restart")
}

// waitEnded waits until each of left, the URLs of host the store at db held
// deferred at a restart, came back and ended: processed, or failed (a private page
// robots.txt disallows is never asked for). A timeout names those not ended.
func waitEnded(t *testing.T, db, host string, left []string, what string) {
	t.Helper()
	var open []string
	t.Cleanup(func() {
		if t.Failed() && len(open) > 0 {
			t.Logf("of the %d URLs of %s deferred before %s, not ended: %q", len(left), host, what, open)
		}
	})
	enginetest.WaitFor(t, fmt.Sprintf("the %d URLs of %s deferred before %s ended once it is enabled", len(left), host, what), func() bool {
		open = unended(t, db, left)
		return len(open) == 0
	})
}

// TestAHostDisabledBeforeAMastersRestartAndEnabledAfterItGetsItsURLsBack is the
// one-box test's story on a master, whose worker runs on through its restart:
// enabled on the restarted master, the host's URLs the worker deferred before it
// come back at once and are fetched.
func TestAHostDisabledBeforeAMastersRestartAndEnabledAfterItGetsItsURLsBack(t *testing.T) {
	t.Parallel()
	c := startCluster(t, holdsWeb(67))
	w1 := c.worker("w1", "127.0.0.2")
	_, disabled, count, _ := heldHosts(t, c.sb)
	var restart time.Time
	t.Cleanup(func() { reportDeferred(t, c.opts.DB, disabled, count, restart, w1.Engine()) })
	enginetest.WaitFor(t, disabled+" requested 4 times", func() bool { return count(disabled, time.Time{}) >= 4 })
	if err := c.master.SetHostDisabled(disabled, true); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the master's store holding URLs of "+disabled+" deferred", func() bool { return len(deferredOf(t, c.opts.DB, disabled)) > 0 })
	if err := c.master.Close(); err != nil {
		t.Fatal(err)
	}
	left := deferredOf(t, c.opts.DB, disabled)
	restart = time.Now()
	c.opts.Seeds = nil
	c.startMaster()
	if err := c.master.SetHostDisabled(disabled, false); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, c.opts.DB, disabled, left, "the master's restart")
	c.master.Close()
}

// reportDeferred logs, when t failed, what a wait for host's deferred URLs found:
// those the store at db still holds deferred and until when, the requests to host
// since the restart, and w's warnings (the worker that deferred them). A deferral
// set for the disable's 2 hours and a host slow to come back look alike in a timeout.
func reportDeferred(t *testing.T, db, host string, count func(string, time.Time) int, restart time.Time, w *engine.Engine) {
	if !t.Failed() {
		return
	}
	ro, err := store.OpenReadOnly(db)
	if err != nil {
		t.Logf("the store: %v", err)
		return
	}
	defer ro.Close()
	now := time.Now()
	urls, err := ro.DueDeferred(now.Add(24*time.Hour), 100000)
	if err != nil {
		t.Logf("the store's deferred URLs: %v", err)
	}
	for _, u := range urls {
		if u.Host == host && u.DeferredUntil.After(now) {
			t.Logf("still deferred: %s until %s (%s)", u.URL, u.DeferredUntil.Format("15:04:05.000"), u.ErrKind)
		}
	}
	t.Logf("%d requests to %s since the restart at %s", count(host, restart), host, restart.Format("15:04:05.000"))
	logWarnings(t, "w1", w)
}
