package main

// Benchmark "bans": how fast crawlconsole (M1 adjacency lanes) crawls a web that bans
// bots, from 4 addresses, against the shortest makespan the web's rules allow and
// against two baselines (issue 3, item 8). Goals: bans = 0, ratio_to_bound <= 1.15,
// speedup_vs_3perip >= 2.
//
//	go run ./bench bans [-scale 20] [-hosts 9] [-listings 6] [-articles 50]
//	                    [-pause 1.05..1.15] [-lanes 64] [-hostcap 0] [-cap 120s]
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

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/storage"
	"github.com/temoto/robotstxt"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("bans", runBans) }

// bansAddrs are the four client addresses every crawler leaves from (the demo's).
var bansAddrs = []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}

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

// bansHostSpan is how one host was crawled: when, and from which addresses.
type bansHostSpan struct {
	host        string
	first, last time.Duration // first start and last end, from the crawl's start
	perIP       map[string]int
	requests    int
	meanGap     time.Duration // mean end-to-start gap between one address's requests to the host
}

// bansHostSpans summarises the truth log per host, slowest host last.
func bansHostSpans(reqs []sandbox.Request, start time.Time) []bansHostSpan {
	by := map[string]*bansHostSpan{}
	type key struct{ host, ip string }
	lastEnd := map[key]time.Time{}
	gaps := map[string][]time.Duration{}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Start.Before(reqs[j].Start) })
	for _, r := range reqs {
		h := by[r.Host]
		if h == nil {
			h = &bansHostSpan{host: r.Host, first: r.Start.Sub(start), perIP: map[string]int{}}
			by[r.Host] = h
		}
		h.requests++
		h.perIP[r.IP]++
		h.last = max(h.last, r.End.Sub(start))
		k := key{r.Host, r.IP}
		if le, ok := lastEnd[k]; ok {
			gaps[r.Host] = append(gaps[r.Host], r.Start.Sub(le))
		}
		lastEnd[k] = r.End
	}
	var out []bansHostSpan
	for host, h := range by {
		var sum time.Duration
		for _, g := range gaps[host] {
			sum += g
		}
		if n := len(gaps[host]); n > 0 {
			h.meanGap = sum / time.Duration(n)
		}
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].last < out[j].last })
	return out
}

func runBans(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("bans", flag.ContinueOnError)
	scale := fs.Float64("scale", 20, "sandbox time scale: web durations (HumanGap, ban window, ban time) shrink by this")
	hosts := fs.Int("hosts", 9, "sandbox virtual hosts")
	listings := fs.Int("listings", 6, "listing pages per section host (a chain: each links to the next)")
	articles := fs.Int("articles", 50, "articles per listing page")
	pause := fs.String("pause", "1.05..1.15", "pause between one lane's requests, as multiples `a..b` of the human gap")
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
	fmt.Printf("  GOMAXPROCS %d, %s, load average %s\n\n", runtime.GOMAXPROCS(0), runtime.Version(), sandboxLoadAverage())

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

func realOf(d time.Duration, scale float64) time.Duration {
	return time.Duration(float64(d) / scale)
}

// parsePause reads "a..b" (multiples of the human gap).
func parsePause(v string) (float64, float64, error) {
	lo, hi, ok := strings.Cut(v, "..")
	a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if !ok || err1 != nil || err2 != nil || a < 1 || b < a {
		return 0, 0, fmt.Errorf("-pause %q: want a..b with 1 <= a <= b, e.g. 1.05..1.15", v)
	}
	return a, b, nil
}

// bansReach is the page set every crawler must fetch, per host.
type bansReach struct {
	total       int
	perHost     map[string]int
	maxChildren int // most children of one entry page
}

// bansReachable lists the pages reachable from the entry pages by links (a page whose
// chain of parents ends at an entry; search result pages are roots no page links to)
// that robots.txt allows.
func bansReachable(w *sandbox.Web) bansReach {
	pages := w.Pages()
	byURL := make(map[string]sandbox.PageInfo, len(pages))
	for _, p := range pages {
		byURL[p.URL] = p
	}
	memo := map[string]bool{}
	var reachable func(u string) bool
	reachable = func(u string) bool {
		if v, ok := memo[u]; ok {
			return v
		}
		p := byURL[u]
		v := p.Kind == sandbox.KindEntry
		if p.Parent != "" {
			v = reachable(p.Parent)
		}
		memo[u] = v
		return v
	}
	r := bansReach{perHost: map[string]int{}}
	children := map[string]int{}
	for _, p := range pages {
		if p.Disallowed || p.Kind == sandbox.KindDead || !reachable(p.URL) {
			continue
		}
		r.total++
		r.perHost[p.Host]++
		if par, ok := byURL[p.Parent]; ok && par.Kind == sandbox.KindEntry {
			children[p.Parent]++
			r.maxChildren = max(r.maxChildren, children[p.Parent])
		}
	}
	return r
}

// bansEngineOptions are the demo's crawl settings (cli.DemoOptions: the sandbox's DNS,
// loopback allowed, four bind egresses, timeouts and refusal back-off scaled) with the
// benchmark's lane pauses, lanes and host cap.
func bansEngineOptions(s bansSetup, sb *sandbox.Sandbox, db string) engine.Options {
	o := engine.DefaultOptions()
	o.Seeds = crawlSeeds(sb)
	o.DB = db
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	for _, a := range bansAddrs {
		o.Egress = append(o.Egress, "bind:"+a)
	}
	o.Lanes.Max = s.lanes
	o.Lanes.DelayMin, o.Lanes.DelayMax = s.lo, s.hi
	o.HostRate = s.hostCap * s.cfg.Scale
	o.Fetch.Timeout = 5 * time.Second
	o.Fetch.ConnectTimeout = 2 * time.Second
	o.Fetch.RetryBackoff = 200 * time.Millisecond
	o.Fetch.RefusalBackoff = s.refusal
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
	e, err := engine.New(bansEngineOptions(s, sb, filepath.Join(dir, "crawl.db")))
	if err != nil {
		return bansResult{}, err
	}
	start := time.Now()
	if err := e.Start(); err != nil {
		e.Close()
		return bansResult{}, err
	}
	var lanes bansLaneSampler
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case <-e.Done():
			break wait
		case <-tick.C:
			lanes.sample(e.Snapshot())
		case <-time.After(s.timeout):
			e.Close()
			return bansResult{}, fmt.Errorf("crawl not done after %v", s.timeout)
		}
	}
	makespan := time.Since(start)
	st := e.Stats()
	if err := e.Close(); err != nil {
		return bansResult{}, err
	}
	note := fmt.Sprintf("lanes peak %d, refused %d; %s", st.LanesPeak, st.Refused, lanes)
	return bansResult{name: "crawlconsole", makespan: makespan, acct: crawlAccountSince(sb, 0, 0), note: note, web: sb.Web(),
		hosts: bansHostSpans(sb.Truth().Requests(), start)}, nil
}

// bansLaneSampler watches the engine's lanes (M1) during a crawl: how many hosts a
// lane holds at once (a lane serves the hosts it holds one request at a time, with a
// pause after each) and how many lanes serve a host at once (at most one per address).
type bansLaneSampler struct {
	samples, laneSamples, multiHost int
	hostsHeld                       int
	hostLanes, hostSamples          int
}

func (b *bansLaneSampler) sample(snap engine.Snapshot) {
	b.samples++
	perHost := map[string]int{}
	for _, l := range snap.Lanes {
		if len(l.Hosts) == 0 {
			continue
		}
		b.laneSamples++
		b.hostsHeld += len(l.Hosts)
		if len(l.Hosts) > 1 {
			b.multiHost++
		}
		for _, h := range l.Hosts {
			perHost[h]++
		}
	}
	for _, n := range perHost {
		b.hostSamples++
		b.hostLanes += n
	}
}

func (b bansLaneSampler) String() string {
	if b.laneSamples == 0 || b.hostSamples == 0 {
		return "no lane samples"
	}
	return fmt.Sprintf("a lane held %.2f hosts on average (%.0f%% of lane samples held ≥ 2), a host had %.2f lanes",
		float64(b.hostsHeld)/float64(b.laneSamples), 100*float64(b.multiHost)/float64(b.laneSamples),
		float64(b.hostLanes)/float64(b.hostSamples))
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

// bansLowerBound is the shortest makespan any schedule could reach without tripping
// the sandbox's rules from the same addresses, with its derivation.
type bansLowerBound struct {
	lines []string
	total time.Duration
}

func (lb bansLowerBound) print() {
	for _, l := range lb.lines {
		fmt.Println(l)
	}
}

// bansBound derives the bound from the rules. Per address, requests to one host (or
// with one parent page) never overlap and start at least G after the previous one
// ended, and every request lasts at least serve; a page cannot be requested before
// the page linking to it has been fetched.
func bansBound(s bansSetup, r bansReach, serve time.Duration) bansLowerBound {
	n := len(bansAddrs)
	g := s.gap
	var lb bansLowerBound
	add := func(format string, args ...any) { lb.lines = append(lb.lines, fmt.Sprintf(format, args...)) }
	rounds := func(k int) int { return (k + n - 1) / n }
	serial := func(k int) time.Duration { // k requests serial on one address
		if k <= 0 {
			return 0
		}
		return time.Duration(k)*serve + time.Duration(k-1)*g
	}
	add("lower bound: the shortest makespan any schedule could reach from %d addresses without tripping the sandbox's rules", n)
	add("  rule: per address, requests to one host or with one parent page never overlap and start ≥ G after the previous ended;")
	add("        G = HumanGap %v web ÷ scale %g = %v real; every request lasts ≥ s = %v (shortest the sandbox served, truth log)",
		s.cfg.AntiBot.HumanGap, s.cfg.Scale, g, serve)

	host, most := "", 0
	hostsSorted := make([]string, 0, len(r.perHost))
	for h := range r.perHost {
		hostsSorted = append(hostsSorted, h)
	}
	sort.Strings(hostsSorted)
	for _, h := range hostsSorted {
		if r.perHost[h] > most {
			host, most = h, r.perHost[h]
		}
	}
	req := most + 1 // and its robots.txt, a request to the host like any other
	k := rounds(req)
	tHost := serial(k)
	add("  (1) host throughput: busiest host %s has %d pages + robots.txt = %d requests; over %d addresses one of them makes ≥ ⌈%d/%d⌉ = %d,",
		host, most, req, n, req, n, k)
	add("      serial: %d·s + %d·G = %v", k, k-1, tHost.Round(time.Millisecond))

	L, A := s.cfg.Layout.ListingPages, s.cfg.Layout.ArticlesPerListing
	ka := rounds(A)
	tDepth := time.Duration(L+1)*serve + serial(ka)
	add("  (2) link depth: entry → list?p=1 → … → list?p=%d is a chain of %d fetches (%d·s); the last listing's %d articles share its host",
		L, L+1, L+1, A)
	add("      and parent, so one address makes ≥ %d of them after it: %d·s + %d·s + %d·G = %v", ka, L+1, ka, ka-1, tDepth.Round(time.Millisecond))

	children := r.maxChildren
	tParent := serial(rounds(children))
	add("  (3) parent rule across hosts: an entry's %d children (listings p=1 and top stories, on several hosts) share a parent:", children)
	add("      ≥ %d per address: %v — not binding beside (1)", rounds(children), tParent.Round(time.Millisecond))
	add("  (4) request quota: %d per address and host per %v web; the gap rule alone allows at most %d in that window — not binding",
		s.cfg.AntiBot.Quota, s.cfg.AntiBot.QuotaWindow, int(s.cfg.AntiBot.QuotaWindow/s.cfg.AntiBot.HumanGap)+1)
	total := max(tHost, tDepth, tParent)
	if s.hostCap > 0 {
		iv := time.Duration(float64(time.Second) / (s.hostCap * s.cfg.Scale))
		tCap := time.Duration(req-1)*iv + serve
		add("  (5) crawlconsole's own per-host cap (SPEC politeness, not a sandbox rule): %g/web s = one start per %v on a host:", s.hostCap, iv)
		add("      %d requests → %d·%v + s = %v", req, req-1, iv, tCap.Round(time.Millisecond))
		total = max(total, tCap)
	} else {
		add("  (5) per-host aggregate cap: the sandbox has none, and crawlconsole's host cap is off here")
	}
	add("  lower_bound_s = max of the above = %.3f s", total.Seconds())
	lb.total = total
	return lb
}

// priorArt is the seed's prior art: at most 3 threads per IP with timing control over
// a priority-sorted list, and no notion of adjacency.
type priorArt struct {
	s       bansSetup
	inScope func(string) bool
	ua      string

	mu     sync.Mutex
	wake   chan struct{} // closed and replaced when the list changes
	list   priorList
	seen   map[string]bool
	seq    int
	taken  int // items out of the list: being fetched, or refused and waiting to go back
	robots map[string]*priorRobots
}

type priorItem struct {
	url   string
	depth int
	seq   int
}

// priorList is the priority-sorted list: lowest depth first, then discovery order.
type priorList []priorItem

func (l priorList) less(i, j int) bool {
	if l[i].depth != l[j].depth {
		return l[i].depth < l[j].depth
	}
	return l[i].seq < l[j].seq
}

func (l *priorList) push(it priorItem) {
	*l = append(*l, it)
	h := *l
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (l *priorList) pop() priorItem {
	h := *l
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	*l = h
	return top
}

type priorRobots struct {
	ready chan struct{}
	group *robotstxt.Group
}

// bansPriorArt crawls a fresh sandbox with the prior art until every page is fetched
// or the cap is hit.
func bansPriorArt(s bansSetup) (bansResult, error) {
	sb, err := sandbox.Start(s.cfg)
	if err != nil {
		return bansResult{}, err
	}
	defer sb.Close()
	p := &priorArt{s: s, inScope: crawlInHosts(crawlHosts(sb)), ua: "priorart-bench/1.0",
		wake: make(chan struct{}), seen: map[string]bool{}, robots: map[string]*priorRobots{}}
	ctx, cancel := context.WithTimeout(context.Background(), s.capPrior)
	defer cancel()
	start := time.Now()
	p.add(crawlSeeds(sb), 0)
	var wg sync.WaitGroup
	for i, a := range bansAddrs {
		tr := crawlTransport(sb.DNSAddr(), netip.MustParseAddr(a))
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		for t := 0; t < 3; t++ {
			wg.Add(1)
			go func(seed uint64) {
				defer wg.Done()
				p.worker(ctx, client, rand.New(rand.NewPCG(seed, 0x9a17)))
			}(uint64(i*3 + t))
		}
	}
	wg.Wait()
	makespan := time.Since(start)
	capped := ctx.Err() != nil
	if capped {
		makespan = s.capPrior
	}
	acct := crawlAccountSince(sb, 0, 0)
	return bansResult{name: "priorart", makespan: makespan, capped: capped, acct: acct, web: sb.Web(),
		note: fmt.Sprintf("refused %d", acct.refused)}, nil
}

// add puts newly found in-scope URLs on the list. Caller does not hold p.mu.
func (p *priorArt) add(urls []string, depth int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, u := range urls {
		if p.seen[u] || !p.inScope(u) {
			continue
		}
		p.seen[u] = true
		p.seq++
		p.list.push(priorItem{url: u, depth: depth, seq: p.seq})
	}
	p.broadcast()
}

func (p *priorArt) broadcast() {
	close(p.wake)
	p.wake = make(chan struct{})
}

// next takes the list's first item, waiting while the list is empty but items are
// still out; ok=false when everything is done or ctx ended.
func (p *priorArt) next(ctx context.Context) (priorItem, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if ctx.Err() != nil {
			return priorItem{}, false
		}
		if len(p.list) > 0 {
			p.taken++
			return p.list.pop(), true
		}
		if p.taken == 0 {
			return priorItem{}, false
		}
		w := p.wake
		p.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
		}
		p.mu.Lock()
	}
}

// done returns an item's slot; requeue puts it back on the list (after a refusal).
func (p *priorArt) done(it priorItem, requeue bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.taken--
	if requeue {
		p.list.push(it)
	}
	p.broadcast()
}

// worker is one of the 3 threads of an IP: take the top of the list, fetch, pause.
func (p *priorArt) worker(ctx context.Context, client *http.Client, rng *rand.Rand) {
	pause := func() bool {
		d := p.s.lo + time.Duration(rng.Int64N(int64(p.s.hi-p.s.lo)+1))
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		it, ok := p.next(ctx)
		if !ok {
			return
		}
		u, err := url.Parse(it.url)
		if err != nil {
			p.done(it, false)
			continue
		}
		g, fetched := p.rules(ctx, client, u)
		if fetched && !pause() { // robots.txt was a request of this thread
			p.done(it, false)
			return
		}
		if g != nil && !g.Test(u.RequestURI()) {
			p.done(it, false)
			continue
		}
		links, refused, err := p.fetch(ctx, client, u)
		switch {
		case refused:
			// Timing control only: the URL goes back on the list after a back-off.
			time.AfterFunc(p.s.refusal, func() { p.done(it, true) })
		default:
			if err == nil {
				p.add(links, it.depth+1)
			}
			p.done(it, false)
		}
		if !pause() {
			return
		}
	}
}

// rules returns the host's robots.txt group; fetched tells that this call made the
// request (the first thread to need a host fetches it, the others wait for it).
func (p *priorArt) rules(ctx context.Context, client *http.Client, u *url.URL) (*robotstxt.Group, bool) {
	p.mu.Lock()
	r := p.robots[u.Host]
	if r != nil {
		p.mu.Unlock()
		select {
		case <-r.ready:
		case <-ctx.Done():
		}
		return r.group, false
	}
	r = &priorRobots{ready: make(chan struct{})}
	p.robots[u.Host] = r
	p.mu.Unlock()
	defer close(r.ready)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.Scheme+"://"+u.Host+"/robots.txt", nil)
	if err != nil {
		return nil, true
	}
	req.Header.Set("User-Agent", p.ua)
	resp, err := client.Do(req)
	if err != nil {
		return nil, true
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512<<10))
	if data, err := robotstxt.FromStatusAndBytes(resp.StatusCode, body); err == nil {
		r.group = data.FindGroup(p.ua)
	}
	return r.group, true
}

// fetch GETs a page; refused reports a ban or quota answer (403, 429, captcha page).
func (p *priorArt) fetch(ctx context.Context, client *http.Client, u *url.URL) ([]string, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("User-Agent", p.ua)
	resp, err := client.Do(req)
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 10<<20))
	if err != nil {
		return nil, false, err
	}
	switch {
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests:
		return nil, true, nil
	case resp.StatusCode != http.StatusOK:
		return nil, false, errors.New(resp.Status)
	case strings.Contains(strings.ToLower(string(body[:min(len(body), 4096)])), "verify you are human"):
		return nil, true, nil
	}
	return crawlPageLinks(resp.Request.URL, body), false, nil
}
