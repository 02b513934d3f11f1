package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
)

// demoBinds are the loopback source addresses the demo crawls from directly; the
// sandbox's four proxies (HTTP and SOCKS5, with and without a password) add four
// more egresses, each leaving from its own 127.0.0.x: eight client IPs as far as the
// sandbox's anti-bot rule is concerned.
var demoBinds = []string{"bind:127.0.0.2", "bind:127.0.0.3", "bind:127.0.0.4", "bind:127.0.0.5"}

// runDemo implements `crawlconsole demo`: the sandbox web in-process, a crawl of it
// from four loopback addresses, and the console (or progress lines with --headless).
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	headlessFlag := fs.Bool("headless", false, "no console: print progress lines; ends when the crawl runs dry")
	duration := fs.Duration("duration", 0, "stop after `D` (e.g. 60s); 0 = until quit (headless: until done)")
	db := fs.String("db", "", "keep the crawl in the SQLite store at `PATH` (default: a temporary file)")
	statsJSON := fs.String("stats-json", "", "write the final stats object to `FILE`")
	theme := fs.String("theme", "dark", "console theme `NAME`: dark, light, high-contrast, mono")
	mouse := fs.Bool("mouse", false, "enable mouse in the console")
	seed := fs.Int64("seed", 1, "sandbox web seed `N`")
	hosts := fs.Int("hosts", 60, "sandbox virtual hosts `N`")
	scale := fs.Float64("scale", 20, "sandbox time scale `F`: web time runs F times faster")
	lanesN := fs.Int("lanes", 24, "most lanes fetching at once (`N`; per worker with --workers)")
	operator := fs.String("operator", "", "serve live steering (crawlconsole ctl) and console --attach on loopback `ADDR` (with --workers: the master's)")
	var mf metricsFlags
	mf.add(fs)
	workers := fs.Int("workers", 0, "run a master and `N` workers in this process (M4), each worker with two loopback addresses of its own")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: crawlconsole demo [flags]\n\nCrawls the built-in sandbox web (loopback only) with the console.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := clikit.Parse(fs, args, stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "crawlconsole demo: unexpected argument %q (the demo crawls the sandbox; use crawl for URLs)\n", fs.Arg(0))
		return ExitUsage
	}
	if err := mf.check(); err != nil {
		fmt.Fprintf(stderr, "crawlconsole demo: %v\n", err)
		return ExitUsage
	}
	if *duration < 0 {
		fmt.Fprintf(stderr, "crawlconsole demo: --duration must be >= 0 (0 = until quit), got %v\n", *duration)
		return ExitUsage
	}
	if err := checkTheme(*theme); err != nil {
		fmt.Fprintf(stderr, "crawlconsole demo: %v\n", err)
		return ExitUsage
	}
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = *seed, *hosts, *scale
	// The web's clock runs --scale× ahead of the operator's: its pages, feeds and
	// sitemaps are dated in real time, so a page is dated when it was published as the
	// operator saw it, never after its fetch, and the Sites pane's publish-to-store
	// delay and /metrics' age bands read the time the crawl took to find it.
	cfg.RealDates = true
	// A demo resumed on its store (--db) serves the web on the port its URLs name:
	// on a new port every URL it left queued would fail as a dead connection.
	last := lastDemoAddr(*db)
	if last != "" {
		cfg.HTTPAddr = last
	}
	sb, err := sandbox.Start(cfg)
	if err != nil && last != "" {
		fmt.Fprintf(stderr, "crawlconsole demo: the sandbox web cannot take %s again, the port the URLs in %s name (%v): it starts on another port, "+
			"and the URLs left from the last run wait as robots_unreachable; to go on with them, stop what holds %s and start the demo again with --db %s\n",
			last, *db, err, last, *db)
		cfg.HTTPAddr = sandbox.DefaultConfig().HTTPAddr
		sb, err = sandbox.Start(cfg)
	}
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole demo: sandbox: %v\n", err)
		return ExitUsage
	}
	defer sb.Close()
	proxies, err := sandbox.StartProxies(sandbox.ProxyConfig{Resolve: sandboxResolve})
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole demo: sandbox proxies: %v\n", err)
		return 1
	}
	defer proxies.Close()

	path := *db
	if path == "" {
		dir, err := os.MkdirTemp("", "crawlconsole-demo-")
		if err != nil {
			fmt.Fprintf(stderr, "crawlconsole demo: %v\n", err)
			return 1
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "demo.db")
	}
	opts := DemoOptions(sb, path)
	opts.Egress = append(opts.Egress, proxies.Specs()...)
	opts.Lanes.Max = *lanesN
	var eng *engine.Engine
	started := false
	if *workers > 0 {
		if *workers > 60 {
			fmt.Fprintf(stderr, "crawlconsole demo: --workers %d: at most 60 (each takes two 127.0.0.x addresses)\n", *workers)
			return ExitUsage
		}
		// The master's account table holds the sandbox's proxies and grants them to
		// workers (per_node); each worker also leaves from two addresses of its own.
		opts.Egress = proxies.Specs()
		opts.Rotation.PerNode = 2
		lc, err := StartLocalCluster(opts, *workers, func(i int) []string {
			// After the sandbox proxies' sources (127.0.0.11 and up).
			return []string{fmt.Sprintf("127.0.0.%d", 20+2*i), fmt.Sprintf("127.0.0.%d", 21+2*i)}
		}, nil, time.Second)
		if err != nil {
			fmt.Fprintf(stderr, "crawlconsole demo: %v\n", err)
			return ExitUsage
		}
		defer lc.Close()
		eng, started = lc.Master, true
	} else {
		var err error
		if eng, err = engine.New(opts); err != nil {
			fmt.Fprintf(stderr, "crawlconsole demo: %v\n", err)
			return ExitUsage
		}
	}
	if *operator != "" {
		// With --workers, the port serves the in-process master (the cluster's own NATS
		// server has a throwaway credential and a random port): ctl and console
		// --attach reach it as they reach a one-box demo's, with DB.token.
		stop, err := operatorPort(*operator, path, eng, stderr, "demo")
		if err != nil {
			fmt.Fprintf(stderr, "crawlconsole demo: %v\n", err)
			if !started { // a local cluster's master is closed with the cluster
				eng.Close()
			}
			return ExitUsage
		}
		defer stop()
	}
	rc := runConfig{started: started, headless: *headlessFlag, duration: *duration, untilIdle: *headlessFlag && *duration == 0,
		statsJSON: *statsJSON, theme: *theme, mouse: *mouse, title: "demo · sandbox web", metrics: mf, db: *db, // a temporary store is gone after the run: nothing to go on from
		extra: func(m map[string]any) { m["sandbox"] = truthSummary(sb) }}
	go proxyWeather(ctx, proxies, *scale)
	return run(ctx, eng, rc, stdout, stderr)
}

// lastDemoAddr is the loopback address (127.0.0.1:port) of the sandbox web a demo
// crawled into the store at path, read from a URL it left queued or deferred; ""
// for a new store, or one with nothing left to fetch.
func lastDemoAddr(path string) string {
	if path == "" {
		return ""
	}
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	st, err := store.OpenReadOnly(path)
	if err != nil {
		return "" // the engine's open says what is wrong with it
	}
	defer st.Close()
	left, err := st.Unfinished(1)
	if err == nil && len(left) == 0 { // only deferred URLs left: they name it too
		left, err = st.DueDeferred(time.Now().AddDate(100, 0, 0), 1)
	}
	if err != nil || len(left) == 0 {
		return ""
	}
	u, err := url.Parse(left[0].URL)
	if err != nil || u.Port() == "" {
		return ""
	}
	return net.JoinHostPort("127.0.0.1", u.Port())
}

// proxyWeather takes one sandbox proxy down for a while, now and then, so the demo
// shows egress rotation at work (M3): the proxy fault cools that egress down, lanes
// move to the others, and it comes back.
func proxyWeather(ctx context.Context, p *sandbox.Proxies, scale float64) {
	list := p.List()
	if len(list) == 0 {
		return
	}
	t := time.NewTicker(20 * time.Second)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		victim := list[i%len(list)]
		victim.SetFault(sandbox.ProxyDown)
		select {
		case <-ctx.Done():
			return
		case <-time.After(8 * time.Second):
		}
		victim.SetFault(sandbox.ProxyHealthy)
	}
}

// sandboxResolve points the sandbox proxies at the sandbox web: every name the
// crawl sends them is served by the sandbox on 127.0.0.1.
func sandboxResolve(_ context.Context, _ string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// DemoOptions are the crawl settings the demo uses against a running sandbox: its
// DNS server, loopback allowed, four bind egresses, and lane pauses and a host cap
// scaled like the sandbox's clock (human gap x1.25..x3; 1 request per web second;
// the revisit clock).
func DemoOptions(sb *sandbox.Sandbox, db string) config.Options {
	cfg := sb.Config()
	scale := cfg.Scale
	gap := time.Duration(float64(cfg.AntiBot.HumanGap) / scale)
	o := config.DefaultOptions()
	// M3: the sandbox's news sites are crawled from their entry and filtered by their
	// keywords; its social sites are searched for each keyword, as many result pages
	// as the sandbox serves.
	for _, s := range sb.Info().Sites {
		site := config.SiteOptions{Name: s.Domain, Kind: config.SiteNews, Entry: s.Entry, Keywords: s.Keywords, Class: s.Class}
		if s.Search != "" {
			site = config.SiteOptions{Name: s.Domain, Kind: config.SiteSocial, Search: s.Search,
				Pages: cfg.Search.PagesPerKeyword, Keywords: s.Keywords, Class: s.Class}
		}
		o.Sites = append(o.Sites, site)
	}
	o.Rounds.Every = time.Duration(float64(config.DefaultRoundEvery) / scale)
	o.DB = db
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Egress = demoBinds
	o.Rotation.PerNode = 0 // all four at once: lanes are per address (M1)
	// The rotation's default durations, on the sandbox's clock.
	o.Rotation.DisableFor = time.Duration(float64(o.Rotation.DisableFor) / scale)
	o.Rotation.PairBanFor = time.Duration(float64(o.Rotation.PairBanFor) / scale)
	o.Lanes.DelayMin, o.Lanes.DelayMax = gap*5/4, gap*3
	o.HostRate = scale
	o.Fetch.Timeout = 5 * time.Second
	o.Fetch.ConnectTimeout = 2 * time.Second
	o.Fetch.RetryBackoff = 200 * time.Millisecond
	o.Fetch.RefusalBackoff = time.Duration(float64(30*time.Second) / scale)
	o.DNS.MinTTL = time.Second // the sandbox's TTLs are scaled too: honour them
	o.DNS.MaxTTL = time.Duration(float64(6*time.Hour) / scale)
	o.Revisit = o.Revisit.Scaled(scale)       // M2: initial delay, scheduler period, class windows
	o.Politeness = o.Politeness.Scaled(scale) // back-off and latency caps on the sandbox's clock
	o.Etiquette = o.Etiquette.Scaled(scale)   // an unreachable robots.txt's retry too
	return o
}

// truthSummary is what the sandbox saw, for the demo's stats object.
func truthSummary(sb *sandbox.Sandbox) map[string]any {
	t := sb.Truth()
	reqs := t.Requests()
	violations := 0
	for _, r := range reqs {
		if r.Violation {
			violations++
		}
	}
	return map[string]any{
		"requests":          len(reqs),
		"bans":              len(t.Bans()),
		"violations":        violations,
		"robots_violations": len(t.RobotsViolations()),
		"dns_queries":       t.DNSTotal(),
	}
}
