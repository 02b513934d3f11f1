package main

// Benchmark "dns": the crawl-level figures of the DNS prefetch cache (M5).
//
//	go run ./bench dns [-hosts 10000] [-scale 20] [-lanes 96] [-workers N] [-only cc,go,lib]
//
// One sandbox web (a fresh instance per run, same seed: the same names, TTLs and
// links) with -hosts virtual hosts, a DNS server answering in 50–200 ms (real time),
// and failing names worth -fail of the hosts, split like the sandbox's defaults (half
// NXDOMAIN, a quarter SERVFAIL, a quarter no answer at all), linked from their sites'
// entry pages. Anti-bot rule, faults and robots.txt Crawl-delay are off; everything
// else is how the demo crawls the sandbox (cli.DemoOptions: four bind egresses, lane
// pauses and host cap scaled like the web's clock, DNS.MinTTL 1 s).
//
// The crawl, the same for all three runs: every site's entry page as a seed, links
// followed to depth 1, no top stories on entry pages. That touches every host: the
// entry (www), the first listing page of every section host, and every dead name the
// entry links to — each live host gets robots.txt and one page, over one keep-alive
// connection per egress, so almost every dial is a new host: the hardest case for DNS.
// The crawl runs to completion. Only the resolver behind every dial changes:
//
//  1. crawlconsole's DNS prefetch cache (the engine's default);
//  2. Go's resolver with no cache: net.Resolver{PreferGo: true} dialling the sandbox's
//     DNS server, A and AAAA ("ip"), so every dial resolves;
//  3. rs/dnscache in front of that same resolver, refreshed as its README says:
//     Refresh(true) on a ticker, the README's 5 minutes scaled like the web's TTLs.
//
// Fetch-path DNS wait is per LookupAddrs call, i.e. per dial: a request on a kept-alive
// connection does not resolve, and is not counted as a lookup (it is the real fetch
// path; the per-request share is printed too). crawlconsole's waits come from its own
// histogram (a cache answer is recorded as exactly 0); the baselines are wrapped in a
// timing decorator, and an answer under 1 ms counts as no wait (no upstream exchange
// takes less than the sandbox's 50 ms).
//
// Warm-up: at Start every seed host is queued at once and the first lanes.max lanes
// open at once, before any answer can be known: their first lookups wait whatever the
// resolver (the cold start). Warm-up ends at the first DNS-pane view (the engine
// refreshes it about once a second) computed after the sandbox's DNS server has been
// asked about every seed host and could have answered (lat-max later), i.e. the seed
// burst is resolved; the baselines use the same span from Start. zero_wait_share is
// per lookup after warm-up; wait_p99_ms is over the whole run, cold start included,
// as the engine reports it (so it is < 1 ms only while the cold start's lanes.max
// waits are under 1% of the lookups).
//
// Upstream queries are counted at the sandbox's DNS server (messages: an A and an AAAA
// per resolution) and, for crawlconsole, by the cache (resolutions, A+AAAA as one).
// upstream_queries is the server's count in resolutions (messages / 2), the unit of
// upstream_bound: 1.1 × the queries strictly needed, per host, from the crawl's store
// (first queued = the earliest discovered_at of the host's URLs, last needed = the
// latest updated_at) and each name's TTL as the DNS server serves it (read from a
// zero-latency twin of the sandbox): one per TTL period for live hosts and NXDOMAIN
// names, one per backoff step of the cache's retry policy (at its shortest jitter) for
// SERVFAIL and silent names.

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // the crawl's store, read back for per-host queue spans

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/ui/cli"
)

func init() { register("dns", runDNSBench) }

// Resolver under test, as named in the table and by -only.
const (
	dnsCC  = "cc"
	dnsGo  = "go"
	dnsLib = "lib"
)

var dnsResolverNames = map[string]string{
	dnsCC:  "crawlconsole cache",
	dnsGo:  "Go resolver, no cache",
	dnsLib: "rs/dnscache",
}

// dnsBenchFlags are the benchmark's knobs.
type dnsBenchFlags struct {
	hosts          int
	scale          float64
	lanes          int
	fail           float64
	latMin, latMax time.Duration
	workers        int
	delayMin       time.Duration
	delayMax       time.Duration
	only           string
	runTimeout     time.Duration
	progress       time.Duration
}

func runDNSBench(args []string) (map[string]any, error) {
	var f dnsBenchFlags
	fs := flag.NewFlagSet("dns", flag.ContinueOnError)
	fs.IntVar(&f.hosts, "hosts", 10000, "sandbox virtual hosts (failing names come on top)")
	fs.Float64Var(&f.scale, "scale", 20, "sandbox time scale (TTLs, lane pauses and host cap shrink by it, as in the demo)")
	fs.IntVar(&f.lanes, "lanes", 96, "lanes.max")
	fs.Float64Var(&f.fail, "fail", 0.05, "failing names as a share of hosts (1/2 NXDOMAIN, 1/4 SERVFAIL, 1/4 silent)")
	fs.DurationVar(&f.latMin, "lat-min", 50*time.Millisecond, "DNS answer latency, lower bound")
	fs.DurationVar(&f.latMax, "lat-max", 200*time.Millisecond, "DNS answer latency, upper bound")
	fs.IntVar(&f.workers, "workers", 0, "prefetch worker cap (engine dns.workers; 0 = default)")
	fs.DurationVar(&f.delayMin, "delay-min", 0, "lane pause lower bound (0 = the demo's, scaled human gap x1.25)")
	fs.DurationVar(&f.delayMax, "delay-max", 0, "lane pause upper bound (0 = the demo's, scaled human gap x3)")
	fs.StringVar(&f.only, "only", "cc,go,lib", "resolvers to run, comma-separated: cc, go, lib")
	fs.DurationVar(&f.runTimeout, "run-timeout", 5*time.Minute, "give up on a crawl after this long")
	fs.DurationVar(&f.progress, "progress", 10*time.Second, "print crawl progress this often (0 = never)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.hosts < 10 || f.lanes < 1 || f.scale <= 0 || f.fail < 0 || f.fail > 0.5 {
		return nil, errors.New("need -hosts >= 10, -lanes >= 1, -scale > 0, 0 <= -fail <= 0.5")
	}
	var kinds []string
	for _, k := range strings.Split(f.only, ",") {
		k = strings.TrimSpace(k)
		if dnsResolverNames[k] == "" {
			return nil, fmt.Errorf("-only: unknown resolver %q (want cc, go, lib)", k)
		}
		kinds = append(kinds, k)
	}
	cfg := dnsSandboxConfig(f)

	fmt.Printf("dns: %d hosts + %d failing names (%.1f%% NXDOMAIN, %.2f%% SERVFAIL, %.2f%% silent), DNS latency %v..%v, scale %g, lanes %d, GOMAXPROCS %d, load average %s\n",
		f.hosts, len(sandbox.NewWeb(cfg).DeadHosts()), 100*cfg.DNS.NXDomainShare, 100*cfg.DNS.ServFailShare, 100*cfg.DNS.TimeoutShare,
		f.latMin, f.latMax, f.scale, f.lanes, runtime.GOMAXPROCS(0), loadAvg(1))
	census, err := dnsTakeCensus(cfg)
	if err != nil {
		return nil, fmt.Errorf("TTL census: %w", err)
	}
	fmt.Printf("TTL census (zero-latency twin): %s; NXDOMAIN negative TTL %v\n", census.summary(), census.negTTL)

	runs := map[string]*dnsRun{}
	var warmup time.Duration
	for _, k := range kinds {
		fmt.Printf("crawling with %s ...\n", dnsResolverNames[k])
		r, err := dnsCrawl(k, cfg, f, warmup)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dnsResolverNames[k], err)
		}
		if k == dnsCC {
			warmup = r.warmup
		}
		runs[k] = r
		fmt.Printf("  %s\n", r.line())
	}
	return dnsReport(runs, kinds, census, f.lanes), nil
}

// dnsSandboxConfig is the benchmark's web: M5's weather (latency, TTLs, failing
// names), nothing else in the way.
func dnsSandboxConfig(f dnsBenchFlags) sandbox.Config {
	cfg := sandbox.DefaultConfig()
	cfg.Seed = 1
	cfg.Hosts = f.hosts
	cfg.Scale = f.scale
	cfg.AntiBot.Enabled = false
	cfg.SetFaultShare(0)
	cfg.Robots.CrawlDelayShare = 0
	cfg.Layout.TopStories = 0
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = f.latMin, f.latMax
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = f.fail/2, f.fail/4, f.fail/4
	return cfg
}

// dnsRun is what one crawl showed.
type dnsRun struct {
	kind     string
	wall     time.Duration    // Start to the crawl running dry
	warmup   time.Duration    // from Start (crawlconsole: measured; baselines: crawlconsole's)
	pages    int64            // responses the engine received
	errKinds map[string]int64 // failed URLs by kind (robots.txt disallows left out)
	urls     dnsURLCounts     // URLs in the store by outcome: the same for every run
	udpDrops int64            // UDP datagrams the kernel dropped for want of buffer, host-wide, during the run

	requests, requestsAfter int // sandbox requests, robots.txt included; after warm-up

	lookups, waited           int64 // LookupAddrs calls; those that waited for upstream
	lookupsAfter, waitedAfter int64
	p50, p99, p99After        float64 // ms

	resolutions int64 // upstream resolutions by the resolver's own count
	cacheMsgs   int64 // crawlconsole: messages the cache says it sent
	server      int   // messages the sandbox's DNS server received
	perName     map[string]int
	spans       map[string]dnsSpan // per host: when it had queued URLs
	maxBacklog  int
}

func (r *dnsRun) zeroShare() float64      { return 1 - dnsRatio(r.waited, r.lookups) }
func (r *dnsRun) zeroShareAfter() float64 { return 1 - dnsRatio(r.waitedAfter, r.lookupsAfter) }

// zeroShareRequests is the share of sandbox requests after warm-up whose dial did not
// wait (keep-alive requests resolve nothing); a lookup that waited and then failed
// made no request but still counts against it, so it errs low.
func (r *dnsRun) zeroShareRequests() float64 {
	return max(0, 1-dnsRatio(r.waitedAfter, int64(r.requestsAfter)))
}

func (r *dnsRun) line() string {
	return fmt.Sprintf("%.1f s: %d URLs (%d done, %d failed %v), %d sandbox requests, %d lookups (%d waited), %d DNS messages at the server, %d UDP datagrams dropped (host-wide)",
		r.wall.Seconds(), r.urls.all, r.urls.done, r.urls.failed, r.errKinds, r.requests, r.lookups, r.waited, r.server, r.udpDrops)
}

func dnsRatio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// dnsSpan is when a host had URLs in the crawl's queue.
type dnsSpan struct{ first, last time.Time }

// dnsCrawl crawls a fresh sandbox once with the given resolver. warmup is the span
// the baselines treat as warm-up (crawlconsole measures its own).
func dnsCrawl(kind string, cfg sandbox.Config, f dnsBenchFlags, warmup time.Duration) (*dnsRun, error) {
	sb, err := sandbox.Start(cfg)
	if err != nil {
		return nil, err
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "bench-dns-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "crawl.db")

	o := cli.DemoOptions(sb, db)
	// A bounded discovery crawl: the sites' entries as plain seeds; no M3 sites
	// (keyword filters, searches, rounds) and no M2 revisits, which would make the
	// crawl depend on time rather than on the link graph.
	o.Sites, o.Keywords, o.Seeds = nil, nil, nil
	for _, s := range sb.Info().Sites {
		o.Seeds = append(o.Seeds, s.Entry)
	}
	o.Revisit.Enabled = false
	o.Lanes.Max = f.lanes
	if f.delayMin > 0 || f.delayMax > 0 {
		o.Lanes.DelayMin, o.Lanes.DelayMax = f.delayMin, max(f.delayMin, f.delayMax)
	}
	o.Scope.MaxDepth = 1
	if f.workers > 0 {
		o.DNS.Workers = f.workers
	}
	var base *dnsBaseline
	if kind != dnsCC {
		base = newDNSBaseline(kind, sb.DNSAddr(), cfg.Scale)
		defer base.stop()
		o.Resolver = base.timed
	}
	drops0 := dnsUDPDrops()
	e, err := engine.New(o)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	r := &dnsRun{kind: kind}
	start := time.Now()
	if base != nil {
		base.timed.start = start
	}
	if err := e.Start(); err != nil {
		return nil, err
	}
	warmView, err := dnsWatch(e, sb, cfg, f, kind, start, r)
	if err != nil {
		return nil, err
	}
	doneAt := time.Now()
	r.wall = doneAt.Sub(start)
	st := e.Stats()
	r.pages = st.PagesFetched
	r.errKinds = map[string]int64{}
	for k, n := range st.Errors {
		if k != fetch.KindRobots {
			r.errKinds[k] = n
		}
	}

	if kind == dnsCC {
		final, err := dnsFreshView(e, doneAt)
		if err != nil {
			return nil, err
		}
		s := final.Stats
		r.lookups, r.waited = s.Lookups, s.Misses
		r.p50, r.p99 = s.WaitP50Ms, s.WaitP99Ms
		r.resolutions, r.cacheMsgs = s.UpstreamQueries, s.UpstreamMessages
		if warmView == nil { // never warm: all of the crawl counts as warm-up
			warmView = &final
		}
		r.warmup = warmView.At.Sub(start)
		w := warmView.Stats
		r.lookupsAfter, r.waitedAfter = s.Lookups-w.Lookups, s.Misses-w.Misses
		r.p99After = dnsHistQuantile(dnsHistDiff(s.WaitHistogram, w.WaitHistogram), 0.99)
	} else {
		r.warmup = warmup
		var all, after []time.Duration
		for _, x := range base.timed.samples() {
			all = append(all, x.wait)
			if x.at >= warmup {
				after = append(after, x.wait)
			}
		}
		r.lookups, r.lookupsAfter = int64(len(all)), int64(len(after))
		r.waited, r.waitedAfter = dnsCountWaits(all), dnsCountWaits(after)
		r.p50, r.p99 = dnsQuantileMs(all, 0.5), dnsQuantileMs(all, 0.99)
		r.p99After = dnsQuantileMs(after, 0.99)
		r.resolutions, r.cacheMsgs = int64(len(all)), -1
		if base.upstream != nil {
			r.resolutions = base.upstream.n.Load()
		}
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	for _, q := range sb.Truth().Requests() {
		r.requests++
		if q.Start.Sub(start) >= r.warmup {
			r.requestsAfter++
		}
	}
	r.server = sb.Truth().DNSTotal()
	r.perName = sb.Truth().DNSQueries()
	r.udpDrops = dnsUDPDrops() - drops0
	sb.Close()
	if r.spans, r.urls, err = dnsQueueSpans(db); err != nil {
		return nil, fmt.Errorf("reading queue spans from the store: %w", err)
	}
	return r, nil
}

// dnsWatch waits for the crawl to run dry, printing progress, and for crawlconsole
// returns the DNS-pane view that ends warm-up: the first one computed after every seed
// host has been asked upstream and could have been answered (lat-max later).
func dnsWatch(e *engine.Engine, sb *sandbox.Sandbox, cfg sandbox.Config, f dnsBenchFlags, kind string, start time.Time, r *dnsRun) (*view.DNSView, error) {
	var seedHosts []string
	for _, s := range sb.Info().Sites {
		seedHosts = append(seedHosts, s.Hosts[0])
	}
	var seedsAsked time.Time
	var warm *view.DNSView
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	lastProgress := start
	deadline := time.After(f.runTimeout)
	for {
		select {
		case <-e.Done():
			return warm, nil
		case <-deadline:
			return nil, fmt.Errorf("crawl not done after %v", f.runTimeout)
		case <-tick.C:
		}
		if f.progress > 0 && time.Since(lastProgress) >= f.progress {
			lastProgress = time.Now()
			sn := e.Snapshot()
			fmt.Printf("  %5.1f s: %d responses, %d queued, %d lanes, %d URLs done\n", time.Since(start).Seconds(),
				sn.Totals.PagesFetched, sn.QueueDepth, sn.LanesBusy, sn.Totals.URLsDone)
		}
		if kind != dnsCC || warm != nil {
			continue
		}
		v := e.Snapshot().DNS
		if v == nil {
			continue
		}
		r.maxBacklog = max(r.maxBacklog, v.Backlog)
		if seedsAsked.IsZero() && dnsAskedAll(sb, seedHosts) {
			seedsAsked = time.Now()
		}
		if !seedsAsked.IsZero() && v.At.After(seedsAsked.Add(cfg.DNS.LatencyMax)) {
			cp := *v
			warm = &cp
		}
	}
}

// dnsUDPDrops reads the kernel's count of UDP datagrams dropped because a socket's
// receive buffer was full (Linux /proc/net/snmp RcvbufErrors; -1 elsewhere): a burst
// of queries can overflow the sandbox DNS server's socket, and a lost query costs a
// resend.
func dnsUDPDrops() int64 {
	data, err := os.ReadFile("/proc/net/snmp")
	if err != nil {
		return -1
	}
	var head []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "Udp:" {
			continue
		}
		if head == nil {
			head = f
			continue
		}
		for i, name := range head {
			if name == "RcvbufErrors" && i < len(f) {
				var n int64
				fmt.Sscan(f[i], &n)
				return n
			}
		}
	}
	return -1
}

// dnsAskedAll reports whether the sandbox's DNS server has been asked about every host.
func dnsAskedAll(sb *sandbox.Sandbox, hosts []string) bool {
	asked := sb.Truth().DNSQueries()
	for _, h := range hosts {
		if asked[h] == 0 {
			return false
		}
	}
	return true
}

// dnsFreshView waits for a DNS-pane view computed after t (the engine refreshes it at
// most once a second).
func dnsFreshView(e *engine.Engine, t time.Time) (view.DNSView, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		if v := e.Snapshot().DNS; v != nil && !v.At.Before(t) {
			return *v, nil
		}
		if time.Now().After(deadline) {
			return view.DNSView{}, errors.New("no fresh DNS view within 5 s of the crawl's end")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dnsQueueSpans reads, per host, the earliest discovered_at and latest updated_at of
// its URLs from the crawl's store — from when it was first queued to when its last URL
// was done — and counts the URLs by outcome, to check the runs crawled the same thing.
func dnsQueueSpans(path string) (map[string]dnsSpan, dnsURLCounts, error) {
	var n dnsURLCounts
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, n, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT host, MIN(discovered_at), MAX(updated_at), COUNT(*),
		SUM(state = 2), SUM(state = 3) FROM urls GROUP BY host`)
	if err != nil {
		return nil, n, err
	}
	defer rows.Close()
	out := map[string]dnsSpan{}
	for rows.Next() {
		var host string
		var first, last int64
		var all, done, failed int
		if err := rows.Scan(&host, &first, &last, &all, &done, &failed); err != nil {
			return nil, n, err
		}
		out[strings.ToLower(host)] = dnsSpan{time.Unix(0, first), time.Unix(0, max(first, last))}
		n.all, n.done, n.failed = n.all+all, n.done+done, n.failed+failed
	}
	return out, n, rows.Err()
}

// dnsURLCounts are a crawl's URLs by outcome.
type dnsURLCounts struct{ all, done, failed int }

// dnsRound rounds x to digits decimals for the JSON line.
func dnsRound(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
