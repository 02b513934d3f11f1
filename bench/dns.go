package main

// Benchmark "dns": the crawl-level figures of the DNS prefetch cache (M5, issue 5).
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
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/mattn/go-sqlite3" // the crawl's store, read back for per-host queue spans
	"github.com/miekg/dns"
	rsdns "github.com/rs/dnscache"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/cli"
	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/sandbox"
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
		f.latMin, f.latMax, f.scale, f.lanes, runtime.GOMAXPROCS(0), sandboxLoadAverage())
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

// dnsCensus is what the sandbox's DNS server says about each name: the TTL of a live
// host's A record, how each dead name fails, and the RFC 2308 TTL of NXDOMAIN.
type dnsCensus struct {
	ttl    map[string]time.Duration // live hosts
	dead   map[string]string        // dead names: "nxdomain", "servfail", "timeout"
	negTTL time.Duration
}

func (c dnsCensus) summary() string {
	by := map[time.Duration]int{}
	for _, t := range c.ttl {
		by[t]++
	}
	keys := make([]time.Duration, 0, len(by))
	for t := range by {
		keys = append(keys, t)
	}
	slices.Sort(keys)
	var parts []string
	for _, t := range keys {
		parts = append(parts, fmt.Sprintf("%d hosts with TTL %v", by[t], t))
	}
	return strings.Join(parts, ", ")
}

// dnsTakeCensus asks a zero-latency twin of the sandbox (same seed and scale, hence the
// same names and TTLs) for every live host's A record and one NXDOMAIN name's SOA.
func dnsTakeCensus(cfg sandbox.Config) (dnsCensus, error) {
	twin := cfg
	twin.DNS.LatencyMin, twin.DNS.LatencyMax = 0, 0
	sb, err := sandbox.Start(twin)
	if err != nil {
		return dnsCensus{}, err
	}
	defer sb.Close()
	c := dnsCensus{ttl: map[string]time.Duration{}, dead: sb.Web().DeadHosts()}
	var hosts []string
	for _, s := range sb.Info().Sites {
		hosts = append(hosts, s.Hosts...)
	}
	var nx string
	for name, kind := range c.dead {
		if kind == "nxdomain" {
			nx = name
			break
		}
	}
	client := &dns.Client{Net: "udp", Timeout: 2 * time.Second}
	ask := func(name string) (*dns.Msg, error) {
		m := new(dns.Msg)
		m.SetQuestion(dns.Fqdn(name), dns.TypeA)
		var lastErr error
		for try := 0; try < 3; try++ {
			r, _, err := client.Exchange(m, sb.DNSAddr())
			if err == nil {
				return r, nil
			}
			lastErr = err
		}
		return nil, lastErr
	}
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		next  atomic.Int64
	)
	for w := 0; w < 16; w++ {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(hosts); i = int(next.Add(1)) - 1 {
				r, err := ask(hosts[i])
				mu.Lock()
				switch {
				case err != nil:
					first = dnsFirstErr(first, fmt.Errorf("%s: %w", hosts[i], err))
				case len(r.Answer) == 0:
					first = dnsFirstErr(first, fmt.Errorf("%s: no A record", hosts[i]))
				default:
					c.ttl[hosts[i]] = time.Duration(r.Answer[0].Header().Ttl) * time.Second
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return c, first
	}
	if nx != "" {
		r, err := ask(nx)
		if err != nil {
			return c, err
		}
		for _, rr := range r.Ns {
			if soa, ok := rr.(*dns.SOA); ok {
				c.negTTL = time.Duration(min(soa.Hdr.Ttl, soa.Minttl)) * time.Second
			}
		}
		if r.Rcode != dns.RcodeNameError || c.negTTL == 0 {
			return c, fmt.Errorf("%s: want NXDOMAIN with an SOA, got rcode %d", nx, r.Rcode)
		}
	}
	return c, nil
}

func dnsFirstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
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

// dnsBaseline is a baseline resolver plugged into the engine: timed on the fetch
// path, with what it asked upstream by its own count.
type dnsBaseline struct {
	timed    *dnsTimedResolver
	upstream *dnsCountingUpstream // rs/dnscache's upstream; nil for Go's resolver
	stop     func()               // ends rs/dnscache's refresh loop
}

func newDNSBaseline(kind, dnsAddr string, scale float64) *dnsBaseline {
	b := &dnsBaseline{stop: func() {}}
	if kind == dnsGo {
		b.timed = &dnsTimedResolver{inner: dnsGoResolver{dnsSandboxResolver(dnsAddr)}}
		return b
	}
	b.upstream = &dnsCountingUpstream{r: dnsSandboxResolver(dnsAddr)}
	lib := &rsdns.Resolver{Resolver: b.upstream}
	// The README's refresh loop: Refresh(true) every 5 minutes — web minutes here, like
	// every TTL the sandbox serves. Refresh renews every used name serially.
	every := time.Duration(float64(5*time.Minute) / scale)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				lib.Refresh(true)
			}
		}
	})
	// Called once the sandbox is closed, so that a refresh pass in progress fails fast.
	b.stop = func() { close(stop); wg.Wait() }
	b.timed = &dnsTimedResolver{inner: dnsLibResolver{lib}}
	return b
}

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
func dnsWatch(e *engine.Engine, sb *sandbox.Sandbox, cfg sandbox.Config, f dnsBenchFlags, kind string, start time.Time, r *dnsRun) (*engine.DNSView, error) {
	var seedHosts []string
	for _, s := range sb.Info().Sites {
		seedHosts = append(seedHosts, s.Hosts[0])
	}
	var seedsAsked time.Time
	var warm *engine.DNSView
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
func dnsFreshView(e *engine.Engine, t time.Time) (engine.DNSView, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		if v := e.Snapshot().DNS; v != nil && !v.At.Before(t) {
			return *v, nil
		}
		if time.Now().After(deadline) {
			return engine.DNSView{}, errors.New("no fresh DNS view within 5 s of the crawl's end")
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

// dnsSandboxResolver is Go's own resolver (no cache) asking the sandbox's DNS server.
func dnsSandboxResolver(addr string) *net.Resolver {
	d := &net.Dialer{Timeout: 3 * time.Second}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}
}

// dnsGoResolver is baseline 2: every lookup asks upstream (A and AAAA).
type dnsGoResolver struct{ r *net.Resolver }

func (g dnsGoResolver) LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	addrs, err := g.r.LookupNetIP(ctx, "ip", host)
	for i := range addrs {
		addrs[i] = addrs[i].Unmap()
	}
	return addrs, err
}

// dnsLibResolver is baseline 3: rs/dnscache as a fetch.Resolver.
type dnsLibResolver struct{ r *rsdns.Resolver }

func (l dnsLibResolver) LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	ss, err := l.r.LookupHost(ctx, host)
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, 0, len(ss))
	for _, s := range ss {
		if a, err := netip.ParseAddr(s); err == nil {
			out = append(out, a.Unmap())
		}
	}
	return out, nil
}

// dnsCountingUpstream counts the resolutions rs/dnscache asks of Go's resolver
// (misses and refreshes alike).
type dnsCountingUpstream struct {
	r *net.Resolver
	n atomic.Int64
}

func (c *dnsCountingUpstream) LookupHost(ctx context.Context, host string) ([]string, error) {
	c.n.Add(1)
	return c.r.LookupHost(ctx, host)
}

func (c *dnsCountingUpstream) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	c.n.Add(1)
	return c.r.LookupAddr(ctx, addr)
}

// dnsTimedResolver records the fetch-path wait of every lookup of a baseline.
type dnsTimedResolver struct {
	inner fetch.Resolver
	start time.Time
	mu    sync.Mutex
	log   []dnsLookup
}

type dnsLookup struct {
	at   time.Duration // since the crawl's start
	wait time.Duration
}

func (t *dnsTimedResolver) LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	begin := time.Now()
	addrs, err := t.inner.LookupAddrs(ctx, host)
	wait := time.Since(begin)
	t.mu.Lock()
	t.log = append(t.log, dnsLookup{at: begin.Sub(t.start), wait: wait})
	t.mu.Unlock()
	return addrs, err
}

func (t *dnsTimedResolver) samples() []dnsLookup {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.log)
}

// dnsNoWait is the longest baseline lookup still taken for a cache answer: every
// upstream exchange takes at least the sandbox's minimum latency (50 ms).
const dnsNoWait = time.Millisecond

func dnsCountWaits(ws []time.Duration) int64 {
	var n int64
	for _, w := range ws {
		if w >= dnsNoWait {
			n++
		}
	}
	return n
}

// dnsQuantileMs is the exact q-quantile of ws in ms; waits under dnsNoWait count as 0,
// like crawlconsole's cache answers.
func dnsQuantileMs(ws []time.Duration, q float64) float64 {
	if len(ws) == 0 {
		return 0
	}
	s := slices.Clone(ws)
	slices.Sort(s)
	v := s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)]
	if v < dnsNoWait {
		return 0
	}
	return float64(v) / float64(time.Millisecond)
}

// dnsHistDiff subtracts an earlier snapshot of crawlconsole's wait histogram.
func dnsHistDiff(now, before []dnscache.HistBucket) []dnscache.HistBucket {
	prev := map[float64]int64{}
	for _, b := range before {
		prev[b.UpToMs] += b.Count
	}
	var out []dnscache.HistBucket
	for _, b := range now {
		if n := b.Count - prev[b.UpToMs]; n > 0 {
			out = append(out, dnscache.HistBucket{UpToMs: b.UpToMs, Count: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpToMs < out[j].UpToMs })
	return out
}

// dnsHistQuantile reads a quantile off histogram buckets the way the cache does: the
// upper edge of the bucket holding it.
func dnsHistQuantile(bs []dnscache.HistBucket, q float64) float64 {
	var total int64
	for _, b := range bs {
		total += b.Count
	}
	if total == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(total)))
	var seen int64
	for _, b := range bs {
		seen += b.Count
		if seen >= rank {
			return b.UpToMs
		}
	}
	return bs[len(bs)-1].UpToMs
}

// dnsNeedRow is one line of the upstream bound's derivation: a class of names, how
// many upstream resolutions they strictly needed, and how many the server saw.
type dnsNeedRow struct {
	class    string
	rule     string
	hosts    int
	needed   int
	messages int // at the sandbox's DNS server
}

// dnsHostNeed is what one host strictly needed upstream while it had queued URLs for
// span: one resolution per TTL period (live hosts: the A record's TTL; NXDOMAIN: the
// SOA's negative TTL), or one per step of the cache's retry backoff for names that fail
// transiently; with the row of the derivation it belongs to, and how many messages one
// resolution costs at the server (an A and an AAAA; both sent twice when no answer ever
// comes, see upstream.exchange).
func dnsHostNeed(host string, span time.Duration, c dnsCensus) (need int, class, rule string, msgs int) {
	retry := dnscache.DefaultOptions()
	periods := func(period time.Duration) int { return 1 + int(span/period) }
	switch kind := c.dead[host]; {
	case c.ttl[host] > 0:
		return periods(c.ttl[host]), fmt.Sprintf("live, TTL %v", c.ttl[host]), "1 + ⌊span/TTL⌋", 2
	case kind == "nxdomain":
		return periods(c.negTTL), "NXDOMAIN", fmt.Sprintf("1 + ⌊span/%v⌋ (SOA negative TTL)", c.negTTL), 2
	case kind != "":
		msgs := 2
		if kind == "timeout" {
			msgs = 4
		}
		return dnsBackoffQueries(span, retry.RetryBase, retry.RetryMax), strings.ToUpper(kind),
			fmt.Sprintf("backoff steps %v·2^k ≤ %v at their shortest jitter", retry.RetryBase, retry.RetryMax), msgs
	}
	return 1, "other", "1", 2
}

// dnsUpstreamNeed derives, from a crawl's queue spans and the census, the upstream
// resolutions strictly needed, per class of names (see dnsHostNeed). Names the server
// was asked about but the crawl never queued needed none.
func dnsUpstreamNeed(r *dnsRun, c dnsCensus) ([]dnsNeedRow, int) {
	rows := map[string]*dnsNeedRow{}
	row := func(class, rule string) *dnsNeedRow {
		if rows[class] == nil {
			rows[class] = &dnsNeedRow{class: class, rule: rule}
		}
		return rows[class]
	}
	total := 0
	for host, sp := range r.spans {
		n, class, rule, _ := dnsHostNeed(host, sp.last.Sub(sp.first), c)
		x := row(class, rule)
		x.hosts++
		x.needed += n
		x.messages += r.perName[host]
		total += n
	}
	for name, m := range r.perName {
		if _, ok := r.spans[name]; !ok {
			x := row("never queued", "0")
			x.hosts++
			x.messages += m
		}
	}
	out := make([]dnsNeedRow, 0, len(rows))
	for _, x := range rows {
		out = append(out, *x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].class < out[j].class })
	return out, total
}

// dnsBackoffQueries is how many times the cache's retry policy can ask for a name that
// keeps failing transiently over span: once at once, then after each backoff step at
// its shortest (d/2 of d = base·2^k, capped at maxStep).
func dnsBackoffQueries(span, base, maxStep time.Duration) int {
	n, t, d := 1, time.Duration(0), base
	for {
		t += d / 2
		if t > span {
			return n
		}
		n++
		d = min(2*d, maxStep)
	}
}

// dnsExcess lists the hosts the server was asked about most beyond their need, in
// messages (a resolution's cost per dnsHostNeed), for the diagnosis of a missed bound.
func dnsExcess(r *dnsRun, c dnsCensus, n int) []string {
	type ex struct {
		host, class       string
		need, got, perRes int
		span              time.Duration
	}
	var all []ex
	for host, sp := range r.spans {
		span := sp.last.Sub(sp.first)
		need, class, _, perRes := dnsHostNeed(host, span, c)
		if got := r.perName[host]; got > need*perRes {
			all = append(all, ex{host, class, need, got, perRes, span})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		oi, oj := all[i].got-all[i].need*all[i].perRes, all[j].got-all[j].need*all[j].perRes
		return oi > oj || oi == oj && all[i].host < all[j].host
	})
	var out []string
	for _, x := range all[:min(n, len(all))] {
		out = append(out, fmt.Sprintf("%s (%s): %d messages, needed %d resolutions × %d (queued for %.1f s)",
			x.host, x.class, x.got, x.need, x.perRes, x.span.Seconds()))
	}
	if len(all) > n {
		out = append(out, fmt.Sprintf("... %d hosts over their need in all", len(all)))
	}
	return out
}

// dnsReport prints the comparison and the bound's derivation and returns the fields.
func dnsReport(runs map[string]*dnsRun, kinds []string, c dnsCensus, lanes int) map[string]any {
	fmt.Println()
	fmt.Printf("%-22s %8s %8s %7s %10s %10s %9s %8s %8s %9s %11s %9s\n", "resolver", "crawl s", "lookups", "waited",
		"zero-wait", "zero-wait", "zero-wait", "p50 ms", "p99 ms", "p99 ms", "upstream", "server")
	fmt.Printf("%-22s %8s %8s %7s %10s %10s %9s %8s %8s %9s %11s %9s\n", "", "", "", "", "whole run", "after wu", "per req",
		"", "", "after wu", "resolutions", "messages")
	for _, k := range kinds {
		r := runs[k]
		fmt.Printf("%-22s %8.1f %8d %7d %10.4f %10.4f %9.4f %8.1f %8.1f %9.1f %11d %9d\n", dnsResolverNames[k], r.wall.Seconds(),
			r.lookups, r.waited, r.zeroShare(), r.zeroShareAfter(), r.zeroShareRequests(), r.p50, r.p99, r.p99After,
			r.resolutions, r.server)
	}
	fmt.Println("lookups are per dial: keep-alive requests resolve nothing. crawlconsole's p50/p99 are its histogram's bucket edges;")
	fmt.Println("a baseline lookup under 1 ms is a cache answer. A lookup's wait is the resolver call: Go's resolver goes on for its")
	fmt.Println("attempts (2 × 5 s on a silent name) after the request's own 5 s timeout has failed the fetch. rs/dnscache only")
	fmt.Println("answers names it has seen: each host is dialled once in this crawl, so its first lookup is nearly its only one.")
	same := true
	for _, k := range kinds {
		if runs[k].urls != runs[kinds[0]].urls {
			same = false
		}
	}
	if !same {
		fmt.Println("WARNING: the runs did not crawl the same URLs:")
	} else {
		fmt.Printf("same crawl in every run: %d URLs, %d done, %d failed (the dead names)\n",
			runs[kinds[0]].urls.all, runs[kinds[0]].urls.done, runs[kinds[0]].urls.failed)
	}
	for _, k := range kinds {
		if !same {
			fmt.Printf("  %-22s %s\n", dnsResolverNames[k], runs[k].line())
		}
	}

	out := map[string]any{"gomaxprocs": runtime.GOMAXPROCS(0), "failing_names": len(c.dead), "hosts": len(c.ttl),
		"lanes": lanes, "same_crawl": same}
	for _, k := range kinds {
		r := runs[k]
		prefix := map[string]string{dnsCC: "", dnsGo: "go_resolver_", dnsLib: "dnscache_lib_"}[k]
		out[prefix+"wait_p99_ms"] = dnsRound(r.p99, 3)
		out[prefix+"wait_p99_ms_after_warmup"] = dnsRound(r.p99After, 3)
		out[prefix+"zero_wait_share_whole_run"] = dnsRound(r.zeroShare(), 5)
		out[prefix+"crawl_s"] = dnsRound(r.wall.Seconds(), 2)
		out[prefix+"server_messages"] = r.server
		if k == dnsCC {
			out["zero_wait_share"] = dnsRound(r.zeroShareAfter(), 5)
		} else {
			out[prefix+"zero_wait_share"] = dnsRound(r.zeroShareAfter(), 5)
		}
	}
	if cc := runs[dnsCC]; cc != nil {
		out["warmup_s"] = dnsRound(cc.warmup.Seconds(), 2)
		out["wait_p50_ms"] = dnsRound(cc.p50, 3)
		out["zero_wait_share_per_request"] = dnsRound(cc.zeroShareRequests(), 5)
		out["lookups"], out["lookups_after_warmup"] = cc.lookups, cc.lookupsAfter
		rows, needed := dnsUpstreamNeed(cc, c)
		bound := int(math.Floor(1.1 * float64(needed)))
		queries := cc.server / 2
		fmt.Println()
		fmt.Printf("warm-up: %.1f s from Start until every seed host had been asked upstream and answered; %d lookups waited\n"+
			"before it (the first of up to %d lanes opened at Start: %.2f%% of all lookups), %d after it; prefetch backlog peaked at %d hosts\n",
			cc.warmup.Seconds(), cc.waited-cc.waitedAfter, lanes, 100*dnsRatio(cc.waited-cc.waitedAfter, cc.lookups), cc.waitedAfter, cc.maxBacklog)
		fmt.Println()
		fmt.Println("upstream bound (crawlconsole's crawl): per host, the resolutions strictly needed while it had queued URLs")
		fmt.Println("(span = first discovered_at .. last updated_at of the host's URLs in the store; TTLs as the server serves them)")
		fmt.Printf("%-18s %6s %8s %10s %10s  %s\n", "names", "hosts", "needed", "server msgs", "msgs / 2", "needed per host")
		for _, x := range rows {
			fmt.Printf("%-18s %6d %8d %10d %10.1f  %s\n", x.class, x.hosts, x.needed, x.messages, float64(x.messages)/2, x.rule)
		}
		fmt.Printf("%-18s %6s %8d %10d %10d\n", "total", "", needed, cc.server, queries)
		fmt.Printf("bound = 1.1 × %d = %d resolutions (%d messages: an A and an AAAA per resolution)\n", needed, bound, 2*bound)
		fmt.Printf("server saw %d messages = %d A+AAAA pairs (upstream_queries); the cache counted %d resolutions and %d messages\n"+
			"sent (a UDP query unanswered after half the timeout is sent again: silent names cost 4 messages a resolution)\n",
			cc.server, queries, cc.resolutions, cc.cacheMsgs)
		if ex := dnsExcess(cc, c, 8); len(ex) > 0 {
			fmt.Println("names asked about more often than they needed (server messages):")
			for _, l := range ex {
				fmt.Println("  " + l)
			}
		}
		out["upstream_queries"] = queries
		out["upstream_messages"] = cc.server
		out["cache_upstream_queries"] = cc.resolutions
		out["cache_upstream_messages"] = cc.cacheMsgs
		out["upstream_needed"] = needed
		out["upstream_bound"] = bound
		out["upstream_bound_messages"] = 2 * bound
		goals := map[string]bool{
			"wait_p99_ms < 1":                    cc.p99 < 1,
			"zero_wait_share >= 0.995":           cc.zeroShareAfter() >= 0.995,
			"upstream_queries <= upstream_bound": queries <= bound,
		}
		out["goals_met"] = goals
		fmt.Println()
		for _, g := range []string{"wait_p99_ms < 1", "zero_wait_share >= 0.995", "upstream_queries <= upstream_bound"} {
			fmt.Printf("goal %-36s %v\n", g, goals[g])
		}
		if g := runs[dnsGo]; g != nil {
			out["speedup_vs_go_resolver"] = dnsRound(g.wall.Seconds()/cc.wall.Seconds(), 3)
			fmt.Printf("crawl time: Go resolver / crawlconsole = %.2f\n", g.wall.Seconds()/cc.wall.Seconds())
		}
		if l := runs[dnsLib]; l != nil {
			out["speedup_vs_dnscache_lib"] = dnsRound(l.wall.Seconds()/cc.wall.Seconds(), 3)
			fmt.Printf("crawl time: rs/dnscache / crawlconsole = %.2f\n", l.wall.Seconds()/cc.wall.Seconds())
		}
	}
	return out
}

// dnsRound rounds x to digits decimals for the JSON line.
func dnsRound(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
