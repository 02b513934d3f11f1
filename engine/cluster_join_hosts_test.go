package engine_test

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// TestAWorkerJoiningLaterHoldsTheHostsTheOperatorPausedAndDisabled: a host paused
// and one disabled on the master before any worker joined are held by the worker
// that joins afterwards (the master sent them once, to the workers live then: none).
// The paused host's seed waits at the master, the disabled one's is dealt and
// deferred back; the sandbox sees no request to the paused host until it is
// resumed, then it is fetched.
func TestAWorkerJoiningLaterHoldsTheHostsTheOperatorPausedAndDisabled(t *testing.T) {
	t.Parallel()
	c := startCluster(t, smallWeb(33, 6))
	hostOf := func(s string) string {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return u.Hostname()
	}
	paused, disabled := hostOf(c.opts.Seeds[0]), hostOf(c.opts.Seeds[1])
	if paused == disabled {
		t.Fatalf("seeds 0 and 1 on one host %s", paused)
	}
	if err := c.master.PauseHost(paused, true); err != nil {
		t.Fatalf("PauseHost(%s) with no worker live: %v", paused, err)
	}
	if err := c.master.SetHostDisabled(disabled, true); err != nil {
		t.Fatalf("SetHostDisabled(%s) with no worker live: %v", disabled, err)
	}
	w := c.worker("w1", "127.0.0.2") // the join's reply is applied before StartWorker returns
	s := w.Engine().Snapshot()
	if !slices.Contains(s.PausedHosts, paused) {
		t.Fatalf("worker joined after PauseHost(%s) on the master has paused %v", paused, s.PausedHosts)
	}
	if s.Egress == nil || !slices.ContainsFunc(s.Egress.Disabled, func(d egress.DisabledHost) bool { return d.Host == disabled }) {
		t.Errorf("worker joined after SetHostDisabled(%s) on the master does not have it disabled", disabled)
	}
	fetched := func(s view.Snapshot, host string) int64 {
		if s.Hosts == nil {
			return 0
		}
		for i := range s.Hosts.Hosts.Len() {
			if r := s.Hosts.Hosts.At(i); r.Name == host {
				return r.Fetched
			}
		}
		return 0
	}
	// Both seeds are the worker's: had the pause not held, the paused one would
	// have gone out with the disabled one, which comes back deferred.
	enginetest.WaitSnapshot(t, c.master, disabled+"'s seed deferred", func(s view.Snapshot) bool { return s.Totals.Deferred > 0 })
	if n := fetched(c.master.Snapshot(), paused); n != 0 {
		t.Errorf("%d responses of %s, paused on the master before the worker joined", n, paused)
	}
	for _, r := range c.sb.Truth().Requests() {
		if r.Host == paused {
			t.Errorf("%s requested while paused on the master", r.URL)
		}
	}
	if err := c.master.PauseHost(paused, false); err != nil {
		t.Fatal(err)
	}
	if err := c.master.SetHostDisabled(disabled, false); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitSnapshot(t, c.master, paused+" fetched once resumed", func(s view.Snapshot) bool {
		return fetched(s, paused) > 0
	})
	c.waitDone(2 * time.Minute)
}
