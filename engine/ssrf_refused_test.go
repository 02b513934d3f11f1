package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// refusedSite is a loopback site with three pages for the SSRF guard tests, and the
// seeds to crawl them.
func refusedSite(t *testing.T) (*robotsSite, []string) {
	t.Helper()
	site := newRobotsSite(t, "127.0.0.1")
	var seeds []string
	for _, p := range []string{"/", "/a", "/b"} {
		site.pages[p] = "<p>page</p>"
		seeds = append(seeds, "http://"+site.host+p)
	}
	return site, seeds
}

func (s *robotsSite) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// warnings returns e's WARN events whose message contains every one of parts.
func warnings(e *Engine, parts ...string) []view.Event {
	var out []view.Event
	for _, ev := range e.EventsSince(0, 100000) {
		if ev.Level != view.LevelWarn {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(ev.Msg, p)
		}
		if all {
			out = append(out, ev)
		}
	}
	return out
}

// A crawl without --allow-private for a site on a loopback address: the SSRF guard
// refuses the robots.txt request like any other. Each URL fails as ssrf_blocked (the
// page would have been refused the same way), not as robots_unreachable deferred to
// be tried again for ever, and one WARN per host names the host, its address and
// the fix. Before, the URLs were counted robots_unreachable and deferred, and only a
// DEBUG line said why. With robots.txt not obeyed the pages themselves are refused:
// the same one WARN for the host, where there was one per URL.
func TestSSRFRefusedSiteFailsAsSSRFBlocked(t *testing.T) {
	t.Parallel()
	for _, obey := range []bool{true, false} {
		t.Run(map[bool]string{true: "robots.txt obeyed", false: "robots.txt not obeyed"}[obey], func(t *testing.T) {
			site, seeds := refusedSite(t)
			o := robotsOptions(t, seeds[0])
			o.Seeds = seeds
			o.AllowPrivate = nil
			o.Robots = obey
			e := startEngine(t, o)
			waitFor(t, "the three URLs ended (or were set aside)", func() bool {
				s := e.Stats()
				return s.URLsDone >= 3 || s.Errors["robots_unreachable"] >= 3
			})
			s := e.Stats()
			if s.Errors["ssrf_blocked"] != 3 || s.Errors["robots_unreachable"] != 0 {
				t.Errorf("errors %v; want ssrf_blocked 3 (one per URL) and no robots_unreachable", s.Errors)
			}
			if n := site.requests(); n != 0 {
				t.Errorf("the refused site got %d requests", n)
			}
			if w := warnings(e, "ssrf_blocked"); len(w) != 1 {
				t.Fatalf("%d WARN lines about the refusal, want one for the host: %+v", len(w), w)
			}
			for _, want := range []string{"127.0.0.1 (127.0.0.1) refused by the SSRF guard", "--allow-private 127.0.0.1/32", "the workers need it too"} {
				if len(warnings(e, want)) != 1 {
					t.Errorf("the WARN line does not say %q: %+v", want, warnings(e, "ssrf_blocked"))
				}
			}
			waitDone(t, e, 20*time.Second)
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			// Restarted on the same store with the range the warning named: the
			// refused URLs are queued again and fetched (failed for good, the advice
			// brought nothing back).
			o.Seeds = nil
			o.AllowPrivate = []string{"127.0.0.1/32"}
			again := startEngine(t, o)
			waitDone(t, again, 20*time.Second)
			if got := again.Stats().PagesFetched; got != 3 || site.requests() == 0 {
				t.Errorf("restarted with --allow-private: %d pages fetched, %d requests; want the 3 pages", got, site.requests())
			}
			if ev := again.EventsSince(0, 1000); !slices.ContainsFunc(ev, func(ev view.Event) bool {
				return strings.Contains(ev.Msg, "3 URLs the SSRF guard refused before are tried again")
			}) {
				t.Error("the restart did not say it tried the refused URLs again")
			}
		})
	}
}

// The same refusal on a worker of a distributed crawl (the master allows loopback,
// the worker was started without --allow-private): the master counts the URLs as
// ssrf_blocked (its header said "errors 0": the worker deferred them and counted
// robots_unreachable on its own), and says once which worker refused which host;
// the worker's log has the address and the fix.
func TestWorkerSSRFRefusalReachesTheMaster(t *testing.T) {
	t.Parallel()
	_, conn := natstest.Start(t)
	site, seeds := refusedSite(t)
	o := robotsOptions(t, seeds[0]) // the master allows loopback
	o.Seeds = seeds
	m := startMaster(t, o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: 200 * time.Millisecond})
	w, err := StartWorker(config.WorkerOptions{Conn: conn("b2"), Node: "b2"}) // no AllowPrivate
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	waitFor(t, "the three URLs ended at the master (or were set aside on the worker)", func() bool {
		return m.Stats().URLsDone >= 3 || w.Engine().Stats().Errors["robots_unreachable"] >= 3
	})
	if got := m.Stats().Errors; got["ssrf_blocked"] != 3 {
		t.Errorf("the master's errors %v; want ssrf_blocked 3 (worker's errors %v)", got, w.Engine().Stats().Errors)
	}
	if n := site.requests(); n != 0 {
		t.Errorf("the refused site got %d requests", n)
	}
	if got := warnings(m, "worker b2", "refused 127.0.0.1", "ssrf_blocked", "start worker b2 with --allow-private"); len(got) != 1 {
		t.Errorf("the master's WARN lines naming b2's refusal: %+v; want one", warnings(m, "ssrf_blocked"))
	}
	if got := warnings(w.Engine(), "127.0.0.1 (127.0.0.1) refused by the SSRF guard", "start this worker with --allow-private 127.0.0.1/32"); len(got) != 1 {
		t.Errorf("the worker's WARN lines about the refusal: %+v; want one", warnings(w.Engine(), "ssrf_blocked"))
	}
	if len(warnings(m, "ssrf_blocked")) != 1 || len(warnings(w.Engine(), "ssrf_blocked")) != 1 {
		t.Errorf("a WARN per URL: master %+v, worker %+v", warnings(m, "ssrf_blocked"), warnings(w.Engine(), "ssrf_blocked"))
	}
}
