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

// TestEnablingAHostBringsBackTheSitesBehindIt: site A's robots.txt redirects to
// host B of a site not crawled, which the operator disabled, while another site
// keeps the crawl busy. A, declared, has its entry page deferred: until B's
// disable ends or robots.txt's first retry (etiquette.robots_retry, an hour
// here), whichever is first; the Sites pane says why A waits. The operator
// enables B early: A's page is fetched soon after, as B's own deferred URLs would
// be, and A no longer waits; on one box and on a master whose worker fetches.
// On one box, B paused instead: A's page waits set aside in the lanes (not
// deferred), the Sites pane says why, and B's resume brings it back.
func TestEnablingAHostBringsBackTheSitesBehindIt(t *testing.T) {
	t.Parallel()
	oneBox := func(t *testing.T, setup func(*config.Options, *sandbox.Sandbox)) *engine.Engine {
		sb := enginetest.StartSandbox(t, redirectsWeb())
		o := enginetest.PoliteOptions(sb, filepath.Join(t.TempDir(), "crawl.db"))
		setup(&o, sb)
		o.Egress = []string{"bind:127.0.0.1"} // the host_disable_list is the egress rotation's
		return enginetest.Start(t, o)
	}
	for _, c := range []struct {
		name   string
		start  func(t *testing.T, setup func(*config.Options, *sandbox.Sandbox)) *engine.Engine
		paused bool // B paused and resumed, not disabled and enabled
	}{
		{"one box", oneBox, false},
		{"master", func(t *testing.T, setup func(*config.Options, *sandbox.Sandbox)) *engine.Engine {
			c := startClusterWith(t, redirectsWeb(), 300*time.Millisecond, setup)
			c.worker("w1", "127.0.0.2")
			return c.master
		}, false},
		{"one box paused", oneBox, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var h heldRedirects
			var site, b string // A, the site whose robots.txt redirects, and B, the host it leads to
			e := c.start(t, func(o *config.Options, sb *sandbox.Sandbox) {
				h.setup(t, o, sb) // crawls h.site: it keeps the crawl busy
				site, b = h.others[0].Entry, h.others[1].Hosts[0]
				sb.Redirect(h.others[0].Hosts[0]+"/robots.txt", h.at(b, "/robots.txt"))
				o.Etiquette.RobotsRetry = time.Hour
				o.Rotation.DisableFor = 2 * time.Hour
			})
			hold := func(held bool) error {
				if c.paused {
					return e.PauseHost(b, held)
				}
				return e.SetHostDisabled(b, held)
			}
			if err := hold(true); err != nil {
				t.Fatal(err)
			}
			since := time.Now()
			if _, err := e.Steer(steer.Change{Op: steer.SiteAdd, Kind: config.SiteNews, URL: site}); err != nil {
				t.Fatal(err)
			}
			waits := func(s view.Snapshot) string {
				if s.Sites != nil {
					for _, r := range s.Sites.Sites {
						if r.Entry == site {
							return r.Waits
						}
					}
				}
				return "?"
			}
			// B's site is not crawled (scope: same site) and nothing else is held:
			// the one URL deferred is A's page, set aside behind B.
			want := "robots → " + b + " held"
			enginetest.WaitSnapshot(t, e, "A's page held back behind B, and A's row saying "+want, func(s view.Snapshot) bool {
				return (c.paused || s.Totals.Deferred > 0) && waits(s) == want
			})
			asked := func() int {
				n := 0
				for _, r := range h.sb.Truth().Requests() {
					if r.URL == site && !r.Start.Before(since) {
						n++
					}
				}
				return n
			}
			if n := asked(); n > 0 {
				t.Fatalf("A's page was requested %d times while its robots.txt leads to the disabled %s", n, b)
			}
			if err := hold(false); err != nil {
				t.Fatal(err)
			}
			// Patience (4 min, what one step of a crawl may take on a loaded box) is
			// far below robots_retry (1 h): A's page comes back by B's enable alone.
			enginetest.WaitFor(t, "A's page fetched once "+b+"'s hold ends", func() bool {
				return asked() > 0
			})
			enginetest.WaitSnapshot(t, e, "A's row waiting on nothing", func(s view.Snapshot) bool { return waits(s) == "" })
		})
	}
}
