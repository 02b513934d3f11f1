package engine

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	o := DefaultOptions()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	var hosts []string
	for _, sub := range []string{"a", "b", "c"} {
		for _, h := range []string{"www", "news", "blog"} {
			host := h + "." + sub + ".example.test"
			hosts = append(hosts, host)
			o.Sites = append(o.Sites, SiteOptions{Name: h + "-" + sub, Kind: SiteNews, Entry: "http://" + host + ":" + port + "/p/0"})
		}
	}
	_, conn := startTestNATS(t)
	m, err := NewMaster(o, MasterOptions{Conn: conn("master"), HeartbeatEvery: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	nodes := func() map[string]Node {
		out := map[string]Node{}
		for _, n := range m.Snapshot().Nodes {
			out[n.Name] = n
		}
		return out
	}
	for i := range 3 {
		name := fmt.Sprintf("w%d", i+1)
		wk, err := StartWorker(WorkerOptions{Conn: conn(name), Node: name, Egress: []string{fmt.Sprintf("bind:127.0.0.%d", 81+i)},
			AllowPrivate: []string{"127.0.0.0/8"}, LanesMax: lanes, Resolver: oneAddr(addr)})
		if err != nil {
			t.Fatal(err)
		}
		defer wk.Close()
		waitFor(t, name+" joined", func() bool { n, ok := nodes()[name]; return ok && n.State == NodeActive })
		if i == 0 {
			// Every site's entry fetched and its pages queued before the others join.
			waitFor(t, "the nine sites' pages queued", func() bool { return m.Snapshot().QueueDepth >= len(hosts)*(pages-1)-lanes })
		}
	}
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
	close(w.hold)
	waitFor(t, "every page fetched", func() bool {
		n := 0
		for _, h := range hosts {
			n += w.servedOn(h)
		}
		return n >= len(hosts)*pages
	})
	for name, n := range nodes() {
		if n.Results == 0 {
			t.Errorf("worker %s fetched nothing (sites per worker %v)", name, sites)
		}
	}
}
