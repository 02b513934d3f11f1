package engine_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/lanes/pace"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// holdControl is what the redirect test asks of a crawl (one box's engine, or a
// master whose workers fetch).
type holdControl interface {
	PauseHost(host string, paused bool) error
	SetHostDisabled(host string, disabled bool) error
	Steer(s steer.Change) (string, error)
	Stats() view.Stats
}

// TestARedirectToAHeldHostDoesNotReachIt: on one box the operator pauses one host
// of a site and disables another; pages of the site's active host then redirect
// to them (one straight, one by a chain on to a third host, one to the paused
// host's robots.txt), and two other sites' robots.txt redirect to theirs. The
// sandbox sees no request of any kind to either held host while the hold lasts;
// the redirecting pages are recorded as redirects and the sites whose robots.txt
// could not be read wait. Resumed, the paused host is asked for the targets (the
// chain goes on to its third host) and the waiting site is crawled; enabled, so
// are the disabled host's target and the other site.
func TestARedirectToAHeldHostDoesNotReachIt(t *testing.T) {
	t.Parallel()
	sb := enginetest.StartSandbox(t, redirectsWeb())
	var r heldRedirects
	o := enginetest.PoliteOptions(sb, filepath.Join(t.TempDir(), "crawl.db"))
	r.setup(t, &o, sb)
	o.Egress = []string{"bind:127.0.0.1"} // the host_disable_list is the egress rotation's
	r.check(t, enginetest.Start(t, o))
}

// TestARedirectToAHeldHostDoesNotReachItFromAWorker: the same on a master whose
// worker fetches: the worker holds the hosts its master holds, robots.txt's
// redirects included.
func TestARedirectToAHeldHostDoesNotReachItFromAWorker(t *testing.T) {
	t.Parallel()
	var r heldRedirects
	c := startClusterWith(t, redirectsWeb(), 300*time.Millisecond, func(o *config.Options, sb *sandbox.Sandbox) { r.setup(t, o, sb) })
	c.worker("w1", "127.0.0.2")
	r.check(t, c.master)
}

// redirectsWeb is a sandbox web with news sites of three section hosts, at scale
// 200 (the anti-bot gap is 10 ms): the test counts requests, not how long they
// take, and at scale 50 its 20 requests to the active hosts took seconds of lane
// pauses.
func redirectsWeb() sandbox.Config {
	cfg := enginetest.SandboxConfig(71, 12)
	cfg.Layout.SectionsMin, cfg.Layout.SectionsMax = 3, 3
	cfg.Layout.ListingPages = 2
	cfg.Scale = 200
	return cfg
}

// heldRedirects are the hosts of the redirect test: a news site's active host
// whose pages redirect, the paused host, the chain's third host and the disabled
// host, and two other sites whose robots.txt redirect to the held hosts.
type heldRedirects struct {
	sb                              *sandbox.Sandbox
	site                            sandbox.Site
	others                          []sandbox.Site
	active, paused, third, disabled string
}

// at is the sandbox URL of path on host.
func (h *heldRedirects) at(host, path string) string {
	return fmt.Sprintf("http://%s:%d%s", host, h.sb.Info().Port, path)
}

// requested is the sandbox's count of requests to host (and path, unless "") begun
// at since or after.
func (h *heldRedirects) requested(host, path string, since time.Time) int {
	n := 0
	for _, r := range h.sb.Truth().Requests() {
		if r.Host == host && (path == "" || r.URL == h.at(host, path)) && !r.Start.Before(since) {
			n++
		}
	}
	return n
}

// setup picks the hosts, sets the redirects in the sandbox and seeds o with the
// site's entry alone.
func (h *heldRedirects) setup(t *testing.T, o *config.Options, sb *sandbox.Sandbox) {
	h.sb = sb
	for _, s := range sb.Info().Sites {
		if h.site.Entry == "" && s.Search == "" && len(s.Hosts) >= 4 {
			h.site = s
		} else if s.Search == "" && len(h.others) < 2 {
			h.others = append(h.others, s)
		}
	}
	if h.site.Entry == "" || len(h.others) < 2 {
		t.Fatalf("no news site with three section hosts and two other news sites in %+v", sb.Info().Sites)
	}
	h.active, h.paused, h.third, h.disabled = h.site.Hosts[0], h.site.Hosts[1], h.site.Hosts[2], h.site.Hosts[3]
	for _, r := range []struct{ from, to string }{
		{h.active + "/moved", h.at(h.paused, "/from-active")},
		{h.active + "/chain", h.at(h.paused, "/hop")},
		{h.paused + "/hop", h.at(h.third, "/chain-end")},
		{h.active + "/to-robots", h.at(h.paused, "/robots.txt")},
		{h.active + "/to-disabled", h.at(h.disabled, "/from-active")},
		{h.others[0].Hosts[0] + "/robots.txt", h.at(h.paused, "/robots.txt")},
		{h.others[1].Hosts[0] + "/robots.txt", h.at(h.disabled, "/robots.txt")},
	} {
		sb.Redirect(r.from, r.to)
	}
	o.Seeds = []string{h.site.Entry}
	// A site whose robots.txt redirects to a disabled host has its URLs deferred
	// until the disable ends or for robots_retry, whichever comes first, and the
	// enable brings them back at once (TestEnablingAHostBringsBackTheSitesBehindIt
	// checks that with a long robots_retry): 10 ms here, where the scaled 300 ms
	// took seconds. One behind a paused host waits for the resume (on a worker,
	// deferred for robots_retry at a time).
	o.Etiquette.RobotsRetry = 10 * time.Millisecond
}

// check holds the hosts on the running crawl e, seeds the redirecting URLs and
// checks what the sandbox was asked, during the holds and after.
func (h *heldRedirects) check(t *testing.T, e holdControl) {
	t.Helper()
	if err := e.PauseHost(h.paused, true); err != nil {
		t.Fatal(err)
	}
	if err := e.SetHostDisabled(h.disabled, true); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	for _, u := range []string{h.at(h.active, "/moved"), h.at(h.active, "/chain"), h.at(h.active, "/to-robots"), h.at(h.active, "/to-disabled"), h.others[0].Entry, h.others[1].Entry} {
		if _, err := e.Steer(steer.Change{Op: steer.SeedAdd, URL: u}); err != nil {
			t.Fatal(err)
		}
	}
	enginetest.WaitFor(t, "the four redirects recorded, both other sites' robots.txt asked, and 20 more requests to the active hosts", func() bool {
		return e.Stats().Errors["redirected"] >= 4 &&
			h.requested(h.others[0].Hosts[0], "/robots.txt", since) > 0 && h.requested(h.others[1].Hosts[0], "/robots.txt", since) > 0 &&
			h.requested(h.active, "", since)+h.requested(h.third, "", since) >= 20
	})
	for _, host := range []string{h.paused, h.disabled} {
		if n := h.requested(host, "", since); n > 0 {
			var got []string
			for _, r := range h.sb.Truth().Requests() {
				if r.Host == host && !r.Start.Before(since) {
					got = append(got, r.URL)
				}
			}
			t.Errorf("%s, held by the operator, was requested %d times during the hold: %s", host, n, strings.Join(got, " "))
		}
	}
	if n := h.requested(h.third, "/chain-end", time.Time{}); n > 0 {
		t.Errorf("the chain's end on %s was requested %d times while the chain's hop waits on the paused host", h.third, n)
	}

	if err := e.PauseHost(h.paused, false); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the paused host's targets, the chain's end and the site whose robots.txt it holds, once resumed", func() bool {
		return h.requested(h.paused, "/from-active", since) > 0 && h.requested(h.paused, "/hop", since) > 0 &&
			h.requested(h.third, "/chain-end", since) > 0 && h.requested(h.others[0].Hosts[0], "/", since) > 0
	})
	if err := e.SetHostDisabled(h.disabled, false); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the disabled host's target and the site whose robots.txt it holds, once enabled", func() bool {
		return h.requested(h.disabled, "/from-active", since) > 0 && h.requested(h.others[1].Hosts[0], "/", since) > 0
	})
}

// TestAHostHeldWhileALaneWaitsToAskItsRobotsTxtIsNotAsked: on one box, robots.txt
// read anew for every page (etiquette.robots_cache_for 1ns), the operator pauses a
// section host while a lane waits at the politeness gate, the host's task in hand,
// to ask for the host's robots.txt. The sandbox sees no request to the host, of
// robots.txt or of a page, until it is resumed; then it is crawled again.
func TestAHostHeldWhileALaneWaitsToAskItsRobotsTxtIsNotAsked(t *testing.T) {
	t.Parallel()
	sb := enginetest.StartSandbox(t, smallWeb(73, 6))
	paused, _, count, _ := heldHosts(t, sb)
	gate := &stallAfterPage{host: paused, waiting: make(chan struct{})}
	o := enginetest.PoliteOptions(sb, filepath.Join(t.TempDir(), "crawl.db"))
	o.Etiquette.RobotsCacheFor = time.Nanosecond
	o.Pacer = gate
	e := enginetest.Start(t, o)
	enginetest.WaitFor(t, paused+" requested 4 times", func() bool { return count(paused, time.Time{}) >= 4 })
	gate.arm()
	select {
	case <-gate.waiting: // its last page answered, a lane waits to ask for its robots.txt
	case <-time.After(enginetest.Patience):
		t.Fatalf("no lane asked for %s again after its page", paused)
	}
	if err := e.PauseHost(paused, true); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	gate.release() // the lane goes on past the gate, into the pause
	notAsked := func() bool {
		for _, ev := range e.EventsSince(0, 100000) {
			if ev.Host == paused && strings.Contains(ev.Msg, " not asked for: the operator holds ") {
				return true
			}
		}
		return false
	}
	enginetest.WaitFor(t, "the lane lets "+paused+"'s task go unasked, or asks the paused host", func() bool { return notAsked() || count(paused, since) > 0 })
	if n := count(paused, since); n > 0 {
		var got []string
		for _, r := range sb.Truth().Requests() {
			if r.Host == paused && !r.Start.Before(since) {
				got = append(got, r.URL)
			}
		}
		t.Errorf("%s, paused while a lane waited to ask for its robots.txt, was requested %d times during the pause: %s", paused, n, strings.Join(got, " "))
	}
	if err := e.PauseHost(paused, false); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, paused+" fetched once resumed", func() bool { return count(paused, since) > 0 })
}

// stallAfterPage is a pacing policy that, once armed, holds host's next request
// after one of its pages answered at the gate until the test releases it, and
// says when a lane waits so (waiting closed): with robots.txt read anew for every
// page, that request is the next task's robots.txt. The gate waits a gap from
// the host's last end, then asks again; the gap reaches stallStep past now each
// time it is asked, so the lane waits in steps of stallStep for the release
// however long the test takes to pause the host.
type stallAfterPage struct {
	host    string
	waiting chan struct{}

	mu                    sync.Mutex
	armed, stalling, told bool
	from                  time.Time // the answered page's start, before the host's last end
}

const stallStep = 50 * time.Millisecond

func (p *stallAfterPage) arm() {
	p.mu.Lock()
	p.armed = true
	p.mu.Unlock()
}

// release lets the held request go and stalls no other.
func (p *stallAfterPage) release() {
	p.mu.Lock()
	p.armed, p.stalling = false, false
	p.mu.Unlock()
}

// Observe hears of host's answered page (the gate tells of pages, not robots.txt).
func (p *stallAfterPage) Observe(host string, _ pace.Response, latency time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if host == p.host && p.armed && !p.stalling {
		p.stalling, p.from = true, time.Now().Add(-latency)
	}
}

// Gap is the stall for host's request after its page, once armed, until released.
func (p *stallAfterPage) Gap(host string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if host != p.host || !p.stalling {
		return 0
	}
	if !p.told {
		p.told = true
		close(p.waiting)
	}
	return time.Since(p.from) + stallStep
}
