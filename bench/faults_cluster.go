package main

// The fault bench's cluster part (go run ./bench faults -only cluster): a master and
// three workers in this process over an embedded NATS server, crawling a small web
// of its own on loopback (every page past a host's first links nothing; the first
// links them all; each page takes -page-delay to answer).
//
// budget_overshoot: a 3-worker crawl of three hosts of -budget-pages pages; once
// the first host has served 20 pages, `budget host H -budget total` is set on the
// master. The figure is the pages H served past the budget; the goal is at most the
// lanes that may be in flight on it (budget_lanes_bound: the lanes of the worker
// holding it). budget_pages is what H served in all.
// site_spread: nine news sites declared on the www., news. and blog. hosts of three
// subdomains of one registered domain (-site-pages pages each), and three workers
// joining one after another, each once the crawl fetched pages since the previous
// one joined. The figure is max - min of the sites each worker holds when every page
// is fetched (goal: at most 1); site_workers_fetching counts the workers that
// fetched anything (goal: 3).

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/steer"
)

// faultsCluster measures the budget and site figures into out.
func faultsCluster(dir string, budget, budgetPages, sitePages int, delay time.Duration, out map[string]any) error {
	b, err := budgetOvershoot(filepath.Join(dir, "budget"), budget, budgetPages, delay)
	if err != nil {
		return fmt.Errorf("budget run: %w", err)
	}
	fmt.Printf("live host budget %d on a 3-worker crawl: the host served %d pages (overshoot %d; lanes in flight on it at most %d)\n",
		budget, b.pages, b.overshoot, b.lanes)
	out["budget_overshoot"] = b.overshoot
	out["budget_pages"] = b.pages
	out["budget_n"] = budget
	out["budget_lanes_bound"] = b.lanes
	s, err := siteSpread(filepath.Join(dir, "sites"), sitePages, delay)
	if err != nil {
		return fmt.Errorf("site run: %w", err)
	}
	fmt.Printf("nine sites under one domain, 3 workers joining in turn: sites per worker %v (spread %d); %d workers fetched\n",
		s.sites, s.spread, s.fetching)
	out["site_spread"] = s.spread
	out["site_workers_fetching"] = s.fetching
	return nil
}

// pageWeb serves, on every host it is asked for, /p/0 linking /p/1 ... /p/pages-1,
// each page after delay, and counts the pages served per host name.
type pageWeb struct {
	pages int
	delay time.Duration
	mu    sync.Mutex
	n     map[string]int
}

func (w *pageWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		fmt.Fprint(rw, "User-agent: *\nAllow: /\n")
		return
	}
	k, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
	if err != nil {
		http.NotFound(rw, r)
		return
	}
	host, _, _ := net.SplitHostPort(r.Host)
	w.mu.Lock()
	w.n[host]++
	w.mu.Unlock()
	time.Sleep(w.delay)
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	fmt.Fprintf(&b, "<html><body><p>page %d of %s</p>", k, host)
	if k == 0 {
		for i := 1; i < w.pages; i++ {
			fmt.Fprintf(&b, `<a href="/p/%d">p%d</a>`, i, i)
		}
	}
	b.WriteString("</body></html>")
	fmt.Fprint(rw, b.String())
}

func (w *pageWeb) served(host string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n[host]
}

func (w *pageWeb) total() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, k := range w.n {
		n += k
	}
	return n
}

// serveWeb serves w on addr (IP:0) and returns the port.
func serveWeb(w *pageWeb, ip string) (port string, stop func(), err error) {
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: w}
	go srv.Serve(ln)
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, func() { srv.Close() }, nil
}

// oneAddr resolves every name to one address.
type oneAddr netip.Addr

func (a oneAddr) LookupAddrs(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.Addr(a)}, nil
}

// benchCluster is a master over an embedded NATS server and the workers started.
type benchCluster struct {
	srv     *embedded.Server
	master  *engine.Engine
	workers []*engine.Worker
	conns   []*cluster.Conn
}

func startBenchCluster(dir string, o config.Options) (*benchCluster, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c := &benchCluster{}
	var err error
	if c.srv, err = embedded.Start(embedded.Options{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats"), Token: "bench"}); err != nil {
		return nil, err
	}
	conn, err := c.connect("master")
	if err != nil {
		c.close()
		return nil, err
	}
	o.DB = filepath.Join(dir, "crawl.db")
	if c.master, err = engine.NewMaster(o, config.MasterOptions{Conn: conn, HeartbeatEvery: 500 * time.Millisecond}); err != nil {
		c.close()
		return nil, err
	}
	if err := c.master.Start(); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *benchCluster) connect(name string) (*cluster.Conn, error) {
	conn, err := cluster.Connect(c.srv.ClientURL(), cluster.ClientOptions{Name: name, Token: "bench"})
	if err == nil {
		c.conns = append(c.conns, conn)
	}
	return conn, err
}

// worker starts worker i (leaving from 127.0.0.(90+i)) with lanes lanes.
func (c *benchCluster) worker(i, lanes int, r oneAddr) error {
	name := fmt.Sprintf("w%d", i+1)
	conn, err := c.connect(name)
	if err != nil {
		return err
	}
	wo := config.WorkerOptions{Conn: conn, Node: name, Egress: []string{fmt.Sprintf("bind:127.0.0.%d", 90+i)},
		AllowPrivate: []string{"127.0.0.0/8"}, LanesMax: lanes}
	if r != (oneAddr{}) {
		wo.Resolver = r
	}
	w, err := engine.StartWorker(wo)
	if err != nil {
		return err
	}
	c.workers = append(c.workers, w)
	return nil
}

func (c *benchCluster) close() {
	for _, w := range c.workers {
		w.Close()
	}
	if c.master != nil {
		c.master.Close()
	}
	for _, conn := range c.conns {
		conn.Close()
	}
	if c.srv != nil {
		c.srv.Shutdown()
	}
}

// clusterOptions are the crawl settings of both runs: no pause between a lane's
// requests, no host cap (the page delay paces the crawl), no revisits.
func clusterOptions() config.Options {
	o := config.DefaultOptions()
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Scope.SameSite = false
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	return o
}

// waitUntil polls cond every 5 ms until it holds or limit passes.
func waitUntil(limit time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

type budgetResult struct{ pages, overshoot, lanes int }

func budgetOvershoot(dir string, budget, pages int, delay time.Duration) (budgetResult, error) {
	const lanes = 4
	web := &pageWeb{pages: pages, delay: delay, n: map[string]int{}}
	var hosts []string
	for i := range 3 {
		ip := fmt.Sprintf("127.0.0.%d", 61+i)
		port, stop, err := serveWeb(web, ip)
		if err != nil {
			return budgetResult{}, err
		}
		defer stop()
		hosts = append(hosts, ip+":"+port)
	}
	o := clusterOptions()
	for _, h := range hosts {
		o.Seeds = append(o.Seeds, "http://"+h+"/p/0")
	}
	c, err := startBenchCluster(dir, o)
	if err != nil {
		return budgetResult{}, err
	}
	defer c.close()
	for i := range 3 {
		if err := c.worker(i, lanes, oneAddr{}); err != nil {
			return budgetResult{}, err
		}
	}
	capped := strings.Split(hosts[0], ":")[0]
	if err := waitUntil(5*time.Minute, "20 pages of the capped host", func() bool { return web.served(capped) >= 20 }); err != nil {
		return budgetResult{}, err
	}
	s, err := steer.Parse([]string{"budget", "host", capped, strconv.Itoa(budget), "total"})
	if err != nil {
		return budgetResult{}, err
	}
	at := web.served(capped)
	msg, err := c.master.Steer(s)
	if err != nil {
		return budgetResult{}, err
	}
	fmt.Printf("  set at %d pages served: %s\n", at, msg)
	if at >= budget {
		return budgetResult{}, fmt.Errorf("the host had served %d pages before the budget of %d was set: raise -budget or -page-delay", at, budget)
	}
	select {
	case <-c.master.Done():
	case <-time.After(10 * time.Minute):
		return budgetResult{}, fmt.Errorf("crawl not done after 10 minutes: %+v", c.master.Stats())
	}
	r := budgetResult{pages: web.served(capped), lanes: lanes}
	r.overshoot = max(0, r.pages-budget)
	return r, nil
}

type spreadResult struct {
	sites            map[string]int
	spread, fetching int
}

func siteSpread(dir string, pages int, delay time.Duration) (spreadResult, error) {
	const lanes = 4
	web := &pageWeb{pages: pages, delay: delay, n: map[string]int{}}
	ip := "127.0.0.64"
	port, stop, err := serveWeb(web, ip)
	if err != nil {
		return spreadResult{}, err
	}
	defer stop()
	o := clusterOptions()
	for _, sub := range []string{"a", "b", "c"} {
		for _, h := range []string{"www", "news", "blog"} {
			o.Sites = append(o.Sites, config.SiteOptions{Name: h + "-" + sub, Kind: config.SiteNews,
				Entry: "http://" + h + "." + sub + ".example.test:" + port + "/p/0"})
		}
	}
	c, err := startBenchCluster(dir, o)
	if err != nil {
		return spreadResult{}, err
	}
	defer c.close()
	r := oneAddr(netip.MustParseAddr(ip))
	for i := range 3 {
		before := web.total()
		if err := c.worker(i, lanes, r); err != nil {
			return spreadResult{}, err
		}
		if err := waitUntil(5*time.Minute, "pages fetched since the last join", func() bool { return web.total() >= before+10 }); err != nil {
			return spreadResult{}, err
		}
	}
	want := 9 * pages
	if err := waitUntil(10*time.Minute, "every page fetched", func() bool { return web.total() >= want }); err != nil {
		return spreadResult{}, err
	}
	res := spreadResult{sites: map[string]int{}}
	lo, hi := 1<<30, 0
	for _, n := range c.master.Snapshot().Nodes {
		res.sites[n.Name] = n.Sites
		lo, hi = min(lo, n.Sites), max(hi, n.Sites)
		if n.Results > 0 {
			res.fetching++
		}
	}
	res.spread = hi - lo
	return res, nil
}
