package main

// Benchmark "bans": how fast crawlconsole (M1 adjacency lanes) crawls a web that bans
// bots, from 4 addresses, against the shortest makespan the web's rules allow and
// against two baselines. Goals: bans = 0, ratio_to_bound <= 1.15,
// speedup_vs_3perip >= 2.
//
//	go run ./bench bans [-scale 20] [-hosts 9] [-listings 6] [-articles 50] [-sections N] [-top N]
//	                    [-pause 1.02..1.10] [-lanes 64] [-hostcap 0] [-cap 120s]
//	                    [-only crawlconsole|priorart|colly]
//
// The sandbox runs its anti-bot rule with the default settings (seed 000: adjacent =
// same host or same parent page; a violation is an overlap or a gap under HumanGap;
// more than K=3 violations in a 60 s window ban the IP from the host for 30 min; a
// request quota per IP and host), every web duration divided by -scale. Faults, dead
// hosts and Crawl-delay are off; robots.txt still disallows /private/ and every crawler
// honours it. Each crawler gets a fresh sandbox with the same seed, so the same web,
// and crawls it from the sites' entry pages through 127.0.0.2 … 127.0.0.5, pausing a
// random [a·G, b·G] (-pause a..b, G = HumanGap in real time) between the requests of
// one lane / worker / slot:
//   - crawlconsole: lanes.max = -lanes, delay a·G..b·G, host cap -hostcap (requests per
//     web second per host, 0 = off; the sandbox has no such rule), otherwise the demo's
//     settings (cli.DemoOptions);
//   - prior art (seed 000's background): one list sorted by priority (depth, then
//     discovery order), 3 threads per IP each pausing the same random delay between
//     its own requests, no adjacency awareness; a refused URL (403/429/captcha) goes
//     back on the list after the same refusal back-off crawlconsole uses (30 web s);
//     it runs until it has fetched every page, or until -cap;
//   - colly: one collector per address (bind transport), Async, LimitRule{DomainGlob:
//     "*", Parallelism: 2, Delay: a·G, RandomDelay: (b-a)·G}, robots.txt honoured, one
//     shared visited set, found links handed round-robin to the four collectors. In
//     colly v2 a rule holds one semaphore for every domain it matches, so "*" with
//     Parallelism 2 allows 2 requests in flight per collector, i.e. per address.
//
// The default pause, 1.02..1.10 × G, is a tight range just above the human gap: the
// engine's gate (lanes.Gate) holds every adjacent request on an address at least
// delay_min after the previous one ended, and the sandbox, timing on its side of the
// connection, can only see a longer gap. Its mean, 1.06·G, is the part of the ratio to
// the bound that the pauses cost by design.
//
// Makespans: crawlconsole from Start to the crawl running dry (Done: every lane retired;
// a lane retires as soon as it runs dry and finds no work to take over, with no closing
// pause); the prior art until every page is fetched or the cap; colly until its four
// collectors are idle. "pages" counts the distinct URLs the sandbox answered with a
// real page (200, not a ban page), robots.txt excluded.

import (
	"flag"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/storage"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui/cli"
)

func init() { register("bans", runBans) }

// bansAddrs are the four client addresses every crawler leaves from (the demo's).
var bansAddrs = []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}

// bansBinds are bansAddrs as --egress specs.
func bansBinds() []string {
	var out []string
	for _, a := range bansAddrs {
		out = append(out, "bind:"+a)
	}
	return out
}

// bansSetup is what every crawler of one benchmark run shares.
type bansSetup struct {
	cfg      sandbox.Config
	gap      time.Duration // HumanGap in real time
	lo, hi   time.Duration // pause range, real
	a, b     float64       // pause range as multiples of gap
	lanes    int
	hostCap  float64 // crawlconsole's per-host cap, requests per web second; 0 = off
	refusal  time.Duration
	timeout  time.Duration
	capPrior time.Duration
}

// bansResult is one crawler's run as the sandbox saw it.
type bansResult struct {
	name     string
	makespan time.Duration
	capped   bool
	acct     crawlAccount
	note     string
	web      *sandbox.Web
	hosts    []bansHostSpan
}

func runBans(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("bans", flag.ContinueOnError)
	scale := fs.Float64("scale", 20, "sandbox time scale: web durations (HumanGap, ban window, ban time) shrink by this")
	hosts := fs.Int("hosts", 9, "sandbox virtual hosts")
	listings := fs.Int("listings", 6, "listing pages per section host (a chain: each links to the next)")
	articles := fs.Int("articles", 50, "articles per listing page")
	sections := fs.Int("sections", 0, "section hosts per site (0 = the sandbox's default, 2..4)")
	top := fs.Int("top", -1, "top stories per entry page (-1 = the sandbox's default, 6)")
	pause := fs.String("pause", "1.02..1.10", "pause between one lane's requests, as multiples `a..b` of the human gap")
	lanesN := fs.Int("lanes", 64, "crawlconsole lanes.max")
	hostCap := fs.Float64("hostcap", 0, "crawlconsole per-host cap in requests per web second (0 = off)")
	capPrior := fs.Duration("cap", 120*time.Second, "stop the prior-art baseline after this long")
	timeout := fs.Duration("timeout", 3*time.Minute, "give up on a crawlconsole or colly crawl after this long")
	only := fs.String("only", "", "run only crawlconsole, priorart or colly")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	a, b, err := parsePause(*pause)
	if err != nil {
		return nil, err
	}
	switch *only {
	case "", "crawlconsole", "priorart", "colly":
	default:
		return nil, fmt.Errorf("-only %q: want crawlconsole, priorart or colly", *only)
	}
	cfg := crawlSandboxConfig(*hosts, *scale)
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = *listings, *articles
	if *sections > 0 {
		cfg.Layout.SectionsMin, cfg.Layout.SectionsMax = *sections, *sections
	}
	if *top >= 0 {
		cfg.Layout.TopStories = *top
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	gap := time.Duration(float64(cfg.AntiBot.HumanGap) / *scale)
	s := bansSetup{
		cfg: cfg, gap: gap, a: a, b: b,
		lo: time.Duration(a * float64(gap)).Round(time.Microsecond), hi: time.Duration(b * float64(gap)).Round(time.Microsecond),
		lanes: *lanesN, hostCap: *hostCap, timeout: *timeout, capPrior: *capPrior,
		refusal: time.Duration(float64(30*time.Second) / *scale),
	}
	web := sandbox.NewWeb(cfg)
	reach := bansReachable(web)
	ab := cfg.AntiBot
	fmt.Printf("bans: sandbox of %d hosts in %d sites, %d listing pages × %d articles per section host, %d pages to fetch; scale %g\n",
		*hosts, len(web.Sites()), *listings, *articles, reach.total, *scale)
	fmt.Printf("  anti-bot rule on (defaults): HumanGap %v web = %v real, K = %d violations per %v web (%v real), ban %v web (%v real), quota %d per IP and host per %v web\n",
		ab.HumanGap, gap, ab.MaxViolations, ab.Window, realOf(ab.Window, *scale), ab.BanFor, realOf(ab.BanFor, *scale), ab.Quota, ab.QuotaWindow)
	fmt.Printf("  4 addresses %s; pause between one lane's/worker's requests uniform in [%.2f·G, %.2f·G] = [%v, %v]\n",
		strings.Join(bansAddrs, ", "), a, b, s.lo, s.hi)
	capNote := "off"
	if s.hostCap > 0 {
		capNote = fmt.Sprintf("%g requests per web second (%g per real second)", s.hostCap, s.hostCap**scale)
	}
	fmt.Printf("  crawlconsole: %d lanes max, host cap %s, robots.txt honoured, SQLite store in a temp dir\n", s.lanes, capNote)
	fmt.Printf("  GOMAXPROCS %d, %s, load average %s\n\n", runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(1))

	var results []bansResult
	byName := map[string]*bansResult{}
	for _, run := range []struct {
		name string
		f    func(bansSetup) (bansResult, error)
	}{{"crawlconsole", bansCrawlconsole}, {"priorart", bansPriorArt}, {"colly", bansColly}} {
		if *only != "" && *only != run.name {
			continue
		}
		r, err := run.f(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", run.name, err)
		}
		results = append(results, r)
		byName[run.name] = &results[len(results)-1]
		fmt.Printf("  done: %-12s %7.2f s%s\n", run.name, r.makespan.Seconds(), map[bool]string{true: " (capped)", false: ""}[r.capped])
	}

	// The bound needs the shortest service time the sandbox can give; take it from
	// the crawlconsole run's truth log (or any run's).
	serve := time.Duration(math.MaxInt64)
	for _, r := range results {
		if r.acct.requests > 0 {
			serve = min(serve, r.acct.minServe)
		}
	}
	if serve == time.Duration(math.MaxInt64) {
		serve = 0
	}
	bound := bansBound(s, reach, serve)

	fmt.Println()
	fmt.Printf("%-40s %10s %8s %9s %10s %5s  %s\n", "crawler", "makespan s", "pages", "requests", "violations", "bans", "notes")
	for _, r := range results {
		ms := fmt.Sprintf("%.2f", r.makespan.Seconds())
		if r.capped {
			ms = "≥" + ms
		}
		fmt.Printf("%-40s %10s %8d %9d %10d %5d  %s\n", bansLabel(r.name), ms, r.acct.unique, r.acct.requests, r.acct.violations, r.acct.bans, r.note)
	}
	fmt.Printf("%-40s %10.2f %8d\n", "lower bound (derivation below)", bound.total.Seconds(), reach.total)
	fmt.Println()
	bound.print()
	if cc := byName["crawlconsole"]; cc != nil && len(cc.hosts) > 0 {
		fmt.Println()
		fmt.Println("crawlconsole per host (from the truth log; time from Start):")
		fmt.Printf("  %-42s %8s %8s %8s %10s  %s\n", "host", "requests", "first s", "last s", "mean gap", "requests per address")
		for _, h := range cc.hosts {
			var ips []string
			for _, a := range bansAddrs {
				ips = append(ips, strconv.Itoa(h.perIP[a]))
			}
			fmt.Printf("  %-42s %8d %8.2f %8.2f %10v  %s\n", h.host, h.requests, h.first.Seconds(), h.last.Seconds(),
				h.meanGap.Round(time.Millisecond), strings.Join(ips, " / "))
		}
	}

	out := map[string]any{
		"lower_bound_s": crawlRound(bound.total.Seconds(), 3),
		"pages":         reach.total,
		"scale":         *scale,
		"hosts":         *hosts,
		"pause_gap":     fmt.Sprintf("%g..%g", a, b),
		"host_cap":      s.hostCap,
	}
	fmt.Println()
	if cc := byName["crawlconsole"]; cc != nil {
		ratio := cc.makespan.Seconds() / bound.total.Seconds()
		out["makespan_s"] = crawlRound(cc.makespan.Seconds(), 3)
		out["ratio_to_bound"] = crawlRound(ratio, 3)
		out["bans"] = cc.acct.bans
		out["violations"] = cc.acct.violations
		out["pages_fetched"] = cc.acct.unique
		fmt.Printf("ratio_to_bound    = %.2f s / %.2f s = %.3f   (goal ≤ 1.15)\n", cc.makespan.Seconds(), bound.total.Seconds(), ratio)
		fmt.Printf("bans              = %d, adjacency violations %d   (goal 0 bans)\n", cc.acct.bans, cc.acct.violations)
		if cc.acct.unique != reach.total {
			fmt.Printf("note: crawlconsole fetched %d of the %d pages\n", cc.acct.unique, reach.total)
		}
		if pa := byName["priorart"]; pa != nil {
			sp := pa.makespan.Seconds() / cc.makespan.Seconds()
			out["speedup_vs_3perip"] = crawlRound(sp, 3)
			out["priorart_makespan_s"] = crawlRound(pa.makespan.Seconds(), 3)
			out["priorart_capped"] = pa.capped
			out["priorart_bans"] = pa.acct.bans
			out["priorart_pages"] = pa.acct.unique
			if pa.capped {
				// Counted as the cap: a lower bound on its makespan, so the speedup is too.
				est := pa.makespan.Seconds() * float64(reach.total) / math.Max(1, float64(pa.acct.unique))
				out["priorart_makespan_est_s"] = crawlRound(est, 1)
				fmt.Printf("speedup_vs_3perip ≥ %.1f s / %.2f s = %.1f   (goal ≥ 2; prior art stopped at the %v cap with %d of %d pages: its makespan is counted as the cap, a lower bound; at its average pace it would need ~%.0f s)\n",
					pa.makespan.Seconds(), cc.makespan.Seconds(), sp, s.capPrior, pa.acct.unique, reach.total, est)
			} else {
				fmt.Printf("speedup_vs_3perip = %.2f s / %.2f s = %.2f   (goal ≥ 2)\n", pa.makespan.Seconds(), cc.makespan.Seconds(), sp)
			}
		}
	}
	if co := byName["colly"]; co != nil {
		out["colly_bans"] = co.acct.bans
		out["colly_makespan_s"] = crawlRound(co.makespan.Seconds(), 3)
		out["colly_pages"] = co.acct.unique
		fmt.Printf("colly_bans        = %d (colly fetched %d of %d pages in %.2f s; refused pages are not retried and their links are never found)\n",
			co.acct.bans, co.acct.unique, reach.total, co.makespan.Seconds())
	}
	return out, nil
}

// bansLabel names a crawler in the results table.
func bansLabel(name string) string {
	switch name {
	case "crawlconsole":
		return "crawlconsole (M1 lanes)"
	case "priorart":
		return "prior art: 3 threads/IP, priority list"
	case "colly":
		return "colly: LimitRule \"*\" par 2, 4 collectors"
	}
	return name
}

// realOf is a web duration in real time at this scale.
func realOf(d time.Duration, scale float64) time.Duration {
	return time.Duration(float64(d) / scale)
}

// parsePause reads "a..b" (multiples of the human gap).
func parsePause(v string) (float64, float64, error) {
	lo, hi, ok := strings.Cut(v, "..")
	a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if !ok || err1 != nil || err2 != nil || a < 1 || b < a {
		return 0, 0, fmt.Errorf("-pause %q: want a..b with 1 <= a <= b, e.g. 1.02..1.10", v)
	}
	return a, b, nil
}

// bansEngineOptions are the demo's crawl settings (cli.DemoOptions: the sandbox's DNS,
// loopback allowed, the four bind egresses all in use at once, timeouts, refusal
// back-off and DNS TTLs scaled) with the benchmark's lane pauses, lanes and host cap.
func bansEngineOptions(s bansSetup, sb *sandbox.Sandbox, db string) config.Options {
	o := cli.DemoOptions(sb, db)
	o.Lanes.Max = s.lanes
	o.Lanes.DelayMin, o.Lanes.DelayMax = s.lo, s.hi
	o.HostRate = s.hostCap * s.cfg.Scale
	return o
}

// bansCrawlconsole crawls a fresh sandbox with the engine; the makespan runs from
// Start to the crawl running dry.
func bansCrawlconsole(s bansSetup) (bansResult, error) {
	sb, err := sandbox.Start(s.cfg)
	if err != nil {
		return bansResult{}, err
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "bench-bans-")
	if err != nil {
		return bansResult{}, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "crawl.db")
	opts := bansEngineOptions(s, sb, db)
	if want := bansBinds(); strings.Join(opts.Egress, " ") != strings.Join(want, " ") {
		return bansResult{}, fmt.Errorf("the demo's egresses are now %v; the baselines leave from %v: update bansAddrs", opts.Egress, want)
	}
	e, err := engine.New(opts)
	if err != nil {
		return bansResult{}, err
	}
	start := time.Now()
	if err := e.Start(); err != nil {
		e.Close()
		return bansResult{}, err
	}
	select {
	case <-e.Done():
	case <-time.After(s.timeout):
		e.Close()
		return bansResult{}, fmt.Errorf("crawl not done after %v", s.timeout)
	}
	makespan := time.Since(start)
	st := e.Stats()
	if err := e.Close(); err != nil {
		return bansResult{}, err
	}
	lanes, err := bansLaneShares(db)
	if err != nil {
		return bansResult{}, err
	}
	note := fmt.Sprintf("lanes peak %d, refused %d; %s", st.LanesPeak, st.Refused, lanes)
	return bansResult{name: "crawlconsole", makespan: makespan, acct: crawlAccountSince(sb, 0, 0), note: note, web: sb.Web(),
		hosts: bansHostSpans(sb.Truth().Requests(), start)}, nil
}

// bansLaneShares reads back from the crawl's store which lane (M1) fetched each page
// and says how many pages were fetched by lanes that served several hosts: such a
// lane fetches its hosts one request at a time, with its pause after each, so each of
// its hosts gets a fraction of the lane.
func bansLaneShares(db string) (string, error) {
	st, err := store.Open(db, store.Options{})
	if err != nil {
		return "", err
	}
	defer st.Close()
	urls, err := st.PageURLs()
	if err != nil {
		return "", err
	}
	type laneKey struct {
		lane   int
		egress string
	}
	hosts := map[laneKey]map[string]int{}
	for _, u := range urls {
		p, err := st.Page(u)
		if err != nil {
			return "", err
		}
		k := laneKey{p.Lane, p.Egress}
		if hosts[k] == nil {
			hosts[k] = map[string]int{}
		}
		if pu, err := url.Parse(p.URL); err == nil {
			hosts[k][pu.Hostname()]++
		}
	}
	shared, sharedLanes := 0, 0
	for _, hs := range hosts {
		if len(hs) > 1 {
			sharedLanes++
			for _, n := range hs {
				shared += n
			}
		}
	}
	return fmt.Sprintf("%d of %d lanes served ≥ 2 hosts and fetched %d of %d pages", sharedLanes, len(hosts), shared, len(urls)), nil
}

// bansColly crawls a fresh sandbox with four colly collectors, one per address.
func bansColly(s bansSetup) (bansResult, error) {
	sb, err := sandbox.Start(s.cfg)
	if err != nil {
		return bansResult{}, err
	}
	defer sb.Close()
	shared := &storage.InMemoryStorage{}
	hosts := crawlHosts(sb)
	var cs []*colly.Collector
	var scheduled, rr atomic.Int64
	for _, a := range bansAddrs {
		c := colly.NewCollector(colly.Async(true), colly.AllowedDomains(hosts...))
		c.IgnoreRobotsTxt = false
		if err := c.SetStorage(shared); err != nil {
			return bansResult{}, err
		}
		tr := crawlTransport(sb.DNSAddr(), netip.MustParseAddr(a))
		defer tr.CloseIdleConnections()
		c.WithTransport(tr)
		if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 2, Delay: s.lo, RandomDelay: s.hi - s.lo}); err != nil {
			return bansResult{}, err
		}
		cs = append(cs, c)
	}
	visit := func(u string) {
		c := cs[int(rr.Add(1)-1)%len(cs)]
		if c.Visit(u) == nil {
			scheduled.Add(1)
		}
	}
	for _, c := range cs {
		c.OnHTML("a[href]", func(e *colly.HTMLElement) {
			if u := e.Request.AbsoluteURL(e.Attr("href")); u != "" {
				visit(u)
			}
		})
	}
	start := time.Now()
	for _, u := range crawlSeeds(sb) {
		visit(u)
	}
	done := make(chan struct{})
	go func() {
		// A page fetched by one collector hands its links to the others, so wait until
		// a whole pass over the collectors schedules nothing new.
		for {
			before := scheduled.Load()
			for _, c := range cs {
				c.Wait()
			}
			if scheduled.Load() == before {
				close(done)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(s.timeout):
		return bansResult{}, fmt.Errorf("crawl not done after %v", s.timeout)
	}
	makespan := time.Since(start)
	acct := crawlAccountSince(sb, 0, 0)
	return bansResult{name: "colly", makespan: makespan, acct: acct, web: sb.Web(),
		note: fmt.Sprintf("refused %d", acct.refused)}, nil
}
