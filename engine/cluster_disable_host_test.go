package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// sectionHost is the first section host (not www) of a news site of the cluster's
// sandbox, and how many requests the sandbox answered for it so far.
func (c *testCluster) sectionHost() (host string, requests func() int) {
	c.t.Helper()
	for _, s := range c.sb.Info().Sites {
		if s.Search == "" && len(s.Hosts) >= 2 {
			host = s.Hosts[1]
			break
		}
	}
	if host == "" {
		c.t.Fatalf("no news site with a section host in %+v", c.sb.Info().Sites)
	}
	return host, func() int {
		n := 0
		for _, r := range c.sb.Truth().Requests() {
			if r.Host == host {
				n++
			}
		}
		return n
	}
}

// disabledOn tells whether the worker has host on its host_disable_list.
func disabledOn(s view.Snapshot, host string) bool {
	return s.Egress != nil && slices.ContainsFunc(s.Egress.Disabled, func(d egress.DisabledHost) bool { return d.Host == host })
}

// TestAHostEnabledOnTheMasterComesBackAtOnce: a section host disabled on the
// master once its articles are queued has its tasks deferred by the worker; enabled
// again on the master, its deferred URLs come back at once (as on one box), not when
// the disable would have ended (rotation.disable_for, 2 hours), and the crawl ends.
func TestAHostEnabledOnTheMasterComesBackAtOnce(t *testing.T) {
	t.Parallel()
	c := startCluster(t, smallWeb(51, 6))
	c.worker("w1", "127.0.0.2")
	host, requests := c.sectionHost()
	enginetest.WaitFor(t, host+" requested 3 times", func() bool { return requests() >= 3 })
	if err := c.master.SetHostDisabled(host, true); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitSnapshot(t, c.master, host+"'s tasks deferred", func(s view.Snapshot) bool { return s.Totals.Deferred > 0 })
	if err := c.master.SetHostDisabled(host, false); err != nil {
		t.Fatal(err)
	}
	c.waitDone(2 * time.Minute)
	st, err := store.OpenReadOnly(c.opts.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	left, err := st.DueDeferred(time.Now().Add(3*time.Hour), 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range left {
		t.Errorf("%s still deferred at the crawl's end, %s enabled again", u.URL, host)
	}
}

// TestAHostDisabledOnTheMasterEndsWithTheMastersDisable: the master's disable
// lasts rotation.disable_for (2 s here) from the operator's command, and so does
// every worker's: a worker joining after it ended does not hold the host, though
// one holding it then would have for its own 2 s from its join.
func TestAHostDisabledOnTheMasterEndsWithTheMastersDisable(t *testing.T) {
	t.Parallel()
	cfg := smallWeb(53, 6)
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = 6, 20 // work left on the host after the disable
	c := startClusterWith(t, cfg, 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		o.Rotation.DisableFor = 2 * time.Second
	})
	w1 := c.worker("w1", "127.0.0.2")
	host, requests := c.sectionHost()
	enginetest.WaitFor(t, host+" requested 3 times", func() bool { return requests() >= 3 })
	if err := c.master.SetHostDisabled(host, true); err != nil {
		t.Fatal(err)
	}
	if !disabledOn(w1.Engine().Snapshot(), host) {
		t.Fatalf("w1 does not hold %s disabled on the master", host)
	}
	// A request to it that began after here began once w1's disable ended (one
	// in flight at the disable began before): the master's, which began before
	// w1's, ended first.
	disabled := time.Now()
	enginetest.WaitFor(t, host+" requested again once its disable ended", func() bool {
		for _, r := range c.sb.Truth().Requests() {
			if r.Host == host && r.Start.After(disabled) {
				return true
			}
		}
		return false
	})
	w2 := c.worker("w2", "127.0.0.3") // the join's reply is applied before StartWorker returns
	if disabledOn(w2.Engine().Snapshot(), host) {
		t.Errorf("w2, joining after the master's disable of %s ended, holds it disabled while w1 fetches it", host)
	}
	c.master.Close()
}
