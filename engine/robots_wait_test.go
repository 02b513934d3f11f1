package engine

import (
	"net/http"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A site whose robots.txt keeps failing has its URLs deferred again at every retry;
// each URL counts once under robots_unreachable and once among the deferred, and
// the crawl says they wait: two URLs on one site. Before, every deferral counted
// again (a resumed demo said robots_unreachable=1143 of 180 URLs deferred).
func TestRobotsDownCountsEachURLOnceWhileItWaits(t *testing.T) {
	t.Parallel()
	site := newRobotsSite(t, "127.0.0.1")
	site.robots = func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}
	o := robotsOptions(t, "http://"+site.host+"/")
	o.Seeds = append(o.Seeds, "http://"+site.host+"/x")
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
