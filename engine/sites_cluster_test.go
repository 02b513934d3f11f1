package engine

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// oneAddr resolves every name to one address (the test's web serves them all).
type oneAddr netip.Addr

func (a oneAddr) LookupAddrs(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.Addr(a)}, nil
}

// Nine news sites declared on the www., news. and blog. hosts of three subdomains of
// one organisation's domain, three workers joining one after another while the
// sites' pages wait: the master deals nine sites, not one, so every worker fetches
// and each holds 3 ± 1 of them. Keyed by registered domain, the nine were one site,
// dealt to the first worker, and the others idled to the end.
func TestNineSitesUnderOneDomainAreDealtOverJoiningWorkers(t *testing.T) {
	t.Parallel()
	const pages, lanes = 20, 2
	w := newHubWeb(t, 1, pages)
	w.hold, w.arrived = make(chan struct{}), make(chan string, 1024)
	port := strings.Split(w.hosts[0], ":")[1]
	addr := netip.MustParseAddr(w.host(0))
	o := testDefaults()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	// The web has no feeds or sitemaps: with none probed, a site's tasks are its
	// pages, which the hold below counts on.
	o.Discovery.Enabled = false
	var hosts []string
	for _, sub := range []string{"a", "b", "c"} {
		for _, h := range []string{"www", "news", "blog"} {
			host := h + "." + sub + ".example.test"
			hosts = append(hosts, host)
			o.Sites = append(o.Sites, config.SiteOptions{Name: h + "-" + sub, Kind: config.SiteNews, Entry: "http://" + host + ":" + port + "/p/0"})
		}
	}
	_, conn := natstest.Start(t)
	// No worker is taken for dead: a loaded box can stall one for the default
	// timeout (three heartbeats), and its sites would be dealt again.
	m := startMaster(t, o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: 500 * time.Millisecond, Timeout: time.Minute})
	nodes := func() map[string]view.Node {
		out := map[string]view.Node{}
		for _, n := range m.Snapshot().Nodes {
			out[n.Name] = n
		}
		return out
	}
	for i := range 3 {
		name := fmt.Sprintf("w%d", i+1)
		startWorker(t, config.WorkerOptions{Conn: conn(name), Node: name, Egress: []string{fmt.Sprintf("bind:127.0.0.%d", 81+i)},
			AllowPrivate: []string{"127.0.0.0/8"}, LanesMax: lanes, Resolver: oneAddr(addr)})
		waitFor(t, name+" joined", func() bool { n, ok := nodes()[name]; return ok && n.State == view.NodeActive })
		if i == 0 {
			// Every site's entry fetched and its pages queued before the others join.
			waitFor(t, "the nine sites' pages queued", func() bool { return m.Snapshot().QueueDepth >= len(hosts)*(pages-1)-lanes })
		}
	}
	// Opened on the way out too: a wait that failed leaves no request held for
	// the workers' Close.
	open := sync.OnceFunc(func() { close(w.hold) })
	defer open()
	sites := map[string]int{}
	for name, n := range nodes() {
		sites[name] = n.Sites
	}
	lo, hi := 1<<30, 0
	for _, k := range sites {
		lo, hi = min(lo, k), max(hi, k)
	}
	if hi-lo > 1 || len(sites) != 3 {
		t.Errorf("sites per worker %v after three joins; want 3 workers within one site of each other", sites)
	}
	// A site moves once w1 handed back its queued tasks (a release the master
	// sends it at each join) and its lanes' requests to the site are over. The
	// hold opens once w1 holds no more than its own sites' pages and the
	// requests in its lanes: opened before its releases, its lanes fetched
	// every page it still held in a few milliseconds, and under load the others
	// fetched nothing. A joiner need not be handed anything before: its sites
	// may be the ones whose requests are held (in w1's lanes, or in w2's for
	// the site w3 takes from w2), and they move only once the hold opens.
	waitFor(t, "w1 handed back the pages of the sites dealt to others", func() bool {
		return nodes()["w1"].Queue <= sites["w1"]*(pages-1)+lanes
	})
	open()
	waitFor(t, "every page fetched", func() bool {
		n := 0
		for _, h := range hosts {
			n += w.servedOn(h)
		}
		return n >= len(hosts)*pages
	})
	// A request the site answered is a result on its way to the master: the
	// counts are read once the master stored every page (the last burst of
	// fetches after the hold may be all of one worker's).
	waitFor(t, "every page stored by the master", func() bool { return m.Snapshot().Totals.PagesStored >= int64(len(hosts)*pages) })
	for name, n := range nodes() {
		if n.Results == 0 {
			t.Errorf("worker %s fetched nothing (sites per worker %v)", name, sites)
		}
	}
}

// Sites added live follow the declared-site rules too: with www.a.example.test
// declared, `site add news` on news.a. and blog.a. of the same registered domain
// adds two sites of their own (named after their hosts), not a refusal ("already
// crawled") or a merge into the first, and the master deals the three over its
// three workers. A site that names the host already still refuses it.
func TestSitesAddedLiveUnderOneDomainStaySites(t *testing.T) {
	t.Parallel()
	const pages, lanes = 10, 2
	w := newHubWeb(t, 1, pages)
	w.hold, w.arrived = make(chan struct{}), make(chan string, 1024)
	defer close(w.hold)
	port := strings.Split(w.hosts[0], ":")[1]
	addr := netip.MustParseAddr(w.host(0))
	entry := func(h string) string { return "http://" + h + ".a.example.test:" + port + "/p/0" }
	o := testDefaults()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	o.Resolver = oneAddr(addr)
	o.Sites = []config.SiteOptions{{Name: "www-a", Kind: config.SiteNews, Entry: entry("www")}}
	_, conn := natstest.Start(t)
	// No worker is declared dead (Timeout is a guard), as in the test above: a
	// false death on a loaded box deals the sites again.
	m := startMaster(t, o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: 500 * time.Millisecond, Timeout: time.Minute})
	for i := range 3 {
		name := fmt.Sprintf("w%d", i+1)
		startWorker(t, config.WorkerOptions{Conn: conn(name), Node: name, Egress: []string{fmt.Sprintf("bind:127.0.0.%d", 85+i)},
			AllowPrivate: []string{"127.0.0.0/8"}, LanesMax: lanes, Resolver: oneAddr(addr)})
	}
	waitFor(t, "three workers joined", func() bool { return len(m.Snapshot().Nodes) == 3 })
	for _, h := range []string{"news", "blog"} {
		s, _ := steer.Parse([]string{"site", "add", "news", entry(h)})
		msg, err := m.Steer(s)
		if want := h + ".a.example.test"; err != nil || !strings.Contains(msg, "site "+want+" added") {
			t.Fatalf("site add news %s: %q, %v; want site %s added", entry(h), msg, err, want)
		}
	}
	book := m.sites.Load()
	for _, h := range []string{"www", "news", "blog"} {
		want := h + ".a.example.test"
		if h == "www" {
			want = "www-a"
		}
		if s := book.SiteOf(h + ".a.example.test"); s == nil || s.Name != want {
			t.Errorf("%s.a.example.test is crawled as site %v, want %s", h, s, want)
		}
	}
	s, _ := steer.Parse([]string{"site", "add", "news", "http://news.a.example.test:" + port + "/other"})
	if _, err := m.Steer(s); err == nil || !strings.Contains(err.Error(), `"news.a.example.test"`) {
		t.Errorf("a second site on news.a.example.test: %v, want it refused", err)
	}
	waitFor(t, "the three sites dealt one to each worker", func() bool {
		for _, n := range m.Snapshot().Nodes {
			if n.Sites != 1 {
				return false
			}
		}
		return true
	})
}
