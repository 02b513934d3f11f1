package engine_test

import (
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// On a master, live steering reaches the queues its workers hold:
//   - a keyword added live is searched first by the worker its shard is dealt to,
//     ahead of the long queue that worker's lane on the search host has and past its
//     full window, within two lane pauses (plus the trip through the store, NATS and
//     the worker);
//   - a keyword removed live has its searches queued at the master or on a worker
//     withdrawn: none is requested once the command is acknowledged (but the one a
//     lane may hold in hand), and each is counted as skipped (steered_out).
func TestMasterSteersQueuedSearches(t *testing.T) {
	t.Parallel()
	const pages = 100 // search result pages per keyword: a long queue on the search host
	cfg := enginetest.SandboxConfig(21, 24)
	cfg.Search.PagesPerKeyword, cfg.Search.ResultsPerPage, cfg.Search.Quota = pages, 1, 1_000_000
	var social *sandbox.Site
	c := prepareCluster(t, cfg, 300*time.Millisecond, func(o *config.Options, sb *sandbox.Sandbox) {
		o.Seeds = nil
		social = searchSite(sb)
		if social == nil {
			return
		}
		social.Keywords = social.Keywords[:2] // one shard per worker
		o.Sites = []config.SiteOptions{{Name: social.Domain, Kind: config.SiteSocial, Search: social.Search,
			Pages: pages, Keywords: social.Keywords, Class: social.Class}}
	})
	if social == nil {
		t.Skip("this sandbox seed has no social site with two keywords")
	}
	// A window of 20 tasks per worker: most of a shard's searches wait at the master,
	// the rest in the worker's queue, and the worker's window is full when the new
	// keyword comes.
	c.window = 20
	// No worker is taken for dead here: the count checked below (steered_out equals
	// the searches the sandbox never saw) is exact only while the master knows what
	// each worker holds. With the default timeout (3 heartbeats, 900 ms here) a
	// loaded machine stalling the process for a second made the master declare the
	// shard's worker dead around the :keyword rm; it took back what the worker held
	// and withdrew it with the rest (steered_out), while the worker, alive, had
	// requested some of them (results on their way, the search in its lane's hand),
	// their results then dropped as late: counted withdrawn by the master, requested
	// in the sandbox's log, and the counts parted for good. That is a dead worker's
	// at-least-once delivery (withdrawals.go), not this test's subject.
	c.timeout = time.Minute
	c.startMaster()
	for i, name := range []string{"w1", "w2"} {
		c.worker(name, "127.0.0."+strconv.Itoa(2+i))
	}
	// searched is when each search page of keyword q was first requested.
	searched := func(q string) map[string]time.Time {
		out := map[string]time.Time{}
		for _, r := range c.sb.Truth().Requests() {
			u, err := url.Parse(r.URL)
			if err != nil || u.Path != "/search" || u.Query().Get("q") != q {
				continue
			}
			if at, ok := out[r.URL]; !ok || r.Start.Before(at) {
				out[r.URL] = r.Start
			}
		}
		return out
	}
	enginetest.WaitFor(t, "the workers searching their keyword shards", func() bool {
		return len(searched(social.Keywords[0])) >= 5 && len(searched(social.Keywords[1])) >= 5
	})

	t.Run("keyword added live is searched ahead of the worker's queue", func(t *testing.T) {
		// dealt is when the master sent a worker the batch holding the new
		// keyword's first search: the worker's backlog is judged from there,
		// not from the command, whose trip through the store and the master
		// (longer on a loaded box) leaves the worker fetching its queue.
		var mu sync.Mutex
		var dealt time.Time
		watch := c.connect("watch")
		sub, err := watch.NC.Subscribe(wire.Subjects(config.DefaultClusterPrefix).Tasks(">"), func(m *nats.Msg) {
			var b wire.Tasks
			if cluster.Decode(m.Data, &b, 0) != nil {
				return
			}
			for _, tk := range b.Tasks {
				if u, err := url.Parse(tk.URL); err == nil && u.Query().Get("q") == "zeppelin" {
					mu.Lock()
					if dealt.IsZero() {
						dealt = time.Now()
					}
					mu.Unlock()
				}
			}
		})
		if err == nil {
			err = watch.NC.Flush() // the server knows the subscription before the command
		}
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
		start := time.Now()
		if _, err := c.master.Steer(steer.Change{Op: steer.KeywordAdd, Site: social.Domain, Keywords: []string{"zeppelin"}}); err != nil {
			t.Fatal(err)
		}
		var first sandbox.Request
		enginetest.WaitFor(t, "a search for the keyword added live", func() bool {
			for _, r := range c.sb.Truth().Requests() {
				if u, err := url.Parse(r.URL); err == nil && u.Path == "/search" && u.Query().Get("q") == "zeppelin" &&
					(first.Start.IsZero() || r.Start.Before(first.Start)) {
					first = r
				}
			}
			mu.Lock()
			defer mu.Unlock()
			return !first.Start.IsZero() && !dealt.IsZero()
		})
		mu.Lock()
		from := dealt
		mu.Unlock()
		// Judged by the order of the worker's requests, not by the wall clock: the
		// worker that searched the new keyword had a full window of its shard's
		// searches queued; ahead of them, the new search goes out at most behind the
		// one in flight and the one at the gate when it came.
		var ahead []string
		for _, r := range c.sb.Truth().Requests() {
			if r.IP == first.IP && r.Host == first.Host && r.Start.After(from) && r.Start.Before(first.Start) {
				ahead = append(ahead, r.URL)
			}
		}
		t.Logf("first search for the keyword added live: %v after :keyword add, %v after its batch was sent, %d requests of its worker to the host between (lane delay %v..%v)",
			first.Start.Sub(start).Round(time.Millisecond), first.Start.Sub(from).Round(time.Millisecond), len(ahead), c.opts.Lanes.DelayMin, c.opts.Lanes.DelayMax)
		if len(ahead) > 2 {
			t.Errorf("%d searches of the worker's backlog went out before the keyword added live, e.g. %v: it queued behind the worker's backlog", len(ahead), ahead[:min(3, len(ahead))])
		}
	})

	t.Run("keyword removed live has its queued searches withdrawn", func(t *testing.T) {
		kw := social.Keywords[1]
		msg, err := c.master.Steer(steer.Change{Op: steer.KeywordRm, Site: social.Domain, Keywords: []string{kw}})
		if err != nil {
			t.Fatal(err)
		}
		acked := time.Now()
		var fetched map[string]time.Time
		var skippedOut int64
		defer func() {
			if t.Failed() { // seen once under a loaded CI run: say which way the counts parted
				t.Logf("searches for %q requested: %d of %d; counted steered_out: %d (want %d)", kw, len(fetched), pages, skippedOut, pages-len(fetched))
				for _, n := range c.master.Snapshot().Nodes { // late results, a late join: the master took it for dead
					t.Logf("worker %s: %s, joined %v after the command, %d results, %d dropped as late",
						n.Name, n.State, n.Joined.Sub(acked).Round(time.Millisecond), n.Results, n.Late)
				}
			}
		}()
		enginetest.WaitSnapshot(t, c.master, "every search never requested counted as steered_out", func(s view.Snapshot) bool {
			fetched = searched(kw)
			skippedOut = s.Totals.Skipped[front.SkipSteeredOut]
			return skippedOut == int64(pages-len(fetched))
		})
		var late []string
		for u, at := range fetched {
			if at.After(acked) {
				late = append(late, u)
			}
		}
		if len(late) > 1 { // one lane holds the search host on the shard's worker
			t.Errorf("%d searches for %q requested after %q, e.g. %v", len(late), kw, msg, late[:min(len(late), 3)])
		}
		t.Logf("%q: %d of %d searches had been requested, %d withdrawn", msg, len(fetched), pages, pages-len(fetched))
	})
}

// searchSite is the first of sb's sites with a search page and two keywords or
// more, or nil.
func searchSite(sb *sandbox.Sandbox) *sandbox.Site {
	for _, s := range sb.Info().Sites {
		if s.Search != "" && len(s.Keywords) >= 2 {
			return &s
		}
	}
	return nil
}
