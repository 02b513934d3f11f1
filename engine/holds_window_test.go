package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// TestASiteBehindAPausedHostHoldsNoWorkersWindow: on a master whose worker holds
// a window of 4 tasks, a site's robots.txt redirects to a host the operator
// paused, and 6 of the site's URLs are seeded. The worker does not keep them in
// its window while the pause lasts: another site seeded then is crawled.
func TestASiteBehindAPausedHostHoldsNoWorkersWindow(t *testing.T) {
	t.Parallel()
	var r heldRedirects
	c := prepareCluster(t, redirectsWeb(), 300*time.Millisecond, func(o *config.Options, sb *sandbox.Sandbox) { r.setup(t, o, sb) })
	c.window = 4
	c.startMaster()
	c.worker("w1", "127.0.0.2")
	if err := c.master.PauseHost(r.paused, true); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	behind := r.others[0]
	for i := range 6 {
		u := fmt.Sprintf("%s/behind-%d", r.at(behind.Hosts[0], ""), i)
		if _, err := c.master.Steer(steer.Change{Op: steer.SeedAdd, URL: u}); err != nil {
			t.Fatal(err)
		}
	}
	enginetest.WaitFor(t, behind.Hosts[0]+"'s robots.txt asked", func() bool {
		return r.requested(behind.Hosts[0], "/robots.txt", since) > 0
	})
	asked := time.Now()
	other := r.others[1]
	if _, err := c.master.Steer(steer.Change{Op: steer.SeedAdd, URL: other.Entry}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "8 requests to another site while the site behind the paused host waits", func() bool {
		n := 0
		for _, h := range other.Hosts {
			n += r.requested(h, "", asked)
		}
		return n >= 8
	})
}
