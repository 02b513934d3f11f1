package engine

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// robotsDownTwoURLs is a site whose robots.txt answers 503 and the options of a
// crawl of two of its URLs.
func robotsDownTwoURLs(t *testing.T) (*robotsSite, config.Options) {
	site := newRobotsSite(t, "127.0.0.1")
	site.robots = func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}
	o := robotsOptions(t, "http://"+site.host+"/")
	o.Seeds = append(o.Seeds, "http://"+site.host+"/x")
	return site, o
}

// A site whose robots.txt keeps failing has its URLs deferred again at every retry;
// each URL counts once under robots_unreachable and once among the deferred, and
// the crawl says they wait: two URLs on one site. Before, every deferral counted
// again (a resumed demo said robots_unreachable=1143 of 180 URLs deferred).
func TestRobotsDownCountsEachURLOnceWhileItWaits(t *testing.T) {
	t.Parallel()
	site, o := robotsDownTwoURLs(t)
	o.Etiquette.RobotsRetry = 20 * time.Millisecond
	e := startEngine(t, o)
	defer e.Close()
	// Three answers of robots.txt: each URL set aside, and again after each retry.
	waitFor(t, "robots.txt asked three times, both URLs deferred", func() bool {
		return site.requested("/robots.txt") >= 3 && e.Stats().Deferred >= 2
	})
	st := e.Stats()
	if st.Errors["robots_unreachable"] != 2 || st.Deferred != 2 {
		t.Fatalf("robots_unreachable %d, deferred %d after robots.txt failed %d times: want 2 and 2 (the URLs, each once)",
			st.Errors["robots_unreachable"], st.Deferred, site.requested("/robots.txt"))
	}
	if w := st.RobotsWaiting; w == nil || *w != (view.RobotsWaiting{URLs: 2, Sites: 1, Waited: 2}) {
		t.Fatalf("robots_waiting %+v; want 2 URLs waiting on 1 site", w)
	}
	if n := site.requested("/") + site.requested("/x"); n != 0 {
		t.Fatalf("%d pages fetched while robots.txt failed", n)
	}
}

// A URL deferred because its site's robots.txt did not answer is tried again soon
// after a restart, its robots.txt asked again first: the robots cache starts empty,
// so the last run's wait (here an hour) no longer stands for anything. Before, the
// deferral kept its time across the restart (the store did not say why it waited).
// A URL deferred for a reason the store keeps (a disabled host, a budget, a
// Retry-After: no kind) keeps its time.
func TestRobotsDeferralIsRetriedSoonAfterARestart(t *testing.T) {
	t.Parallel()
	site := newRobotsSite(t, "127.0.0.1")
	var up atomic.Bool
	site.robots = func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
	}
	site.pages["/"] = "<p>home</p>"
	seed := "http://" + site.host + "/"
	o := robotsOptions(t, seed)
	o.Etiquette.RobotsRetry = time.Hour
	e := startEngine(t, o)
	waitDone(t, e, 20*time.Second)
	e.Close()
	u, err := readURL(t, o.DB, seed)
	if err != nil || u.State != store.Deferred || time.Until(u.DeferredUntil) < 30*time.Minute {
		t.Fatalf("seed %+v (%v): want deferred for about an hour", u, err)
	}
	held := "http://" + site.host + "/held"
	withStore(t, o.DB, func(st *store.Store) {
		st.AddURLs([]store.URL{{URL: held, Host: "127.0.0.1"}}, nil)
		st.Defer(held, time.Now().Add(time.Hour))
	})

	up.Store(true)
	asked := site.requested("/robots.txt")
	e = startEngine(t, o)
	defer e.Close()
	waitFor(t, "the seed fetched after the restart", func() bool { return site.requested("/") == 1 })
	if site.requested("/robots.txt") == asked {
		t.Errorf("the seed fetched after the restart without robots.txt asked again")
	}
	if u, err := readURL(t, o.DB, held); err != nil || u.State != store.Deferred || time.Until(u.DeferredUntil) < 30*time.Minute {
		t.Errorf("a URL deferred with no kind %+v (%v): want it still deferred for its hour", u, err)
	}
}

// readURL reads url's row as the store holds it, opened read-only: opened to write,
// the store makes a robots.txt deferral due.
func readURL(t *testing.T, path, url string) (store.URL, error) {
	t.Helper()
	ro, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	return ro.URLState(url)
}

// A URL waiting for its site's robots.txt whose host the operator then disables
// waits for the operator: it leaves the robots.txt wait (the header's figure, ctl
// status and --stats-json's robots_waiting) and stays among the deferred and under
// robots_unreachable, where it was counted once; enabled again, it waits for
// robots.txt again.
func TestRobotsWaitLeavesOutADisabledHost(t *testing.T) {
	t.Parallel()
	site, o := robotsDownTwoURLs(t)
	o.Etiquette.RobotsRetry = time.Hour // the URLs stay set aside while the test looks
	o.Egress = []string{"e1=bind:127.0.0.1"}
	o.Rotation.PerNode = 0
	e := startEngine(t, o)
	defer e.Close()
	waitFor(t, "both URLs waiting for robots.txt", func() bool {
		r := e.Stats().RobotsWaiting
		return r != nil && r.URLs == 2
	})
	host := frontier.Hostname("http://" + site.host + "/")
	if err := e.SetHostDisabled(host, true); err != nil {
		t.Fatal(err)
	}
	st, snap := e.Stats(), e.Snapshot()
	if w := st.RobotsWaiting; w == nil || *w != (view.RobotsWaiting{URLs: 0, Sites: 0, Waited: 2}) {
		t.Errorf("--stats-json robots_waiting %+v with %s disabled; want no URL waiting for robots.txt (2 waited)", w, host)
	}
	if w := snap.Totals.Robots; w.URLs != 0 || w.Sites != 0 {
		t.Errorf("the console's robots.txt wait %+v with %s disabled; want 0", w, host)
	}
	if st.Deferred != 2 || st.Errors["robots_unreachable"] != 2 {
		t.Errorf("deferred %d, robots_unreachable %d with %s disabled; want 2 and 2 (counted where they were set aside)",
			st.Deferred, st.Errors["robots_unreachable"], host)
	}
	if err := e.SetHostDisabled(host, false); err != nil {
		t.Fatal(err)
	}
	if w := e.Snapshot().Totals.Robots; w.URLs != 2 || w.Sites != 1 {
		t.Errorf("the console's robots.txt wait %+v with %s enabled again; want 2 URLs on 1 site", w, host)
	}
}
