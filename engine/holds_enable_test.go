package engine_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// behindHeld is the story of the tests below: site A's robots.txt redirects to
// host B of a site not crawled, which the operator holds, while another site
// keeps the crawl busy.
type behindHeld struct {
	h       heldRedirects
	site, b string // A's entry page, and B
}

// setup picks A and B, has A's robots.txt redirect to B, and sets robots.txt's
// first retry (etiquette.robots_retry) to an hour, B's disable to two: patience
// (4 min, what one step of a crawl may take on a loaded box) is far below both,
// so a page of A fetched within it came back by the hold's end alone.
func (x *behindHeld) setup(t *testing.T, o *config.Options, sb *sandbox.Sandbox) {
	x.h.setup(t, o, sb) // crawls h.site: it keeps the crawl busy
	x.site, x.b = x.h.others[0].Entry, x.h.others[1].Hosts[0]
	sb.Redirect(x.h.others[0].Hosts[0]+"/robots.txt", x.h.at(x.b, "/robots.txt"))
	o.Etiquette.RobotsRetry = time.Hour
	o.Rotation.DisableFor = 2 * time.Hour
}

// hold pauses or disables B (paused), or lifts that hold (held false).
func (x *behindHeld) hold(e *engine.Engine, paused, held bool) error {
	if paused {
		return e.PauseHost(x.b, held)
	}
	return e.SetHostDisabled(x.b, held)
}

// waits is A's Sites pane row's reason to wait, "?" without a row.
func (x *behindHeld) waits(s view.Snapshot) string {
	if s.Sites != nil {
		for _, r := range s.Sites.Sites {
			if r.Entry == x.site {
				return r.Waits
			}
		}
	}
	return "?"
}

// heldWaits is A's row's reason while it waits behind B.
func (x *behindHeld) heldWaits() string { return "robots → " + x.b + " held" }

// asked is how many requests for A's page began at since or after.
func (x *behindHeld) asked(since time.Time) int {
	n := 0
	for _, r := range x.h.sb.Truth().Requests() {
		if r.URL == x.site && !r.Start.Before(since) {
			n++
		}
	}
	return n
}

// TestEnablingAHostBringsBackTheSitesBehindIt: B disabled, A, declared, has its
// entry page deferred: until B's disable ends or robots.txt's first retry,
// whichever is first; the Sites pane says why A waits. The operator enables B
// early: A's page is fetched soon after, as B's own deferred URLs would be, and A
// no longer waits; on one box and on a master whose worker fetches. B paused
// instead, its resume brings A's page back as soon: on one box (A's page waits set
// aside in the lanes, not deferred), and on a master (the worker defers it until
// robots.txt's first retry, out of its window).
func TestEnablingAHostBringsBackTheSitesBehindIt(t *testing.T) {
	t.Parallel()
	oneBox := func(t *testing.T, setup func(*config.Options, *sandbox.Sandbox)) *engine.Engine {
		sb := enginetest.StartSandbox(t, redirectsWeb())
		o := enginetest.PoliteOptions(sb, filepath.Join(t.TempDir(), "crawl.db"))
		setup(&o, sb)
		o.Egress = []string{"bind:127.0.0.1"} // the host_disable_list is the egress rotation's
		return enginetest.Start(t, o)
	}
	master := func(t *testing.T, setup func(*config.Options, *sandbox.Sandbox)) *engine.Engine {
		c := startClusterWith(t, redirectsWeb(), 300*time.Millisecond, setup)
		c.worker("w1", "127.0.0.2")
		return c.master
	}
	for _, c := range []struct {
		name   string
		start  func(t *testing.T, setup func(*config.Options, *sandbox.Sandbox)) *engine.Engine
		paused bool // B paused and resumed, not disabled and enabled
	}{
		{"one box", oneBox, false},
		{"master", master, false},
		{"one box paused", oneBox, true},
		{"master paused", master, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var x behindHeld
			e := c.start(t, func(o *config.Options, sb *sandbox.Sandbox) { x.setup(t, o, sb) })
			if err := x.hold(e, c.paused, true); err != nil {
				t.Fatal(err)
			}
			since := time.Now()
			if _, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: x.site}); err != nil {
				t.Fatal(err)
			}
			// B's site is not crawled (scope: same site) and nothing else is held:
			// the one URL deferred is A's page, set aside behind B.
			want := x.heldWaits()
			enginetest.WaitSnapshot(t, e, "A's page held back behind B, and A's row saying "+want, func(s view.Snapshot) bool {
				return (c.paused || s.Totals.Deferred > 0) && x.waits(s) == want
			})
			if n := x.asked(since); n > 0 {
				t.Fatalf("A's page was requested %d times while its robots.txt leads to the held %s", n, x.b)
			}
			if err := x.hold(e, c.paused, false); err != nil {
				t.Fatal(err)
			}
			enginetest.WaitFor(t, "A's page fetched once "+x.b+"'s hold ends", func() bool { return x.asked(since) > 0 })
			enginetest.WaitSnapshot(t, e, "A's row waiting on nothing", func(s view.Snapshot) bool { return x.waits(s) == "" })
		})
	}
}

// startRestartable starts the crawl setup makes on one box (with an egress: the
// host_disable_list is the egress rotation's) or on a master with worker w1
// (clustered), and says its database and how to start it again on it.
func startRestartable(t *testing.T, clustered bool, setup func(*config.Options, *sandbox.Sandbox)) (e *engine.Engine, db string, restart func() *engine.Engine) {
	if clustered {
		c := startClusterWith(t, redirectsWeb(), 300*time.Millisecond, setup)
		c.worker("w1", "127.0.0.2")
		return c.master, c.opts.DB, func() *engine.Engine { c.opts.Seeds = nil; c.startMaster(); return c.master }
	}
	sb := enginetest.StartSandbox(t, redirectsWeb())
	o := enginetest.PoliteOptions(sb, filepath.Join(t.TempDir(), "crawl.db"))
	setup(&o, sb)
	o.Egress = []string{"bind:127.0.0.1"}
	return enginetest.Start(t, o), o.DB, func() *engine.Engine { return enginetest.Start(t, o) }
}

// TestEnablingAHostAfterARestartBringsBackTheSitesBehindIt: B disabled, A's page
// deferred behind it, the crawl (or the master, its worker running on) stops and
// starts again on its database, which keeps B's disable. A's wait is not kept, as
// a robots.txt's that does not answer is not: at the start A asks its robots.txt
// again, waits behind B anew (the Sites pane says so), and enabling B brings A's
// page back at once. Else it would wait out the first run's robots_retry (an hour
// here), its row saying nothing, as the store's enable brings back B's own URLs
// alone.
func TestEnablingAHostAfterARestartBringsBackTheSitesBehindIt(t *testing.T) {
	t.Parallel()
	for _, clustered := range []bool{false, true} {
		t.Run(map[bool]string{false: "one box", true: "master"}[clustered], func(t *testing.T) {
			t.Parallel()
			var x behindHeld
			setup := func(o *config.Options, sb *sandbox.Sandbox) {
				x.setup(t, o, sb)
				// B's entry seeded (deferred, B disabled): the store has URLs of
				// both hosts deferred across the restart
				// (TestAHoldOnAHostTheStoreHasNoURLOfSurvivesARestart holds B
				// without one).
				o.Seeds = append(o.Seeds, x.h.others[1].Entry)
			}
			e, db, restart := startRestartable(t, clustered, setup)
			if err := x.hold(e, false, true); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: x.site}); err != nil {
				t.Fatal(err)
			}
			a := x.h.others[0].Hosts[0]
			enginetest.WaitFor(t, "A's page deferred behind B in the store", func() bool { return len(deferredOf(t, db, a)) > 0 })
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			since := time.Now()
			e = restart()
			want := x.heldWaits()
			enginetest.WaitSnapshot(t, e, "after the restart, A's row saying "+want, func(s view.Snapshot) bool { return x.waits(s) == want })
			if n := x.asked(since); n > 0 {
				t.Fatalf("A's page was requested %d times after the restart while its robots.txt leads to the disabled %s", n, x.b)
			}
			if err := x.hold(e, false, false); err != nil {
				t.Fatal(err)
			}
			enginetest.WaitFor(t, "A's page fetched once "+x.b+" is enabled after the restart", func() bool { return x.asked(since) > 0 })
			enginetest.WaitSnapshot(t, e, "A's row waiting on nothing", func(s view.Snapshot) bool { return x.waits(s) == "" })
		})
	}
}

// TestAHoldOnAHostTheStoreHasNoURLOfSurvivesARestart: B, held, is only where A's
// robots.txt redirects (a CDN, say): the store has no URL of B. The crawl (or the
// master, its worker running on) stops and starts again on its database: B is
// still held, so A's robots.txt, asked again at the start, is not followed to B,
// and B gets no request of any kind until the operator lifts the hold; then A's
// robots.txt is followed to B and A's page fetched.
func TestAHoldOnAHostTheStoreHasNoURLOfSurvivesARestart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		clustered bool
		paused    bool // B paused, not disabled
	}{
		{"one box paused", false, true},
		{"master paused", true, true},
		{"master disabled", true, false}, // one box's egress rotation keeps its host_disable_list itself
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var x behindHeld
			setup := func(o *config.Options, sb *sandbox.Sandbox) { x.setup(t, o, sb) }
			e, _, restart := startRestartable(t, c.clustered, setup)
			if err := x.hold(e, c.paused, true); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: x.site}); err != nil {
				t.Fatal(err)
			}
			want := x.heldWaits()
			enginetest.WaitSnapshot(t, e, "A's row saying "+want, func(s view.Snapshot) bool { return x.waits(s) == want })
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			since := time.Now()
			e = restart()
			// A asks its robots.txt again at the start: it waits behind B anew, or
			// (B's hold lost) its redirect is followed to B.
			enginetest.WaitSnapshot(t, e, "after the restart, A's row saying "+want+", or a request to "+x.b, func(s view.Snapshot) bool {
				return x.waits(s) == want || x.h.requested(x.b, "", since) > 0
			})
			if n := x.h.requested(x.b, "", since); n > 0 {
				t.Fatalf("%s, held before the restart and known only as where A's robots.txt redirects, got %d requests after it", x.b, n)
			}
			if x.asked(since) > 0 {
				t.Fatalf("A's page was requested after the restart while its robots.txt leads to the held %s", x.b)
			}
			if err := x.hold(e, c.paused, false); err != nil {
				t.Fatal(err)
			}
			enginetest.WaitFor(t, "A's page fetched once "+x.b+"'s hold ends", func() bool { return x.asked(since) > 0 })
			if x.h.requested(x.b, "/robots.txt", since) == 0 {
				t.Fatalf("A's page was fetched without its robots.txt's redirect to %s followed", x.b)
			}
		})
	}
}
