package engine_test

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// A worker that sets a URL aside (its site's robots.txt unreachable) tells the master
// so, and why: the master defers the URL in its store, counts it deferred and under
// robots_unreachable with the URL as the summary's example, as one box does, and
// counts no result for the worker (the URL was neither fetched nor failed). Before,
// the deferral carried no reason: the master's errors and examples missed it.
func TestWorkerDeferralReachesTheMasterAsADeferral(t *testing.T) {
	t.Parallel()
	seed, pages := engine.RobotsDownSite(t)
	c := startClusterWith(t, enginetest.SandboxConfig(3, 2), 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		o.Seeds = []string{seed}
		o.HostRate = 0
	})
	c.worker("w1")
	st := c.waitDone(time.Minute)
	if pages.Load() != 0 || st.Deferred != 1 {
		t.Fatalf("pages fetched %d, deferred %d: want 0, 1", pages.Load(), st.Deferred)
	}
	if st.Cluster == nil || st.Cluster.Nodes["w1"].Results != 0 {
		t.Fatalf("the worker's results on the master: %+v; want none (a deferral is no result)", st.Cluster)
	}
	if st.PagesFetched != 0 {
		t.Fatalf("pages fetched %d on the master: a deferral was taken for a fetch", st.PagesFetched)
	}
	if st.Errors["robots_unreachable"] != 1 || len(st.Errors) != 1 {
		t.Errorf("errors on the master %v; want robots_unreachable 1 alone, as on one box", st.Errors)
	}
	if ex := st.Examples["robots_unreachable"]; len(ex) != 1 || ex[0] != seed {
		t.Errorf("robots_unreachable examples on the master %q; want [%s]", ex, seed)
	}
	s, err := store.Open(c.opts.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if u, err := s.URLState(seed); err != nil || u.State != store.Deferred {
		t.Fatalf("seed state %v (%v), want deferred", u.State, err)
	}
}
