package engine_test

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// testCluster is a master over an embedded NATS server and its workers, crawling a
// sandbox web in one process (each worker with its own loopback addresses).
type testCluster struct {
	t       *testing.T
	sb      *sandbox.Sandbox
	srv     *embedded.Server
	token   string
	opts    config.Options
	master  *engine.Engine
	conns   []*cluster.Conn
	hb      time.Duration
	window  int              // MasterOptions.Window (0: its default)
	timeout time.Duration    // MasterOptions.Timeout (0: noDeathTimeout)
	workers []*engine.Worker // started by worker, for a failure's report
	browser context.Context  // WorkerOptions.Browser of the workers started (nil: each its own)
}

const testToken = "test-token-0123456789"

// noDeathTimeout is the heartbeat timeout of a test's master that declares no worker
// dead: a guard, not a measure. A loaded box leaves a live worker's heartbeats
// unanswered for seconds (4 s seen, two cores, the whole suite at GOMAXPROCS=1);
// with the default (3 periods of 300 ms, and its margin) the master buried it,
// handed its tasks out again and they were fetched twice, which is what a false
// death costs, not what those tests judge. Dead workers have their own tests.
const noDeathTimeout = time.Minute

func startCluster(t *testing.T, cfg sandbox.Config) *testCluster {
	t.Helper()
	return startClusterWith(t, cfg, 300*time.Millisecond, nil)
}

// startClusterWith starts a sandbox, the embedded server and a master whose options
// are enginetest.PoliteOptions changed by setup (nil: unchanged), with heartbeat period hb.
func startClusterWith(t *testing.T, cfg sandbox.Config, hb time.Duration, setup func(*config.Options, *sandbox.Sandbox)) *testCluster {
	t.Helper()
	c := prepareCluster(t, cfg, hb, setup)
	c.startMaster()
	return c
}

// prepareCluster is startClusterWith without the master: the caller may change the
// cluster's settings, then calls startMaster.
func prepareCluster(t *testing.T, cfg sandbox.Config, hb time.Duration, setup func(*config.Options, *sandbox.Sandbox)) *testCluster {
	t.Helper()
	return prepareClusterCapped(t, cfg, hb, setup, 0)
}

// prepareClusterCapped is prepareCluster whose server takes messages of at most
// maxPayload bytes (0: embedded.DefaultMaxPayload).
func prepareClusterCapped(t *testing.T, cfg sandbox.Config, hb time.Duration, setup func(*config.Options, *sandbox.Sandbox), maxPayload int) *testCluster {
	t.Helper()
	sb := enginetest.StartSandbox(t, cfg)
	dir := t.TempDir()
	c := &testCluster{t: t, sb: sb, token: testToken, hb: hb}
	c.opts = enginetest.PoliteOptions(sb, filepath.Join(dir, "crawl.db"))
	if setup != nil {
		setup(&c.opts, sb)
	}
	var err error
	c.srv, err = embedded.Start(embedded.Options{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats"), Token: c.token, MaxPayload: maxPayload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.srv.Shutdown)
	return c
}

func (c *testCluster) connect(name string) *cluster.Conn {
	c.t.Helper()
	conn, err := cluster.Connect(c.srv.ClientURL(), cluster.ClientOptions{Name: name, Token: c.token})
	if err != nil {
		c.t.Fatal(err)
	}
	c.conns = append(c.conns, conn)
	c.t.Cleanup(conn.Close)
	return conn
}

func (c *testCluster) startMaster() {
	c.t.Helper()
	timeout := c.timeout
	if timeout == 0 {
		timeout = noDeathTimeout
	}
	m, err := engine.NewMaster(c.opts, config.MasterOptions{Conn: c.connect("master"), HeartbeatEvery: c.hb, Window: c.window, Timeout: timeout})
	if err != nil {
		c.t.Fatal(err)
	}
	// Closed at the end of the test whatever happens (Close is idempotent): a
	// master left running went on burying the next tests' workers.
	c.t.Cleanup(func() { m.Close() })
	c.t.Cleanup(func() { logWarnings(c.t, "master", m) })
	if err := m.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.master = m
}

// worker starts a worker leaving from the given loopback addresses.
func (c *testCluster) worker(name string, binds ...string) *engine.Worker {
	c.t.Helper()
	var egress []string
	for _, b := range binds {
		egress = append(egress, "bind:"+b)
	}
	w, err := engine.StartWorker(config.WorkerOptions{Conn: c.connect(name), Node: name, Egress: egress,
		AllowPrivate: []string{"127.0.0.0/8"}, DNSServers: []string{c.sb.DNSAddr()}, Browser: c.browser})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(w.Close)
	c.workers = append(c.workers, w)
	return w
}

// waitDone waits for the master's crawl to end, failing the test after d or
// enginetest.CrawlPatience, whichever is longer (d is what the crawl takes on an
// idle box, give or take; loaded, it takes several times that), then closes the
// master and returns its stats.
func (c *testCluster) waitDone(d time.Duration) view.Stats {
	c.t.Helper()
	d = max(d, enginetest.CrawlPatience)
	select {
	case <-c.master.Done():
	case <-time.After(d):
		// What the master still waits for, and its last words.
		for _, ev := range c.master.EventsSince(0, 300) {
			c.t.Logf("master log: %s %v %s: %s", ev.At.Format("15:04:05.000"), ev.Level, ev.Host, ev.Msg)
		}
		for _, n := range c.master.Snapshot().Nodes {
			c.t.Logf("node %s: %s, heartbeat %s, queue %d, hosts %d", n.Name, n.State, n.Heartbeat.Format("15:04:05.000"), n.Queue, n.Hosts)
		}
		for i, w := range c.workers {
			c.t.Logf("worker %d: %s", i, engine.IdleReport(w.Engine()))
			for _, ev := range w.Engine().EventsSince(0, 100) {
				c.t.Logf("worker %d log: %s %v lane %d %s: %s", i, ev.At.Format("15:04:05.000"), ev.Level, ev.Lane, ev.Host, ev.Msg)
			}
		}
		c.t.Fatalf("distributed crawl not done after %v: %s; %+v", d, engine.IdleReport(c.master), c.master.Stats())
	}
	s := c.master.Stats()
	if err := c.master.Close(); err != nil {
		c.t.Fatal(err)
	}
	return s
}

// TestDistributedCrawlIsPoliteAndComplete: a master and three workers crawl the
// sandbox (anti-bot rule on). The sandbox's truth log shows no ban, no adjacency
// violation and no host served by two workers at once; every page is stored once.
func TestDistributedCrawlIsPoliteAndComplete(t *testing.T) {
	t.Parallel()
	// Two listing pages a section (smallWeb): 18 hosts still give hundreds of
	// pages, each host's crawl half as long.
	c := startCluster(t, smallWeb(7, 18))
	ws := map[string]string{} // source IP -> worker
	for i, name := range []string{"w1", "w2", "w3"} {
		a, b := "127.0.0."+itoa(2+2*i), "127.0.0."+itoa(3+2*i)
		ws[a], ws[b] = name, name
		c.worker(name, a, b)
	}
	// The master's panes show what the workers report: their egresses (a node
	// column) and their DNS caches added up.
	enginetest.WaitSnapshot(t, c.master, "workers' egress rows and DNS figures on the master", func(s view.Snapshot) bool {
		nodes := map[string]bool{}
		if s.Egress != nil {
			for _, r := range s.Egress.Egresses {
				nodes[r.Node] = true
			}
		}
		return len(nodes) == 3 && s.DNS != nil && s.DNS.Stats.Lookups > 0
	})
	stats := c.waitDone(3 * time.Minute)
	if stats.LanesPeak == 0 { // the master's board has none: its workers' (was "peak 0 lanes")
		t.Errorf("the master's stats say no lane was ever alive: %+v", stats)
	}
	if stats.DNS == nil || stats.DNS.Lookups == 0 {
		t.Errorf("the master's stats have no DNS figures from the workers: %+v", stats.DNS)
	}
	if stats.PagesStored < 200 {
		t.Fatalf("crawl too small to judge: %+v", stats)
	}
	truth := c.sb.Truth()
	if bans := truth.Bans(); len(bans) != 0 {
		t.Fatalf("%d bans, first %+v", len(bans), bans[0])
	}
	byHost := map[string][]sandbox.Request{}
	workers := map[string]bool{}
	for _, r := range truth.Requests() {
		if r.Violation {
			t.Fatalf("%s from %s broke the adjacency rule", r.URL, r.IP)
		}
		byHost[r.Host] = append(byHost[r.Host], r)
		workers[ws[r.IP]] = true
	}
	if len(workers) != 3 {
		t.Fatalf("requests came from workers %v, want all three", workers)
	}
	for host, rs := range byHost {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
		busyUntil := map[string]time.Time{}
		for _, r := range rs {
			for other, until := range busyUntil {
				if other != ws[r.IP] && r.Start.Before(until) {
					t.Fatalf("host %s served by %s and %s at once (%s)", host, other, ws[r.IP], r.URL)
				}
			}
			if r.End.After(busyUntil[ws[r.IP]]) {
				busyUntil[ws[r.IP]] = r.End
			}
		}
	}
	pages := enginetest.StoredSet(t, c.opts.DB)
	if int64(len(pages)) != stats.PagesStored {
		t.Errorf("%d pages in the store, stats say %d", len(pages), stats.PagesStored)
	}
	t.Logf("%d pages stored by 3 workers, %d requests, 0 bans, 0 violations; late results %d",
		len(pages), len(truth.Requests()), stats.Cluster.LateResults)
}

// TestWorkerJoinsAndLeavesMidCrawl: a worker that joins a running crawl is dealt its
// share of the sites in the answer to its join and gets tasks; one that leaves
// gracefully loses nothing.
func TestWorkerJoinsAndLeavesMidCrawl(t *testing.T) {
	t.Parallel()
	c := startCluster(t, smallWeb(9, 12))
	ref := enginetest.StartReference(t, c.sb)
	w1 := c.worker("w1", "127.0.0.2", "127.0.0.3")
	enginetest.WaitSnapshot(t, c.master, "w1 stores pages", func(s view.Snapshot) bool { return s.Totals.PagesStored >= 20 })
	c.worker("w2", "127.0.0.4", "127.0.0.5")
	// The master deals the new worker its share when it answers the join, not at a
	// later heartbeat: the join's log line records how many units moved to it.
	joinedLine := c.joinLine(t, "w2")
	if !strings.Contains(joinedLine, " to it") {
		t.Errorf("the master dealt w2 nothing when it joined: %q", joinedLine)
	}
	enginetest.WaitSnapshot(t, c.master, "w2 holds tasks", func(s view.Snapshot) bool {
		for _, n := range s.Nodes {
			if n.Name == "w2" && n.Queue > 0 {
				return true
			}
		}
		return false
	})
	t.Logf("%s", joinedLine)
	// The leave waits for the fetches in hand, each behind its host's gap: a
	// loaded box took more than 30 s for five of them.
	ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
	defer cancel()
	if err := w1.Leave(ctx); err != nil {
		t.Fatalf("leave: %v", err)
	}
	stats := c.waitDone(3 * time.Minute)
	want := ref.Pages(t)
	got := enginetest.StoredSet(t, c.opts.DB)
	if len(got) != len(want) {
		t.Fatalf("stored %d pages, a single-process crawl of the same web stores %d", len(got), len(want))
	}
	t.Logf("%d pages; w1 left, w2 finished; %+v", len(got), stats.Cluster)
}

func itoa(i int) string { return strconv.Itoa(i) }

// smallWeb is enginetest.SandboxConfig with two listing pages per section host
// instead of four: about half the pages, for the tests that crawl to the end to
// see the crawl end and judge a few dozen pages (a single-address worker fetches
// a host's pages one after the other, so the crawl takes half as long).
func smallWeb(seed int64, hosts int) sandbox.Config {
	cfg := enginetest.SandboxConfig(seed, hosts)
	cfg.Layout.ListingPages = 2
	return cfg
}

// TestWorkerKeepsItsOwnEgressesBesideGrantedOnes: a worker's own --egress and the
// egresses the master grants from its account table are all used; the table's names
// (e1, e2, ...) never replace the worker's own.
func TestWorkerKeepsItsOwnEgressesBesideGrantedOnes(t *testing.T) {
	t.Parallel()
	c := startClusterWith(t, smallWeb(5, 6), 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		o.Egress = []string{"bind:127.0.0.40", "bind:127.0.0.41", "bind:127.0.0.42"}
		o.Rotation.PerNode = 2
	})
	sb := c.sb
	w := c.worker("w1", "127.0.0.43")
	var got []string
	for _, r := range w.Engine().Snapshot().Egress.Egresses {
		got = append(got, r.Name+"="+r.Address)
	}
	want := map[string]bool{"bind:127.0.0.40": true, "bind:127.0.0.41": true, "bind:127.0.0.43": true}
	for _, g := range got {
		for addr := range want {
			if strings.HasSuffix(g, addr) {
				delete(want, addr)
			}
		}
	}
	if len(got) != 3 || len(want) != 0 {
		t.Errorf("worker egresses %v; want its own bind:127.0.0.43 and two granted from the table, missing %v", got, want)
	}
	// :egress rm on the master takes a granted egress off the worker using it.
	if err := c.master.RemoveEgress("e1"); err != nil {
		t.Fatalf("RemoveEgress(e1) on the master: %v", err)
	}
	for _, r := range w.Engine().Snapshot().Egress.Egresses {
		if r.Name == "e1" {
			t.Errorf("egress e1 still on the worker after :egress rm on the master: %+v", r)
		}
	}
	stats := c.waitDone(2 * time.Minute)
	used := map[string]bool{}
	for _, r := range sb.Truth().Requests() {
		used[r.IP] = true
	}
	if !used["127.0.0.43"] || stats.PagesStored == 0 {
		t.Errorf("requests came from %v (%d pages stored); want the worker's own address among them", used, stats.PagesStored)
	}
}

// TestMasterControlsReachTheWorkers: the console's controls on a master act on the
// workers: a lane paused by its master-wide ID is paused on its worker, lanes.max
// reaches every worker, and a DNS flush is summed over them.
func TestMasterControlsReachTheWorkers(t *testing.T) {
	t.Parallel()
	c := startCluster(t, smallWeb(13, 6))
	w1 := c.worker("w1", "127.0.0.2")
	w2 := c.worker("w2", "127.0.0.3")
	var target view.Lane
	enginetest.WaitSnapshot(t, c.master, "a worker lane on the master", func(s view.Snapshot) bool {
		for _, l := range s.Lanes {
			if l.Node != "" && l.Queued > 0 {
				target = l
				return true
			}
		}
		return false
	})
	if err := c.master.PauseLane(target.ID, true); err != nil {
		t.Fatalf("PauseLane(%d) on the master: %v", target.ID, err)
	}
	worker := map[string]*engine.Worker{"w1": w1, "w2": w2}[target.Node]
	paused := 0
	for _, l := range worker.Engine().Snapshot().Lanes {
		if l.Paused {
			paused++
		}
	}
	if paused != 1 {
		t.Errorf("%d lanes paused on %s after pausing lane %d on the master, want 1", paused, target.Node, target.ID)
	}
	if err := c.master.PauseLane(9999, true); err == nil {
		t.Error("PauseLane of an unknown lane: no error")
	}
	if err := c.master.SetMaxLanes(3); err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]*engine.Worker{"w1": w1, "w2": w2} {
		if got := w.Engine().Snapshot().LanesMax; got != 3 {
			t.Errorf("%s lanes.max %d after SetMaxLanes(3) on the master", name, got)
		}
	}
	if _, err := c.master.FlushDNS(""); err != nil {
		t.Errorf("FlushDNS on the master: %v", err)
	}
	// A host paused on the master is paused on every worker, and the master's
	// snapshot says so (its header, ctl status), as one process's would.
	host := target.Hosts[0]
	for _, paused := range []bool{true, false} {
		if err := c.master.PauseHost(host, paused); err != nil {
			t.Fatalf("PauseHost(%s, %v) on the master: %v", host, paused, err)
		}
		if got := slices.Contains(c.master.Snapshot().PausedHosts, host); got != paused {
			t.Errorf("after PauseHost(%s, %v) the master's snapshot lists it paused: %v", host, paused, got)
		}
		for name, w := range map[string]*engine.Worker{"w1": w1, "w2": w2} {
			if got := slices.Contains(w.Engine().Snapshot().PausedHosts, host); got != paused {
				t.Errorf("after PauseHost(%s, %v) on the master, %s has it paused: %v", host, paused, name, got)
			}
		}
	}
	if err := c.master.PauseLane(target.ID, false); err != nil {
		t.Errorf("PauseLane(%d, false) on the master: %v", target.ID, err)
	}
	c.waitDone(2 * time.Minute)
}

// TestAWorkerJoiningLaterGetsTheMastersLanesMax: lanes.max set on the master reaches
// a worker that was not live when it was set (joining later, or declared dead then
// and rejoining): it ran the lanes it had, 16, while the others ran 3.
func TestAWorkerJoiningLaterGetsTheMastersLanesMax(t *testing.T) {
	t.Parallel()
	c := startCluster(t, smallWeb(14, 6))
	w1 := c.worker("w1", "127.0.0.2")
	if err := c.master.SetMaxLanes(3); err != nil {
		t.Fatal(err)
	}
	w2 := c.worker("w2", "127.0.0.3") // the join's reply is applied before StartWorker returns
	for name, w := range map[string]*engine.Worker{"w1": w1, "w2": w2} {
		if got := w.Engine().Snapshot().LanesMax; got != 3 {
			t.Errorf("%s lanes.max %d after SetMaxLanes(3) on the master, want 3", name, got)
		}
	}
	c.waitDone(2 * time.Minute)
}

// TestMalformedMessagesAreCountedNotFatal: garbage on the master's subjects (a join,
// a heartbeat, a result frame, an oversize join) is rejected and counted; the crawl
// goes on to the end.
func TestMalformedMessagesAreCountedNotFatal(t *testing.T) {
	t.Parallel()
	c := startCluster(t, smallWeb(17, 6))
	c.worker("w1", "127.0.0.2")
	conn := c.connect("stranger-with-token")
	nc := conn.NC
	nc.Request("crawl.join", []byte("{not json"), time.Second)
	nc.Request("crawl.join", make([]byte, 2<<20), time.Second)
	nc.Request("crawl.hb.w1", []byte(`{"node":"w1","inc":"x","unknown_field":1}`), time.Second)
	// A guard, not a measure: JetStream's acks took over 5 s on a loaded box.
	ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
	defer cancel()
	for _, data := range [][]byte{{0xff, 0xff, 0xff, 0xff}, []byte("garbage"), {0, 0, 0, 2, '{', '}'}} {
		if _, err := conn.JS.Publish(ctx, "crawl.result.w1", data); err != nil {
			t.Fatal(err)
		}
	}
	enginetest.WaitSnapshot(t, c.master, "the rejects counted", func(view.Snapshot) bool {
		r := c.master.Stats().Cluster.Rejected
		return r["malformed"]+r["invalid"]+r["oversize"] >= 5
	})
	stats := c.waitDone(2 * time.Minute)
	if stats.PagesStored == 0 {
		t.Fatal("nothing stored after the garbage")
	}
	t.Logf("rejected %v; %d pages stored", stats.Cluster.Rejected, stats.PagesStored)
}

// TestSitesAndKeywordShardsAreDealtOverWorkers: seed 003's assignment. Each news site
// is fetched by one worker; a social site is searched by several, each keyword by
// one only; the Nodes rows count what each holds.
func TestSitesAndKeywordShardsAreDealtOverWorkers(t *testing.T) {
	t.Parallel()
	social := map[string]bool{}
	c := startClusterWith(t, enginetest.SandboxConfig(21, 24), 300*time.Millisecond, func(o *config.Options, sb *sandbox.Sandbox) {
		o.Seeds = nil
		for _, s := range sb.Info().Sites {
			site := config.SiteOptions{Name: s.Domain, Kind: config.SiteNews, Entry: s.Entry, Keywords: s.Keywords, Class: s.Class}
			if s.Search != "" {
				site = config.SiteOptions{Name: s.Domain, Kind: config.SiteSocial, Search: s.Search,
					Pages: 1, Keywords: s.Keywords, Class: s.Class}
				social[s.Domain] = true
			}
			o.Sites = append(o.Sites, site)
		}
	})
	sb := c.sb
	if len(social) == 0 {
		t.Skip("this sandbox seed has no social site")
	}
	// The workers join one after another, as they come up on their boxes: each
	// once the one before holds units and is fetching them, so the joins move units
	// that have tasks in hand (a move waits for their reports).
	ws := map[string]string{}
	for i, name := range []string{"w1", "w2", "w3"} {
		a := "127.0.0." + strconv.Itoa(2+i)
		ws[a] = name
		c.worker(name, a)
		enginetest.WaitSnapshot(t, c.master, name+" holds units and tasks", func(s view.Snapshot) bool {
			for _, nd := range s.Nodes {
				if nd.Name == name && nd.Sites+nd.Keywords > 0 && nd.Queue > 0 {
					return true
				}
			}
			return false
		})
	}
	var nodes []view.Node
	enginetest.WaitSnapshot(t, c.master, "sites and keyword shards on all three workers", func(s view.Snapshot) bool {
		nodes = s.Nodes
		n := 0
		for _, nd := range s.Nodes {
			if nd.Sites+nd.Keywords > 0 {
				n++
			}
		}
		return n == 3
	})
	// A part of the crawl is enough to judge the deal.
	enginetest.WaitSnapshot(t, c.master, "300 pages stored", func(s view.Snapshot) bool { return s.Totals.PagesStored >= 300 })
	c.master.Close()
	// Who served each unit, and when: a unit may move between workers (the joins
	// re-deal it; a unit can move more than once), but never be served by two at
	// once: no request of one worker starts before another worker's last request of
	// the unit ended. A request's unit is its URL's as the master dealt it (unitOf:
	// the site, and for a social site's search pages and the posts they list, the
	// keyword too), read back from the store: the URL alone does not tell it (a
	// result page or post found through a later page carries no keyword).
	var all []sandbox.Request
	var urls []string
	for _, r := range sb.Truth().Requests() {
		if ws[r.IP] == "" || r.Kind == "robots" {
			continue
		}
		n, err := frontier.Normalize(r.URL)
		if err != nil {
			t.Fatalf("the sandbox logged an unparsable URL %q: %v", r.URL, err)
		}
		r.URL = n
		all = append(all, r)
		urls = append(urls, n)
	}
	unitOf := map[string]string{} // URL -> unit
	st, err := store.OpenReadOnly(c.opts.DB)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.URLStates(urls)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range rows {
		site := u.Site
		if site == "" {
			site = frontier.Site(u.Host)
		}
		unitOf[u.URL] = site
		if u.Keyword != "" {
			unitOf[u.URL] = site + " · " + u.Keyword
		}
	}
	reqs := map[string][]sandbox.Request{} // unit -> requests
	socialWorkers := map[string]map[string]bool{}
	for _, r := range all {
		unit, ok := unitOf[r.URL]
		if !ok {
			t.Errorf("%s fetched by %s is not in the store", r.URL, ws[r.IP])
			continue
		}
		if site, _, shard := strings.Cut(unit, " · "); shard {
			if socialWorkers[site] == nil {
				socialWorkers[site] = map[string]bool{}
			}
			socialWorkers[site][ws[r.IP]] = true
		}
		reqs[unit] = append(reqs[unit], r)
	}
	// A unit changes hands only when the master moves it: at most once per join
	// after the first (spread moves a unit once) and once per death. More handovers
	// mean two workers took turns on it: both held it at once.
	moves := -1
	for _, ev := range c.master.EventsSince(0, 1000) {
		if strings.Contains(ev.Msg, " joined ") || strings.Contains(ev.Msg, " is dead ") {
			moves++
		}
	}
	for unit, rs := range reqs {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
		last := map[string]sandbox.Request{} // worker -> its request of the unit that ended last
		var hands []string
		for _, r := range rs {
			w := ws[r.IP]
			for other, o := range last {
				if other != w && r.Start.Before(o.End) {
					t.Errorf("%s served by %s (%s %s..%s) and %s (%s %s..) at once", unit, other, o.URL, o.Start.Format("15:04:05.000"),
						o.End.Format("15:04:05.000"), w, r.URL, r.Start.Format("15:04:05.000"))
				}
			}
			if o, ok := last[w]; !ok || r.End.After(o.End) {
				last[w] = r
			}
			if len(hands) == 0 || hands[len(hands)-1] != w {
				hands = append(hands, w)
			}
		}
		if len(hands)-1 > moves {
			t.Errorf("%s changed hands %d times (%v), with %d moves at most: two workers held it at once", unit, len(hands)-1, hands, moves)
		}
	}
	for d, w := range socialWorkers {
		if len(w) < 2 {
			t.Errorf("social site %s searched by %v only; its keyword shards should spread", d, w)
		}
	}
	for _, nd := range nodes {
		if nd.Sites == 0 || nd.Keywords == 0 {
			t.Errorf("worker %s holds %d sites and %d keyword shards; want some of each", nd.Name, nd.Sites, nd.Keywords)
		}
	}
	if t.Failed() { // the joins, deaths and moves the master logged, to tell what moved a unit
		for _, ev := range c.master.EventsSince(0, 1000) {
			if strings.Contains(ev.Msg, "worker") {
				t.Logf("master %s: %s", ev.At.Format("15:04:05.000"), ev.Msg)
			}
		}
	}
	t.Logf("%d units served; nodes %+v", len(reqs), nodes)
}

// TestGlobalPauseAndResumeReachWorkersAtOnce: p on the master pauses every worker and
// a second p resumes them at once, not at their next heartbeat; a worker the operator
// paused on its own stays paused through a crawl-wide resume.
func TestGlobalPauseAndResumeReachWorkersAtOnce(t *testing.T) {
	t.Parallel()
	// Heartbeats 10 minutes apart: a pause or resume that waited for the next one
	// would outlast the waits below (enginetest.Patience), whatever the box's load;
	// judged by that order, not by a second of clock.
	c := startClusterWith(t, enginetest.SandboxConfig(23, 6), 10*time.Minute, nil)
	w1, w2 := c.worker("w1", "127.0.0.2"), c.worker("w2", "127.0.0.3")
	paused := func(w *engine.Worker) bool { return w.Engine().Snapshot().State == view.StatePaused }
	if err := c.master.PauseNode("w2", true); err != nil {
		t.Fatal(err)
	}
	c.master.Pause()
	enginetest.WaitFor(t, "both workers paused (before their next heartbeat)", func() bool { return paused(w1) && paused(w2) })
	c.master.Resume()
	enginetest.WaitFor(t, "w1 running again (before its next heartbeat)", func() bool { return !paused(w1) })
	if !paused(w2) {
		t.Error("w2, paused by the operator on its own, runs again after a crawl-wide resume")
	}
	c.master.PauseNode("w2", false)
	c.master.Close()
}

// On a distributed crawl, the refusals a worker acts on reach the master's
// store, so `crawlconsole show URL` on the master's database says why a URL was
// refused. The sandbox's human gap and its violation window are a day here, so that
// it bans the worker however slowly a loaded box lets it crawl: a ban takes four
// violations on one host within the window, and in the usual window (1 minute of web
// time, 1.2 s at scale 50) a worker whose requests to a host come 0.4 s apart or
// more, one at a time, is never banned (loaded runs went 4 minutes without a
// refusal, with the gap at its usual 40 ms and at an hour alike).
func TestWorkerRefusalsReachTheMastersStore(t *testing.T) {
	t.Parallel()
	cfg := enginetest.SandboxConfig(7, 6)
	cfg.AntiBot.HumanGap, cfg.AntiBot.Window = 24*time.Hour, 24*time.Hour
	c := startClusterWith(t, cfg, 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
		o.HostRate = 0
	})
	w := c.worker("w1", "127.0.0.2")
	// On failure: whether the sandbox banned the worker at all, and what the worker
	// logged (its refusals, a lease cut by late heartbeat replies), to tell a refusal
	// lost on its way from one never made.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		banned, reqs := 0, c.sb.Truth().Requests()
		for _, r := range reqs {
			if r.Banned {
				banned++
			}
		}
		t.Logf("sandbox: %d requests, %d banned; master: %s; worker: %s", len(reqs), banned,
			engine.IdleReport(c.master), engine.IdleReport(w.Engine()))
		for _, ev := range w.Engine().EventsSince(0, 300) {
			if ev.Level >= view.LevelInfo {
				t.Logf("worker: %s %v %s: %s", ev.At.Format("15:04:05.000"), ev.Level, ev.Host, ev.Msg)
			}
		}
	})
	// The master counts a worker's refusals from its heartbeats, but the refusals
	// themselves travel with the worker's next report: wait for one in the store,
	// read while the master runs, not for the count.
	live, err := store.OpenReadOnly(c.opts.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	enginetest.WaitFor(t, "a refusal of the worker's in the master's store", func() bool {
		for _, r := range c.sb.Truth().Requests() {
			if rs, err := live.Refusals(r.URL); r.Banned && err == nil && len(rs) > 0 {
				return true
			}
		}
		return false
	})
	if err := c.master.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenReadOnly(c.opts.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	banned, recorded := 0, 0
	for _, r := range c.sb.Truth().Requests() {
		if !r.Banned {
			continue
		}
		banned++
		rs, err := st.Refusals(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		for _, rf := range rs {
			if rf.Egress == "" || rf.Evidence == "" || rf.Action == "" {
				t.Errorf("refusal of %s lacks its egress, evidence or action: %+v", r.URL, rf)
			}
		}
		if len(rs) > 0 {
			recorded++
		}
	}
	if banned == 0 || recorded == 0 {
		t.Fatalf("%d refused requests in the sandbox, %d of them with a refusal in the master's store; want some", banned, recorded)
	}
}

// A worker signs each page from the parse that found its links, and the master stores
// that signature without parsing the body again (M4): every page's stored SimHash is
// the one its stored body gives.
func TestMasterStoresTheWorkersSignature(t *testing.T) {
	t.Parallel()
	c := startCluster(t, smallWeb(11, 6))
	c.worker("w1", "127.0.0.2")
	c.waitDone(2 * time.Minute)
	st, err := store.OpenReadOnly(c.opts.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	urls, err := st.PageURLs()
	if err != nil {
		t.Fatal(err)
	}
	signed := 0
	for _, u := range urls {
		p, err := st.Page(u)
		if err != nil {
			t.Fatal(err)
		}
		sig, _, ok := page.Sign(p.Body, p.ContentType)
		if !ok {
			continue
		}
		signed++
		if p.SimHash != sig.SimHash {
			t.Errorf("%s stored with SimHash %016x, its body gives %016x", u, p.SimHash, sig.SimHash)
		}
	}
	if signed < 20 {
		t.Fatalf("only %d signed pages of %d: too few to judge", signed, len(urls))
	}
}

// logWarnings logs, when t failed, the warnings and errors of e (a master: a worker
// declared dead, a batch dropped), what tells a crawl's own fault from a late box.
func logWarnings(t *testing.T, name string, e *engine.Engine) {
	if !t.Failed() {
		return
	}
	for _, ev := range e.EventsSince(0, 1000) {
		if ev.Level >= view.LevelWarn {
			t.Logf("%s: %s %s", name, ev.At.Format("15:04:05.000"), ev.Msg)
		}
	}
}

// joinLine waits for the master's log line of worker name's first join and
// returns it.
func (c *testCluster) joinLine(t *testing.T, name string) string {
	t.Helper()
	var line string
	enginetest.WaitFor(t, "the master's log line for "+name+"'s join", func() bool {
		for _, ev := range c.master.EventsSince(0, 0) {
			if strings.HasPrefix(ev.Msg, "worker "+name+" joined") {
				line = ev.Msg
				return true
			}
		}
		return false
	})
	return line
}
