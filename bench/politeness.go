package main

// Benchmark "politeness": the same crawl under three pacing policies, judged by what
// the server went through. Goals: adaptive latency inflation <= 1.25 and
// <= autothrottle's; adaptive pages/s >= 0.9x fixed on healthy hosts;
// requests_while_throttled <= 10% of fixed's; 0 bans; cookie_rule_bans.with_jar = 0.
//
//	go run ./bench politeness [-scale 20] [-tscale 100] [-hosts 16] [-service 200ms] [-window 10s]
//	                          [-throttle 30s] [-cap 40s] [-tcap 45s] [-cookiecap 20s]
//
// Two sections, each run under every policy on a fresh sandbox with the same seed
// (faults, dead hosts and Crawl-delay off, anti-bot rule on with its defaults) with
// the sandbox's load model (sandbox.LoadConfig):
//   - load: web time ÷ -scale; a fragile section host on each of two sites, whose
//     latency is service ÷ (1 − busy), busy the share of the last -window its
//     requests kept a single server busy (a queueing server); the other hosts are
//     healthy. Until the crawl is done or -cap.
//   - throttle: web time ÷ -tscale; one section host answers 429 without Retry-After
//     for -throttle after its first page request, then recovers; every page of it is
//     seeded (as a revisit crawl would know them), so the crawler has work for it
//     throughout. The faster clock keeps the period 100 refusal back-offs long
//     (30 web s each) within a short run. Until done or -tcap.
//
// The crawler runs on one address (the direct route: on the egress route M3 rotation
// takes a refusing host off the address, a separate mechanism), 16 lanes, lane pause
// 1.1..1.3 × the human gap, 1 request per web second per host, refusal back-off 30
// web s, everything on the sandbox's clock but the latency cap (real time, like the
// sandbox's latencies). The policies:
//   - fixed: today's fixed pause and host cap alone (config.FixedPoliteness);
//   - autothrottle: fixed plus a Scrapy-AutoThrottle-like pacer (below), written
//     here and plugged in through config.Options.Pacer;
//   - adaptive: the new default (config.DefaultPoliteness, on the sandbox's clock).
//
// Figures, all from the sandbox's truth log: latency_inflation_p95 is the p95 of the
// fragile hosts' page latencies ÷ their idle service time; pages_per_s counts the
// healthy hosts' pages over the span of their requests; requests_while_throttled
// counts the requests the throttling hosts answered with their headerless 429;
// bans are the anti-bot rule's.
//
// The cookie section crawls a sandbox with the cookie rule on (an address that keeps
// fetching without returning its session cookie is banned) through two bind
// egresses, adaptive policy, with cookies off (without_jar) and on (with_jar, the
// default), each until done or -cookiecap; cookie_rule_bans counts the rule's bans.

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("politeness", runPoliteness) }

// politePolicies in the order they run and print.
var politePolicies = []string{"fixed", "autothrottle", "adaptive"}

// politeSetup is what every run shares.
type politeSetup struct {
	cfg       sandbox.Config
	scale     float64
	cap       time.Duration
	cookieCap time.Duration
	// throttleOnly: the throttle section, whose seeds are the throttling hosts' pages.
	throttleOnly bool
}

// politeResult is one policy's crawl as the sandbox saw it.
type politeResult struct {
	policy        string
	wall          time.Duration
	inflation     float64 // fragile hosts' p95 page latency ÷ idle service time
	fragileReqs   int
	healthyPages  int
	healthyRate   float64 // pages/s on healthy hosts
	throttledReqs int
	bans          int
	pages         int
}

func runPoliteness(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("politeness", flag.ContinueOnError)
	scale := fs.Float64("scale", 20, "sandbox time scale of the load section (web durations shrink by this)")
	tscale := fs.Float64("tscale", 100, "sandbox time scale of the throttle section")
	hosts := fs.Int("hosts", 16, "sandbox virtual hosts")
	service := fs.Duration("service", 200*time.Millisecond, "a fragile host's idle latency (real)")
	window := fs.Duration("window", 10*time.Second, "how far back a fragile host counts its load (real)")
	throttle := fs.Duration("throttle", 30*time.Second, "how long a throttling host answers 429 without Retry-After (real)")
	capRun := fs.Duration("cap", 40*time.Second, "stop a policy's load-section crawl after this long")
	tcap := fs.Duration("tcap", 45*time.Second, "stop a policy's throttle-section crawl after this long")
	cookieCap := fs.Duration("cookiecap", 20*time.Second, "stop a cookie-section crawl after this long")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	cfg := crawlSandboxConfig(*hosts, *scale)
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = 3, 30
	fragile, throttling, err := politeHostKinds(cfg)
	if err != nil {
		return nil, err
	}
	cfg.Load = sandbox.LoadConfig{FragileHosts: fragile, Service: *service, Window: *window}
	tcfg := crawlSandboxConfig(*hosts, *tscale)
	tcfg.Layout = cfg.Layout
	tcfg.Load = sandbox.LoadConfig{ThrottleHosts: throttling, ThrottleFor: *throttle}
	for _, c := range []sandbox.Config{cfg, tcfg} {
		if err := c.Validate(); err != nil {
			return nil, err
		}
	}
	s := politeSetup{cfg: cfg, scale: *scale, cap: *capRun, cookieCap: *cookieCap}
	ts := politeSetup{cfg: tcfg, scale: *tscale, cap: *tcap, throttleOnly: true}
	for _, x := range []politeSetup{s, ts} {
		gap := time.Duration(float64(x.cfg.AntiBot.HumanGap) / x.scale)
		what := fmt.Sprintf("load section: %d hosts, fragile ones (latency = %v ÷ (1 − busy over the last %v)): %v", *hosts, *service, *window, fragile)
		if x.throttleOnly {
			what = fmt.Sprintf("throttle section: every page of %v seeded; headerless 429 for %v after its first page request", throttling, *throttle)
		}
		fmt.Printf("politeness %s\n  scale %g (human gap %v real), one address, 16 lanes, lane pause %v..%v, host cap %g/s, refusal back-off %v; each run until done or %v\n",
			what, x.scale, gap, gap*11/10, gap*13/10, x.scale, time.Duration(float64(30*time.Second)/x.scale), x.cap)
	}
	fmt.Printf("  GOMAXPROCS %d, %s, load average %s\n\n", runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(1))

	results := map[string]politeResult{}
	for _, p := range politePolicies {
		r, err := politeRun(s, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		t, err := politeRun(ts, p)
		if err != nil {
			return nil, fmt.Errorf("%s, throttle section: %w", p, err)
		}
		r.throttledReqs, r.bans, r.wall = t.throttledReqs, r.bans+t.bans, r.wall+t.wall
		results[p] = r
		fmt.Printf("  done: %-12s %6.1f s\n", p, r.wall.Seconds())
	}
	cookieBans := map[string]int{}
	for _, jar := range []bool{false, true} {
		n, err := politeCookieRun(s, jar)
		if err != nil {
			return nil, fmt.Errorf("cookie section: %w", err)
		}
		cookieBans[map[bool]string{false: "without_jar", true: "with_jar"}[jar]] = n
	}

	fmt.Println()
	fmt.Printf("%-13s %9s %13s %14s %11s %10s %5s %7s\n", "policy", "fragile", "inflation p95", "healthy pages", "pages/s", "throttled", "bans", "wall s")
	for _, p := range politePolicies {
		r := results[p]
		fmt.Printf("%-13s %9d %13.3f %14d %11.2f %10d %5d %7.1f\n", p, r.fragileReqs, r.inflation, r.healthyPages, r.healthyRate, r.throttledReqs, r.bans, r.wall.Seconds())
	}
	fmt.Printf("\ncookie rule bans (two egresses, adaptive): without a jar %d, with the jar per (egress, site) %d\n", cookieBans["without_jar"], cookieBans["with_jar"])

	per := func(f func(politeResult) float64, digits int) map[string]float64 {
		out := map[string]float64{}
		for _, p := range politePolicies {
			out[p] = crawlRound(f(results[p]), digits)
		}
		return out
	}
	fix, at, ad := results["fixed"], results["autothrottle"], results["adaptive"]
	rateRatio := ad.healthyRate / fix.healthyRate
	thrRatio := float64(ad.throttledReqs) / math.Max(1, float64(fix.throttledReqs))
	goals := map[string]bool{
		"inflation_le_1_25":         ad.inflation <= 1.25,
		"inflation_le_autothrottle": ad.inflation <= at.inflation,
		"pages_per_s_ge_0_9_fixed":  rateRatio >= 0.9,
		"throttled_le_10pct_fixed":  thrRatio <= 0.1,
		"zero_bans":                 fix.bans+at.bans+ad.bans == 0,
		"cookie_bans_with_jar_zero": cookieBans["with_jar"] == 0,
	}
	fmt.Printf("adaptive vs fixed: healthy pages/s ×%.3f, requests while throttled ×%.3f\n", rateRatio, thrRatio)
	return map[string]any{
		"latency_inflation_p95":    per(func(r politeResult) float64 { return r.inflation }, 3),
		"pages_per_s":              per(func(r politeResult) float64 { return r.healthyRate }, 2),
		"requests_while_throttled": per(func(r politeResult) float64 { return float64(r.throttledReqs) }, 0),
		"bans":                     per(func(r politeResult) float64 { return float64(r.bans) }, 0),
		"cookie_rule_bans":         cookieBans,
		"pages_per_s_ratio":        crawlRound(rateRatio, 3),
		"throttled_ratio":          crawlRound(thrRatio, 3),
		"goals_met":                goals,
		"load":                     loadAvg(1),
	}, nil
}

// politeHostKinds picks the load-aware hosts: the first section host of the first
// two sites is fragile, that of the third site throttles; the rest are healthy.
func politeHostKinds(cfg sandbox.Config) (fragile, throttling []string, err error) {
	sites := sandbox.NewWeb(cfg).Sites()
	if len(sites) < 4 {
		return nil, nil, fmt.Errorf("the sandbox has %d sites; the bench needs at least 4 (raise -hosts)", len(sites))
	}
	for i, s := range sites[:3] {
		if len(s.Hosts) < 2 {
			return nil, nil, fmt.Errorf("site %s has no section host", s.Domain)
		}
		if i < 2 {
			fragile = append(fragile, s.Hosts[1])
		} else {
			throttling = append(throttling, s.Hosts[1])
		}
	}
	return fragile, throttling, nil
}

// politeOptions are the crawl settings of every run: the sandbox's DNS, loopback
// allowed, the direct route, everything on the sandbox's clock.
func politeOptions(s politeSetup, sb *sandbox.Sandbox, db string) config.Options {
	gap := time.Duration(float64(s.cfg.AntiBot.HumanGap) / s.scale)
	o := config.DefaultOptions()
	o.Seeds = crawlSeeds(sb)
	o.DB = db
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = 16
	o.Lanes.DelayMin, o.Lanes.DelayMax = gap*11/10, gap*13/10
	o.HostRate = s.scale
	o.Fetch.Timeout, o.Fetch.ConnectTimeout = 5*time.Second, 2*time.Second
	o.Fetch.RetryBackoff = 200 * time.Millisecond
	o.Fetch.RefusalBackoff = time.Duration(float64(30*time.Second) / s.scale)
	o.DNS.MinTTL = time.Second
	o.Politeness = o.Politeness.Scaled(s.scale)
	// The sandbox's latencies are real time (a network property, not scaled), so the
	// cap on the latency term stays in real time too: scaled, 30 s would be 0.3 s
	// here and cut delay_factor × a fragile host's 0.1 s latency short.
	o.Politeness.MaxDelay = config.DefaultPoliteness().MaxDelay
	o.Revisit.Enabled = false
	return o
}

// politeRun crawls a fresh sandbox under one policy and reads the truth log.
func politeRun(s politeSetup, policy string) (politeResult, error) {
	sb, err := sandbox.Start(s.cfg)
	if err != nil {
		return politeResult{}, err
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "bench-polite-")
	if err != nil {
		return politeResult{}, err
	}
	defer os.RemoveAll(dir)
	o := politeOptions(s, sb, filepath.Join(dir, "crawl.db"))
	if s.throttleOnly {
		o.Seeds = nil
		for _, p := range sb.Web().Pages() {
			if sb.Throttling(p.Host) && (p.Kind == "article" || p.Kind == "listing") {
				o.Seeds = append(o.Seeds, p.URL)
			}
		}
	}
	switch policy {
	case "fixed":
		o.Politeness = config.FixedPoliteness()
	case "autothrottle":
		o.Politeness = config.FixedPoliteness()
		o.Pacer = newAutoThrottle(o.Lanes.DelayMin, time.Duration(float64(5*time.Second)/s.scale), time.Duration(float64(60*time.Second)/s.scale))
	}
	start := time.Now()
	if err := politeCrawl(o, s.cap); err != nil {
		return politeResult{}, err
	}
	r := politeResult{policy: policy, wall: time.Since(start), bans: len(sb.Truth().Bans())}
	var lat []float64
	var first, last time.Time
	for _, q := range sb.Truth().Requests() {
		if q.Throttled {
			r.throttledReqs++
		}
		if q.Kind == sandbox.KindRobots || q.Status != 200 || q.Banned {
			continue
		}
		r.pages++
		switch {
		case sb.Fragile(q.Host):
			lat = append(lat, float64(q.End.Sub(q.Start))/float64(s.cfg.Load.Service))
		case !sb.Throttling(q.Host):
			r.healthyPages++
			if first.IsZero() || q.Start.Before(first) {
				first = q.Start
			}
			if q.End.After(last) {
				last = q.End
			}
		}
	}
	r.fragileReqs = len(lat)
	r.inflation = politeP95(lat)
	if os.Getenv("POLITE_DEBUG") != "" {
		fmt.Printf("  %s fragile latency ÷ service, sorted: %.2f\n", policy, lat)
	}
	if d := last.Sub(first).Seconds(); d > 0 {
		r.healthyRate = float64(r.healthyPages) / d
	}
	return r, nil
}

// politeCookieRun crawls a sandbox with the cookie rule on through two egresses and
// counts the rule's bans.
func politeCookieRun(s politeSetup, jar bool) (int, error) {
	cfg := s.cfg
	cfg.Load = sandbox.LoadConfig{CookieRule: true}
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = 2, 12
	sb, err := sandbox.Start(cfg)
	if err != nil {
		return 0, err
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "bench-polite-cookie-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	o := politeOptions(politeSetup{cfg: cfg, scale: s.scale}, sb, filepath.Join(dir, "crawl.db"))
	o.Egress = []string{"bind:127.0.0.2", "bind:127.0.0.3"}
	o.Rotation.PerNode = 0
	o.Rotation.DisableFor = time.Duration(float64(o.Rotation.DisableFor) / s.scale)
	o.Rotation.PairBanFor = time.Duration(float64(o.Rotation.PairBanFor) / s.scale)
	o.Cookies.Enabled = jar
	if err := politeCrawl(o, s.cookieCap); err != nil {
		return 0, err
	}
	n := 0
	for _, b := range sb.Truth().Bans() {
		if b.Reason == sandbox.BanCookie {
			n++
		}
	}
	return n, nil
}

// politeCrawl runs one crawl until it is done or the cap.
func politeCrawl(o config.Options, limit time.Duration) error {
	e, err := engine.New(o)
	if err != nil {
		return err
	}
	if err := e.Start(); err != nil {
		e.Close()
		return err
	}
	select {
	case <-e.Done():
	case <-time.After(limit):
	}
	return e.Close()
}

// politeP95 is the 95th percentile of xs (nearest rank); 0 for none.
func politeP95(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	return xs[int(math.Ceil(0.95*float64(len(xs))))-1]
}

// autoThrottle is the baseline: Scrapy's AutoThrottle extension
// (scrapy/extensions/throttle.py, AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0), per host.
// After each response: target = latency ÷ target concurrency; new delay = max(target,
// (delay + target) ÷ 2), clamped to [min delay, max delay]; a non-200 answer may
// raise the delay but never lower it. Scrapy's delay runs from the start of one
// request to the start of the next, so the gap it asks of the gate (which measures
// from the end of the response) is the delay less the last latency.
type autoThrottle struct {
	target            float64
	start, minD, maxD time.Duration
	mu                sync.Mutex
	slots             map[string]*throttleSlot
}

type throttleSlot struct{ delay, last time.Duration }

func newAutoThrottle(minD, start, maxD time.Duration) *autoThrottle {
	return &autoThrottle{target: 1, start: start, minD: minD, maxD: maxD, slots: map[string]*throttleSlot{}}
}

func (a *autoThrottle) slot(host string) *throttleSlot {
	s := a.slots[host]
	if s == nil {
		s = &throttleSlot{delay: a.start}
		a.slots[host] = s
	}
	return s
}

// Observe implements lanes.Pacer.
func (a *autoThrottle) Observe(host string, r lanes.Response, latency time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.slot(host)
	target := time.Duration(float64(latency) / a.target)
	nd := max(target, (s.delay+target)/2)
	nd = min(max(a.minD, nd), a.maxD)
	s.last = latency
	if r.Status != 200 && nd <= s.delay {
		return
	}
	s.delay = nd
}

// Gap implements lanes.Pacer.
func (a *autoThrottle) Gap(host string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.slot(host)
	return max(0, s.delay-s.last)
}
