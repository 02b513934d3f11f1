package main

// Benchmark "egress": egress rotation (M3, issue 6) on a web whose sites refuse
// clients per (IP, host) — an adjacency ban (seed 000's anti-bot rule) and a request
// quota — crawled from 4 egresses by three contenders:
//
//	go run ./bench egress [-d 60s] [-scale 20] [-hosts 8] [-listings 10] [-articles 60]
//	                      [-quota 30] [-quota-window 5m] [-lanes 24] [-seed 1]
//	                      [-only crawlconsole|roundrobin|rotating]
//
//   - crawlconsole: the engine as is (M1 lanes bound to egress addresses, M3 rotation:
//     classifier, (egress, host) pair bans, host_disable_list), with the demo's settings
//     (cli.DemoOptions: PairBanFor 30 web min, DisableFor 2 web h, refusal back-off
//     30 web s), lanes.max = -lanes;
//   - round-robin: colly's proxy switcher (proxy.RoundRobinProxySwitcher): request n
//     leaves through egress n mod 4, whatever the answer; a non-2xx answer or an error
//     (colly's OnError) sends the URL back to the queue, at most 5 times; a ban page
//     served with 200 is taken for a page. The egresses are bind addresses, which
//     colly's proxy switcher cannot express (it takes proxy URLs, and SetProxyFunc turns
//     keep-alive off), so this is a minimal fetch loop with one keep-alive transport per
//     egress: the baseline keeps connection reuse colly would lose;
//   - rotating: scrapy-rotating-proxies' defaults: a random egress among the good and
//     unchecked ones per request; a response whose status is not 200/301/302 (or a 200
//     with an empty body, or an error) is a ban and marks that egress dead — for every
//     host — for uniform(0, min(3600 s, 300 s·2^n)) (n = its failures in a row;
//     "full jitter", as the library does), time-scaled by the sandbox Scale; dead ones
//     come back when their time is up (checked every 5 web s); when none is alive all
//     are reset; a banned URL is retried on another egress up to 5 times
//     (ROTATING_PROXY_PAGE_RETRY_TIMES).
//
// Same politeness for all three, so the comparison is about rotation: one lane (engine)
// or worker (baselines) fetches serially and pauses uniform [1.25·G, 3·G] after each
// request (G = HumanGap in real time; the demo's lane pauses), -lanes of them at most,
// and each host gets at most 1 request per web second across all egresses (the demo's
// host cap; the baselines get the same per-host gate). robots.txt is honoured by all.
// Each contender gets a fresh sandbox (same seed, so the same web) so that the truth
// logs are separate, and crawls for -d real time from the sites' entry pages.
//
// Figures. Pages are distinct URLs the sandbox answered with a real page (its truth
// log: status 200 and not a ban page), whatever the crawler thought. Crawl hours are
// web hours (real window × Scale). ban_recall: of the sandbox's bans (Truth.Bans) of
// crawlconsole's (egress IP, host) pairs, the share its rotation flagged (a pair ban set
// after the ban began and before it ended) with at most 3 requests on the pair after
// the ban's first one. ban_precision: of the pair bans the rotation set, the share set
// while the sandbox was refusing that pair — see egressDetect for the two kinds of
// refusal (ban, quota 429) and the strict figure counting bans only.

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

	"github.com/temoto/robotstxt"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("egress", runEgress) }

// egressAddrs are the four egresses: local source addresses the sandbox sees as four
// client IPs (the demo's bind egresses).
var egressAddrs = []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}

// egressMaxRetries is how often a baseline sends a refused URL back (scrapy-rotating-
// proxies' ROTATING_PROXY_PAGE_RETRY_TIMES; the same for the colly-style loop).
const egressMaxRetries = 5

// egressSetup is what every contender of one run shares.
type egressSetup struct {
	cfg     sandbox.Config
	window  time.Duration // real crawl time per contender
	lo, hi  time.Duration // pause after each request of a lane / worker (real)
	hostGap time.Duration // per-host aggregate gap (real): 1 request per web second
	lanes   int
}

// egressRun is one contender's crawl as the sandbox saw it.
type egressRun struct {
	name       string
	start, end time.Time         // the crawl window
	dry        time.Time         // when the crawler ran out of work, zero if it never did
	reqs       []sandbox.Request // truth: requests that started inside the window
	bans       []sandbox.Ban     // truth: bans that began inside the window
	flags      []egressFlag      // crawlconsole: pair bans its rotation set
	kept       int64             // pages the crawler itself kept
	note       string
}

// egressFlag is one pair ban of the rotation, its egress given as the IP it leaves from.
type egressFlag struct {
	ip, host  string
	at, until time.Time
}

// egressFigures are one contender's figures from the truth log.
type egressFigures struct {
	requests, pages, bans int
	bannedReqs            int // sent on a pair while the sandbox banned it (after the ban's first request)
	limitedReqs           int // answered 429 by the quota
	hours                 float64
	perEgressHour         float64
}

func runEgress(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("egress", flag.ContinueOnError)
	window := fs.Duration("d", 60*time.Second, "real crawl time per contender")
	scale := fs.Float64("scale", 20, "sandbox time scale: web durations shrink by this in real time")
	hosts := fs.Int("hosts", 24, "sandbox virtual hosts")
	social := fs.Float64("social", 0.5, "share of sites after the fifth that are social (the fifth always is)")
	listings := fs.Int("listings", 8, "listing pages per section host")
	articles := fs.Int("articles", 40, "articles per listing page")
	quota := fs.Int("quota", 100, "requests one IP may make to one host per quota window")
	quotaWin := fs.Duration("quota-window", time.Hour, "quota window (web time)")
	searchQuota := fs.Int("search-quota", 6, "searches one IP may make on a social site per 10 web min; one more bans it")
	lanesN := fs.Int("lanes", 24, "lanes.max of crawlconsole = workers of each baseline")
	seed := fs.Int64("seed", 1, "sandbox seed")
	only := fs.String("only", "", "run only crawlconsole, roundrobin or rotating")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch *only {
	case "", "crawlconsole", "roundrobin", "rotating":
	default:
		return nil, fmt.Errorf("-only %q: want crawlconsole, roundrobin or rotating", *only)
	}
	if *window <= 0 || *lanesN < 1 {
		return nil, errors.New("-d and -lanes must be positive")
	}
	cfg := crawlSandboxConfig(*hosts, *scale)
	cfg.Seed = *seed
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = *listings, *articles
	cfg.Layout.SocialShare = *social
	cfg.AntiBot.Quota, cfg.AntiBot.QuotaWindow = *quota, *quotaWin
	cfg.Search.Quota, cfg.Search.BanShare = *searchQuota, 1
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	gap := egressReal(cfg.AntiBot.HumanGap, *scale)
	s := egressSetup{cfg: cfg, window: *window, lo: gap * 5 / 4, hi: gap * 3,
		hostGap: egressReal(time.Second, *scale), lanes: *lanesN}

	ab := cfg.AntiBot
	web := sandbox.NewWeb(cfg)
	reach := egressReachable(web)
	nSocial := 0
	for _, site := range web.Sites() {
		if site.Search != "" {
			nSocial++
		}
	}
	searches := nSocial * cfg.Layout.Keywords * cfg.Search.PagesPerKeyword
	reach += searches
	fmt.Printf("egress: sandbox of %d hosts in %d sites (%d social), %d pages reachable from the seeds; scale %g (1 real s = %g web s)\n",
		*hosts, len(web.Sites()), nSocial, reach, *scale, *scale)
	fmt.Printf("  seeds: every entry page, and on social sites %d keywords × %d search result pages (SPEC M3: social sites are crawled through their search)\n",
		cfg.Layout.Keywords, cfg.Search.PagesPerKeyword)
	fmt.Printf("  anti-bot rule on: > %d adjacency violations (gap < %v web) in %v web ban the IP from the host for %v web (%v real)\n",
		ab.MaxViolations, ab.HumanGap, ab.Window, ab.BanFor, egressReal(ab.BanFor, *scale))
	fmt.Printf("  quota: %d requests per (IP, host) per %v web (%v real), then 429 with Retry-After; faults off\n",
		ab.Quota, ab.QuotaWindow, egressReal(ab.QuotaWindow, *scale))
	fmt.Printf("  search quota: %d searches per (IP, social site) per %v web; the next one bans the IP from the site's www host for %v web\n",
		cfg.Search.Quota, cfg.Search.QuotaWindow, ab.BanFor)
	fmt.Printf("  4 egresses bind:%s; each contender crawls %v real = %.2f web h from a fresh sandbox\n",
		strings.Join(egressAddrs, ", bind:"), *window, window.Seconds()**scale/3600)
	fmt.Printf("  politeness for all: ≤ %d lanes/workers, pause %v..%v after each request, ≤ 1 request per web s per host\n",
		s.lanes, s.lo, s.hi)
	fmt.Printf("  GOMAXPROCS %d, %s, load average %s\n\n", runtime.GOMAXPROCS(0), runtime.Version(), sandboxLoadAverage())

	contenders := []struct {
		name string
		run  func(egressSetup) (egressRun, error)
	}{
		{"crawlconsole", egressCrawlconsole},
		{"roundrobin", func(s egressSetup) (egressRun, error) { return egressBaseline(s, "roundrobin", &roundRobin{}) }},
		{"rotating", func(s egressSetup) (egressRun, error) {
			return egressBaseline(s, "rotating", newRotatingProxies(s.cfg.Scale))
		}},
	}
	runs := map[string]egressRun{}
	figs := map[string]egressFigures{}
	var order []string
	for _, c := range contenders {
		if *only != "" && *only != c.name {
			continue
		}
		r, err := c.run(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		runs[c.name], figs[c.name] = r, egressFiguresOf(r, *scale, reach)
		order = append(order, c.name)
		dry := ""
		if !r.dry.IsZero() {
			dry = fmt.Sprintf(", ran out of work after %.1f s", r.dry.Sub(r.start).Seconds())
		}
		fmt.Printf("  done: %-12s %d pages in %.0f s%s\n", c.name, figs[c.name].pages, r.end.Sub(r.start).Seconds(), dry)
	}

	fmt.Println()
	fmt.Printf("%-44s %6s %8s %12s %5s %11s %9s  %s\n", "contender", "pages", "requests", "pages/egr·h", "bans", "banned-pair", "quota-429", "notes")
	for _, n := range order {
		f, r := figs[n], runs[n]
		fmt.Printf("%-44s %6d %8d %12.1f %5d %10.2f%% %8.2f%%  %s\n", egressLabel(n), f.pages, f.requests, f.perEgressHour,
			f.bans, 100*egressShare(f.bannedReqs, f.requests), 100*egressShare(f.limitedReqs, f.requests), r.note)
	}
	fmt.Println("  pages: distinct URLs answered with a real page (sandbox truth); pages/egr·h: pages ÷ (4 egresses × web hours of the window)")
	fmt.Println("  banned-pair: requests sent on an (IP, host) pair the sandbox had banned, after the ban's first request; quota-429: requests past the quota")

	out := map[string]any{"scale": *scale, "hosts": *hosts, "window_s": window.Seconds(), "quota": *quota,
		"quota_window_web_s": quotaWin.Seconds(), "lanes": s.lanes, "hours": "web"}
	if r, ok := runs["crawlconsole"]; ok {
		f := figs["crawlconsole"]
		d := egressDetect(r)
		fmt.Println()
		d.print()
		out["ban_precision"] = crawlRound(d.precision(), 4)
		out["ban_precision_bans_only"] = crawlRound(d.precisionBansOnly(), 4)
		out["ban_recall"] = crawlRound(d.recall(), 4)
		out["banned_pair_request_share"] = crawlRound(egressShare(f.bannedReqs, f.requests), 5)
		out["pages_per_egress_hour"] = crawlRound(f.perEgressHour, 1)
		out["sandbox_bans"] = f.bans
		out["pairs_flagged"] = len(r.flags)
		fmt.Println()
		fmt.Printf("ban_precision             = %.4f   (goal ≥ 0.99; bans only: %.4f)\n", d.precision(), d.precisionBansOnly())
		fmt.Printf("ban_recall                = %.4f   (goal ≥ 0.95; %d of %d sandbox bans)\n", d.recall(), d.detected, len(d.bans))
		fmt.Printf("banned_pair_request_share = %.5f  (goal ≤ 0.01; %d of %d requests)\n", egressShare(f.bannedReqs, f.requests), f.bannedReqs, f.requests)
		fmt.Printf("pages_per_egress_hour     = %.1f (web hours)\n", f.perEgressHour)
	}
	for _, b := range []struct{ name, field string }{{"roundrobin", "roundrobin_pages_per_egress_hour"}, {"rotating", "rotating_pages_per_egress_hour"}} {
		if f, ok := figs[b.name]; ok {
			out[b.field] = crawlRound(f.perEgressHour, 1)
			if cc, ok := figs["crawlconsole"]; ok {
				fmt.Printf("%-25s = %.1f   (crawlconsole ÷ it = %.2f; goal > 1)\n", b.field, f.perEgressHour, cc.perEgressHour/math.Max(f.perEgressHour, 1e-9))
			} else {
				fmt.Printf("%-25s = %.1f\n", b.field, f.perEgressHour)
			}
		}
	}
	return out, nil
}

func egressLabel(name string) string {
	switch name {
	case "crawlconsole":
		return "crawlconsole (M1 lanes + M3 rotation)"
	case "roundrobin":
		return "round-robin (colly proxy switcher)"
	case "rotating":
		return "random + exp. backoff (scrapy-rotating-proxies)"
	}
	return name
}

func egressReal(d time.Duration, scale float64) time.Duration {
	return time.Duration(float64(d) / scale)
}

func egressShare(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// egressSeeds are every site's entry page and, on social sites, the search result
// pages of each keyword (SPEC M3: social sites are queried through their search URL
// template with each keyword): the same list for every contender.
func egressSeeds(sb *sandbox.Sandbox) []string {
	seeds := crawlSeeds(sb)
	pages := sb.Config().Search.PagesPerKeyword
	for _, site := range sb.Info().Sites {
		if site.Search == "" {
			continue
		}
		for _, kw := range site.Keywords {
			for p := 1; p <= pages; p++ {
				seeds = append(seeds, strings.NewReplacer("{keyword}", url.QueryEscape(kw), "{page}", strconv.Itoa(p)).Replace(site.Search))
			}
		}
	}
	return seeds
}

// egressReachable counts the pages reachable by links from the entry pages that
// robots.txt allows: what a crawl of the whole web fetches.
func egressReachable(w *sandbox.Web) int {
	pages := w.Pages()
	byURL := make(map[string]sandbox.PageInfo, len(pages))
	for _, p := range pages {
		byURL[p.URL] = p
	}
	memo := map[string]bool{}
	var reachable func(u string, depth int) bool
	reachable = func(u string, depth int) bool {
		if v, ok := memo[u]; ok {
			return v
		}
		p := byURL[u]
		v := p.Kind == sandbox.KindEntry
		if p.Parent != "" && depth < 1000 {
			v = reachable(p.Parent, depth+1)
		}
		memo[u] = v
		return v
	}
	n := 0
	for _, p := range pages {
		if !p.Disallowed && p.Kind != sandbox.KindDead && reachable(p.URL, 0) {
			n++
		}
	}
	return n
}

// egressFiguresOf reads one run's figures from its truth log.
func egressFiguresOf(r egressRun, scale float64, reach int) egressFigures {
	f := egressFigures{requests: len(r.reqs), bans: len(r.bans)}
	triggers := map[string]bool{}
	for _, b := range r.bans {
		triggers[b.IP+" "+b.Host+" "+b.At.String()] = true
	}
	urls := map[string]bool{}
	for _, q := range r.reqs {
		switch {
		case q.Banned:
			if !triggers[q.IP+" "+q.Host+" "+q.Start.String()] {
				f.bannedReqs++
			}
		case q.Limited:
			f.limitedReqs++
		case q.Status == http.StatusOK && q.Kind != sandbox.KindRobots:
			urls[q.URL] = true
		}
	}
	f.pages = len(urls)
	// The egresses are the crawler's for the whole window, used or not; only a crawl
	// that fetched the whole web is timed to when it ran dry.
	span := r.end.Sub(r.start)
	if !r.dry.IsZero() && f.pages >= reach {
		span = r.dry.Sub(r.start)
	}
	f.hours = span.Seconds() * scale / 3600
	if f.hours > 0 {
		f.perEgressHour = float64(f.pages) / (float64(len(egressAddrs)) * f.hours)
	}
	return f
}

// truthWindow keeps the requests and bans of a sandbox that began inside [start, end).
func truthWindow(sb *sandbox.Sandbox, start, end time.Time) ([]sandbox.Request, []sandbox.Ban) {
	var reqs []sandbox.Request
	for _, q := range sb.Truth().Requests() {
		if q.Start.Before(end) {
			reqs = append(reqs, q)
		}
	}
	var bans []sandbox.Ban
	for _, b := range sb.Truth().Bans() {
		if b.At.Before(end) {
			bans = append(bans, b)
		}
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Start.Before(reqs[j].Start) })
	return reqs, bans
}

// egressEngineOptions are the demo's crawl settings (cli.DemoOptions, repeated here so
// that this benchmark does not depend on the CLI package): the sandbox's DNS, loopback
// allowed, the four bind egresses all on the node, rotation times and lane pauses
// scaled like the sandbox's clock, 1 request per web second per host.
func egressEngineOptions(s egressSetup, sb *sandbox.Sandbox, db string) engine.Options {
	scale := s.cfg.Scale
	o := engine.DefaultOptions()
	o.Seeds = egressSeeds(sb)
	o.DB = db
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	for _, a := range egressAddrs {
		o.Egress = append(o.Egress, "bind:"+a)
	}
	o.Rotation.PerNode = 0 // all four at once: lanes are per address (M1)
	o.Rotation.DisableFor = egressReal(2*time.Hour, scale)
	o.Rotation.PairBanFor = egressReal(30*time.Minute, scale)
	o.Lanes.Max = s.lanes
	o.Lanes.DelayMin, o.Lanes.DelayMax = s.lo, s.hi
	o.HostRate = scale
	o.Fetch.Timeout = 5 * time.Second
	o.Fetch.ConnectTimeout = 2 * time.Second
	o.Fetch.RetryBackoff = 200 * time.Millisecond
	o.Fetch.RefusalBackoff = egressReal(30*time.Second, scale)
	o.DNS.MinTTL = time.Second
	o.DNS.MaxTTL = egressReal(6*time.Hour, scale)
	return o
}

// egressCrawlconsole crawls a fresh sandbox with the engine for the window, reading
// the rotation's pair bans from its snapshots (Snapshot().Egress.PairBans) every
// 100 ms: a pair ban lasts PairBanFor (90 s real at scale 20), so none is missed.
func egressCrawlconsole(s egressSetup) (egressRun, error) {
	sb, err := sandbox.Start(s.cfg)
	if err != nil {
		return egressRun{}, err
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "bench-egress-")
	if err != nil {
		return egressRun{}, err
	}
	defer os.RemoveAll(dir)
	e, err := engine.New(egressEngineOptions(s, sb, filepath.Join(dir, "crawl.db")))
	if err != nil {
		return egressRun{}, err
	}
	type flagKey struct {
		egress, host string
		at           time.Time
	}
	flags := map[flagKey]egress.PairBan{}
	ipOf := map[string]string{}
	poll := func() {
		v := e.Snapshot().Egress
		if v == nil {
			return
		}
		for _, row := range v.Egresses {
			ipOf[row.Name] = strings.TrimPrefix(row.Address, "bind:")
		}
		for _, pb := range v.PairBans {
			flags[flagKey{pb.Egress, pb.Host, pb.At}] = pb
		}
	}
	start := time.Now()
	if err := e.Start(); err != nil {
		e.Close()
		return egressRun{}, err
	}
	end := start.Add(s.window)
	var dry time.Time
	tick := time.NewTicker(100 * time.Millisecond)
	timer := time.NewTimer(s.window)
wait:
	for {
		select {
		case <-tick.C:
			poll()
		case <-e.Done():
			dry = time.Now()
			break wait
		case <-timer.C:
			break wait
		}
	}
	tick.Stop()
	timer.Stop()
	poll()
	st := e.Stats()
	if err := e.Close(); err != nil {
		return egressRun{}, err
	}
	r := egressRun{name: "crawlconsole", start: start, end: end, dry: dry, kept: st.PagesStored}
	r.reqs, r.bans = truthWindow(sb, start, end)
	for _, pb := range flags {
		if pb.At.Before(end) {
			r.flags = append(r.flags, egressFlag{ip: ipOf[pb.Egress], host: pb.Host, at: pb.At, until: pb.Until})
		}
	}
	var rot, dis int64
	if st.Egress != nil {
		rot, dis = st.Egress.Rotations, st.Egress.HostsDisabled
	}
	r.note = fmt.Sprintf("stored %d, refused %d, rotations %d, hosts disabled %d, URLs deferred %d, lanes peak %d",
		st.PagesStored, st.Refused, rot, dis, st.Deferred, st.LanesPeak)
	return r, nil
}

// egressDetection compares the rotation's pair bans with the sandbox's refusals.
type egressDetection struct {
	bans     []sandbox.Ban
	detected int
	missed   []string // why, for the first few bans not detected
	// flags by what the sandbox was doing to the pair when the rotation set them
	flags, flagsBanned, flagsQuota, flagsOther int
	other                                      []string // the first few flags with no refusal behind them
}

// egressDetect scores crawlconsole's rotation against the sandbox's truth.
//
// Recall: a sandbox ban (Truth.Bans) of one of crawlconsole's (IP, host) pairs is
// detected when the rotation set a pair ban on that egress and host after the ban
// began and before it ended, and at most 3 requests went to the pair after the one
// that drew the ban, while it lasted (inside the window).
//
// Precision: a pair ban of the rotation is right when the sandbox was refusing the
// pair when it was set: inside one of its bans, or — the sandbox's other per-pair
// refusal — past its quota (the last request on the pair before the flag was answered
// 429 by the quota, Request.Limited). The quota is not a ban in Truth.Bans, so the
// strict figure ("bans only") counts quota flags as wrong.
func egressDetect(r egressRun) egressDetection {
	type pair struct{ ip, host string }
	byPair := map[pair][]sandbox.Request{}
	for _, q := range r.reqs {
		k := pair{q.IP, q.Host}
		byPair[k] = append(byPair[k], q) // r.reqs is sorted by start
	}
	flagsOf := map[pair][]egressFlag{}
	for _, f := range r.flags {
		flagsOf[pair{f.ip, f.host}] = append(flagsOf[pair{f.ip, f.host}], f)
	}
	bansOf := map[pair][]sandbox.Ban{}
	d := egressDetection{bans: r.bans, flags: len(r.flags)}
	for _, b := range r.bans {
		k := pair{b.IP, b.Host}
		bansOf[k] = append(bansOf[k], b)
		flagged := false
		for _, f := range flagsOf[k] {
			if !f.at.Before(b.At) && f.at.Before(b.Until) {
				flagged = true
				break
			}
		}
		after, stop := 0, b.Until
		if r.end.Before(stop) {
			stop = r.end
		}
		for _, q := range byPair[k] {
			if q.Start.After(b.At) && q.Start.Before(stop) {
				after++
			}
		}
		if flagged && after <= 3 {
			d.detected++
		} else if len(d.missed) < 5 {
			d.missed = append(d.missed, fmt.Sprintf("%s from %s at +%.1fs (%s): flagged %v, %d requests on the pair after it",
				b.IP, b.Host, b.At.Sub(r.start).Seconds(), b.Reason, flagged, after))
		}
	}
	for _, f := range r.flags {
		k := pair{f.ip, f.host}
		banned := false
		for _, b := range bansOf[k] {
			if !f.at.Before(b.At) && f.at.Before(b.Until) {
				banned = true
				break
			}
		}
		if banned {
			d.flagsBanned++
			continue
		}
		var last *sandbox.Request
		for i, q := range byPair[k] {
			if q.Start.After(f.at) {
				break
			}
			last = &byPair[k][i]
		}
		if last != nil && last.Limited {
			d.flagsQuota++
			continue
		}
		d.flagsOther++
		if len(d.other) < 5 {
			what := "no request on the pair before it"
			if last != nil {
				what = fmt.Sprintf("last answer on the pair: %d %s", last.Status, last.URL)
			}
			d.other = append(d.other, fmt.Sprintf("%s/%s at +%.1fs: %s", f.ip, f.host, f.at.Sub(r.start).Seconds(), what))
		}
	}
	return d
}

func (d egressDetection) recall() float64 {
	if len(d.bans) == 0 {
		return 1
	}
	return float64(d.detected) / float64(len(d.bans))
}

func (d egressDetection) precision() float64 {
	if d.flags == 0 {
		return 1
	}
	return float64(d.flagsBanned+d.flagsQuota) / float64(d.flags)
}

func (d egressDetection) precisionBansOnly() float64 {
	if d.flags == 0 {
		return 1
	}
	return float64(d.flagsBanned) / float64(d.flags)
}

func (d egressDetection) print() {
	fmt.Println("crawlconsole's rotation against the sandbox's truth:")
	fmt.Printf("  sandbox bans of its (IP, host) pairs: %d; flagged by a pair ban with ≤ 3 requests after the ban began: %d\n",
		len(d.bans), d.detected)
	for _, m := range d.missed {
		fmt.Printf("    missed: %s\n", m)
	}
	fmt.Printf("  pair bans set by the rotation: %d; while the sandbox banned the pair: %d; while past its quota (429): %d; neither: %d\n",
		d.flags, d.flagsBanned, d.flagsQuota, d.flagsOther)
	for _, o := range d.other {
		fmt.Printf("    unfounded: %s\n", o)
	}
}

// egressPolicy is a baseline's choice of egress and its reading of the answers.
type egressPolicy interface {
	// pick returns the egress (index into egressAddrs) for the next request.
	pick() int
	// observe reports the answer to a request through egress i (status 0 on error)
	// and says whether the URL goes back to the queue for another try.
	observe(i, status, bodyLen int, err error) (retry bool)
}

// roundRobin is colly's RoundRobinProxySwitcher: the next egress in turn, always.
type roundRobin struct{ n atomic.Uint32 }

func (r *roundRobin) pick() int { return int((r.n.Add(1) - 1) % uint32(len(egressAddrs))) }

// observe: colly calls OnError for an error or a status ≥ 203 (unless
// ParseHTTPErrorResponse); the usual OnError handler retries the request.
func (r *roundRobin) observe(_, status, _ int, err error) bool { return err != nil || status >= 203 }

// rotatingProxies is scrapy-rotating-proxies' Proxies container with its default
// BanDetectionPolicy, its times divided by the sandbox Scale.
type rotatingProxies struct {
	base, cap, reanimateEvery time.Duration

	mu            sync.Mutex
	rng           *rand.Rand
	state         []rotatingState
	lastReanimate time.Time
}

type rotatingState struct {
	dead, good bool // neither: unchecked
	failed     int  // failed_attempts: failures since the last success
	nextCheck  time.Time
}

func newRotatingProxies(scale float64) *rotatingProxies {
	return &rotatingProxies{
		base: egressReal(300*time.Second, scale), cap: egressReal(3600*time.Second, scale),
		reanimateEvery: egressReal(5*time.Second, scale),
		rng:            rand.New(rand.NewPCG(1, 2)), state: make([]rotatingState, len(egressAddrs)),
	}
}

// pick is get_random over good and unchecked proxies; none: reset the dead to
// unchecked (ROTATING_PROXY_CLOSE_SPIDER off). The reanimate loop runs every 5 s.
func (p *rotatingProxies) pick() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.lastReanimate) >= p.reanimateEvery {
		p.lastReanimate = now
		for i := range p.state {
			if p.state[i].dead && !now.Before(p.state[i].nextCheck) {
				p.state[i].dead = false
			}
		}
	}
	var alive []int
	for i, s := range p.state {
		if !s.dead {
			alive = append(alive, i)
		}
	}
	if len(alive) == 0 {
		for i := range p.state {
			p.state[i].dead = false
			alive = append(alive, i)
		}
	}
	return alive[p.rng.IntN(len(alive))]
}

// observe is BanDetectionPolicy (ban = status not 200/301/302, an empty 200, or any
// error) with mark_dead (backoff uniform(0, min(cap, base·2^failed)), then failed++)
// and mark_good (failed = 0). A ban retries the URL on another proxy.
func (p *rotatingProxies) observe(i, status, bodyLen int, err error) bool {
	ban := err != nil || (status != 200 && status != 301 && status != 302) || (status == 200 && bodyLen == 0)
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &p.state[i]
	if !ban {
		s.good, s.dead, s.failed = true, false, 0
		return false
	}
	limit := p.cap
	if s.failed < 32 {
		limit = min(p.cap, p.base<<s.failed)
	}
	backoff := time.Duration(p.rng.Float64() * float64(limit))
	s.dead, s.good = true, false
	s.nextCheck = time.Now().Add(backoff)
	s.failed++
	return true
}

// egressTask is a URL in a baseline's queue and how often it was sent back.
type egressTask struct {
	url   string
	tries int
}

// egressQueue is a baseline's breadth-first frontier: a FIFO of tasks, the URLs ever
// queued, and the workers holding a task (the crawl runs dry when the queue is empty
// and none is busy).
type egressQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	tasks  []egressTask
	seen   map[string]bool
	busy   int
	closed bool
}

func newEgressQueue(seeds []string) *egressQueue {
	q := &egressQueue{seen: map[string]bool{}}
	q.cond = sync.NewCond(&q.mu)
	for _, s := range seeds {
		if !q.seen[s] {
			q.seen[s] = true
			q.tasks = append(q.tasks, egressTask{url: s})
		}
	}
	return q
}

// next hands out the oldest task; ok=false when the queue is closed or ran dry.
func (q *egressQueue) next() (egressTask, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.tasks) == 0 && q.busy > 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed || len(q.tasks) == 0 {
		q.closed = true
		q.cond.Broadcast()
		return egressTask{}, false
	}
	t := q.tasks[0]
	q.tasks = q.tasks[1:]
	q.busy++
	return t, true
}

// done returns a worker's task: its new links are queued, and the task itself again
// when it is to be retried.
func (q *egressQueue) done(links []string, retry *egressTask) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, l := range links {
		if !q.seen[l] {
			q.seen[l] = true
			q.tasks = append(q.tasks, egressTask{url: l})
		}
	}
	if retry != nil {
		q.tasks = append(q.tasks, *retry)
	}
	q.busy--
	q.cond.Broadcast()
}

// dry reports whether the crawl ran out of URLs (as opposed to being stopped).
func (q *egressQueue) dry() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.tasks) == 0 && q.busy == 0
}

func (q *egressQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// egressHostGate spaces each host's requests, across every egress, by gap: the same
// per-host cap as the engine's (1 request per web second).
type egressHostGate struct {
	gap  time.Duration
	mu   sync.Mutex
	next map[string]time.Time
}

func (g *egressHostGate) wait(ctx context.Context, host string) bool {
	g.mu.Lock()
	now := time.Now()
	at := g.next[host]
	if at.Before(now) {
		at = now
	}
	g.next[host] = at.Add(g.gap)
	g.mu.Unlock()
	return egressSleep(ctx, time.Until(at))
}

func egressSleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// egressBaseline crawls a fresh sandbox with -lanes workers choosing egresses by pol.
// A worker takes the oldest URL, waits for the host's gate, fetches it through the
// egress pol picks (robots.txt first, once per host, the same way), queues the page's
// links, sends the URL back if pol says so, and pauses like a lane.
func egressBaseline(s egressSetup, name string, pol egressPolicy) (egressRun, error) {
	sb, err := sandbox.Start(s.cfg)
	if err != nil {
		return egressRun{}, err
	}
	defer sb.Close()
	clients := make([]*http.Client, len(egressAddrs))
	for i, a := range egressAddrs {
		tr := crawlTransport(sb.DNSAddr(), netip.MustParseAddr(a))
		defer tr.CloseIdleConnections()
		clients[i] = &http.Client{Transport: tr, Timeout: 5 * time.Second}
	}
	inScope := crawlInHosts(crawlHosts(sb))
	q := newEgressQueue(egressSeeds(sb))
	gate := &egressHostGate{gap: s.hostGap, next: map[string]time.Time{}}
	var robotsMu sync.Mutex
	robots := map[string]*egressRobots{}
	var kept, requests, retried atomic.Int64

	fetch := func(ctx context.Context, rawURL, host string) (status int, body []byte, final *url.URL, err error) {
		if !gate.wait(ctx, host) {
			return 0, nil, nil, ctx.Err()
		}
		i := pol.pick()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
		if err != nil {
			return 0, nil, nil, err
		}
		req.Header.Set("User-Agent", "crawlconsole-bench-"+name)
		requests.Add(1)
		resp, err := clients[i].Do(req)
		if err == nil {
			body, err = io.ReadAll(io.LimitReader(resp.Body, 10<<20))
			resp.Body.Close()
			status, final = resp.StatusCode, resp.Request.URL
		}
		if ctx.Err() != nil {
			return 0, nil, nil, ctx.Err() // stopped: not the egress's fault
		}
		if pol.observe(i, status, len(body), err) {
			err = fmt.Errorf("refused: status %d, %v", status, err)
		}
		return status, body, final, err
	}
	allowed := func(ctx context.Context, u *url.URL) bool {
		robotsMu.Lock()
		rb := robots[u.Host]
		if rb == nil {
			rb = &egressRobots{}
			robots[u.Host] = rb
		}
		robotsMu.Unlock()
		rb.once.Do(func() {
			status, body, _, _ := fetch(ctx, u.Scheme+"://"+u.Host+"/robots.txt", u.Hostname())
			rb.data, _ = robotstxt.FromStatusAndBytes(status, body)
		})
		return rb.data == nil || rb.data.TestAgent(u.EscapedPath(), "crawlconsole-bench")
	}

	ctx, cancel := context.WithTimeout(context.Background(), s.window)
	defer cancel()
	stop := context.AfterFunc(ctx, q.close)
	defer stop()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < s.lanes; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 7))
			for {
				t, ok := q.next()
				if !ok {
					return
				}
				u, err := url.Parse(t.url)
				if err != nil || !allowed(ctx, u) {
					q.done(nil, nil)
					continue
				}
				status, body, final, err := fetch(ctx, t.url, u.Hostname())
				var links []string
				var retry *egressTask
				switch {
				case ctx.Err() != nil:
				case err != nil:
					if t.tries < egressMaxRetries {
						retried.Add(1)
						retry = &egressTask{url: t.url, tries: t.tries + 1}
					}
				case status == http.StatusOK:
					kept.Add(1)
					for _, l := range crawlPageLinks(final, body) {
						if inScope(l) {
							links = append(links, l)
						}
					}
				}
				q.done(links, retry)
				pause := s.lo + time.Duration(rng.Int64N(int64(s.hi-s.lo)+1))
				if !egressSleep(ctx, pause) {
					return
				}
			}
		}(uint64(w) + 1)
	}
	wg.Wait()
	end := start.Add(s.window)
	var dry time.Time
	if q.dry() && time.Now().Before(end) {
		dry = time.Now()
	}
	r := egressRun{name: name, start: start, end: end, dry: dry, kept: kept.Load()}
	r.reqs, r.bans = truthWindow(sb, start, end)
	r.note = fmt.Sprintf("kept %d pages (its own view), %d URLs sent back", kept.Load(), retried.Load())
	return r, nil
}

// egressRobots is one host's robots.txt, fetched once.
type egressRobots struct {
	once sync.Once
	data *robotstxt.RobotsData
}
