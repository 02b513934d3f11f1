package main

// Benchmark "egress": egress rotation (M3) on a web whose sites refuse
// clients per (IP, host), crawled from 4 egresses by three contenders:
//
//	go run ./bench egress [-d 60s] [-scale 20] [-hosts 40] [-social 1] [-listings 8]
//	                      [-articles 50] [-quota 60] [-quota-window 1h] [-search-quota 6]
//	                      [-lanes 24] [-seed 1] [-only crawlconsole|roundrobin|rotating]
//
// The sandbox refuses in three ways, all per (client IP, host): seed 000's anti-bot
// rule (more than 3 adjacent requests closer than 2 web s within a web minute ban the
// IP from the host for 30 web min); a request quota (-quota per -quota-window, then 429
// with Retry-After until the window ends); and a search quota on social sites
// (-search-quota searches per 10 web min; the next one bans the IP from the site's www
// host for 30 web min, answered 403, 429 or a 200 challenge page by host). Social
// sites are crawled through their search (M3), so every crawler meets that ban:
// M1 lanes keep crawlconsole clear of the adjacency rule, and without the search ban
// there would be no ban of crawlconsole's to detect. Faults, dead hosts and Crawl-delay
// are off.
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
// host cap; the baselines get the same per-host gate, scheduled like scrapy's
// downloader slots so that workers do not convoy behind one host). robots.txt is
// honoured by all. Each contender gets a fresh sandbox (same seed, so the same web) so
// that the truth logs are separate, and crawls for -d real time from the same seeds.
//
// Figures. Pages are distinct URLs the sandbox answered with a real page (its truth
// log: status 200 and not a ban page), whatever the crawler thought. Crawl hours are
// web hours (real window × Scale); the egresses count for the whole window, used or
// not. ban_recall: of the sandbox's bans (Truth.Bans) of crawlconsole's (egress IP,
// host) pairs, the share its rotation flagged (a pair ban set after the ban began and
// before it ended) with at most 3 requests on the pair after the ban's first one.
// ban_precision: of the pair bans the rotation set, the share set while the sandbox
// was refusing that pair — see egressDetect for the two kinds of refusal (ban, quota
// 429) and the strict figure counting bans only.

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/ui/cli"
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
	note       string
}

// egressFlag is one pair ban of the rotation, its egress given as the IP it leaves from.
type egressFlag struct {
	ip, host string
	at       time.Time // when the rotation set it
}

// egressFigures are one contender's figures from the truth log.
type egressFigures struct {
	requests, pages, bans int
	bansAdjacency         int // of bans: by the adjacency rule (the rest: search quota)
	bannedReqs            int // sent on a pair while the sandbox banned it (after the ban's first request)
	limitedReqs           int // answered 429 by the quota
	hours                 float64
	perEgressHour         float64
}

func runEgress(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("egress", flag.ContinueOnError)
	window := fs.Duration("d", 60*time.Second, "real crawl time per contender")
	scale := fs.Float64("scale", 20, "sandbox time scale: web durations shrink by this in real time")
	hosts := fs.Int("hosts", 40, "sandbox virtual hosts")
	social := fs.Float64("social", 1, "share of sites after the fifth that are social (the fifth always is)")
	listings := fs.Int("listings", 8, "listing pages per section host")
	articles := fs.Int("articles", 50, "articles per listing page")
	quota := fs.Int("quota", 60, "requests one IP may make to one host per quota window")
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
	fmt.Printf("egress: sandbox of %d hosts in %d sites (%d social), %d pages reachable from the seeds; scale %g (1 real s = %g web s)\n",
		*hosts, len(web.Sites()), nSocial, reach, *scale, *scale)
	fmt.Printf("  seeds: every entry page, and on social sites %d keywords × %d search result pages (M3: social sites are crawled through their search)\n",
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
	fmt.Printf("  GOMAXPROCS %d, %s, load average %s\n\n", runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(1))

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
	fmt.Printf("%-48s %6s %8s %12s %11s %11s %9s  %s\n", "contender", "pages", "requests", "pages/egr·h", "bans adj+sq", "banned-pair", "quota-429", "notes")
	for _, n := range order {
		f, r := figs[n], runs[n]
		bans := fmt.Sprintf("%d+%d", f.bansAdjacency, f.bans-f.bansAdjacency)
		fmt.Printf("%-48s %6d %8d %12.1f %11s %10.2f%% %8.2f%%  %s\n", egressLabel(n), f.pages, f.requests, f.perEgressHour,
			bans, 100*egressShare(f.bannedReqs, f.requests), 100*egressShare(f.limitedReqs, f.requests), r.note)
	}
	fmt.Println("  pages: distinct URLs answered with a real page (sandbox truth); pages/egr·h: pages ÷ (4 egresses × web hours of the window)")
	fmt.Println("  bans adj+sq: sandbox bans by the adjacency rule + by the search quota; banned-pair: requests sent on an (IP, host) pair")
	fmt.Println("  the sandbox had banned, after the ban's first request; quota-429: requests answered 429 past the request quota")

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
		out["pages_per_egress_hour"] = f.perEgressHour
		out["sandbox_bans"] = f.bans
		out["pairs_flagged"] = len(r.flags)
		out["quota_pairs"], out["quota_pairs_detected"] = d.quotaPairs, d.quotaDetected
		fmt.Println()
		fmt.Printf("ban_precision             = %.4f   (goal ≥ 0.99; bans only: %.4f)\n", d.precision(), d.precisionBansOnly())
		fmt.Printf("ban_recall                = %.4f   (goal ≥ 0.95; %d of %d sandbox bans)\n", d.recall(), d.detected, len(d.bans))
		fmt.Printf("banned_pair_request_share = %.5f  (goal ≤ 0.01; %d of %d requests)\n", egressShare(f.bannedReqs, f.requests), f.bannedReqs, f.requests)
		fmt.Printf("pages_per_egress_hour     = %.1f (web hours)\n", f.perEgressHour)
	}
	for _, b := range []struct{ name, field string }{{"roundrobin", "roundrobin_pages_per_egress_hour"}, {"rotating", "rotating_pages_per_egress_hour"}} {
		if f, ok := figs[b.name]; ok {
			out[b.field] = f.perEgressHour
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
// pages of each keyword (M3: social sites are queried through their search URL
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

// egressReachable counts the pages reachable by links from the seeds (entry pages and
// search result pages, see egressSeeds) that robots.txt allows: what a crawl of the
// whole web fetches.
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
		v := p.Kind == sandbox.KindEntry || p.Kind == sandbox.KindSearch
		if !v && p.Parent != "" && depth < 1000 {
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
		if b.Reason == sandbox.BanAdjacency {
			f.bansAdjacency++
		}
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
		f.perEgressHour = crawlRound(float64(f.pages)/(float64(len(egressAddrs))*f.hours), 1)
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

// egressEngineOptions are the demo's crawl settings (cli.DemoOptions: the sandbox's
// DNS, loopback allowed, rotation times and lane pauses scaled like the sandbox's
// clock, 1 request per web second per host) with this benchmark's seeds, its four
// bind egresses all on the node, its lanes and pauses, and no declared sites or
// scaled revisits: every crawl of the comparison fetches the same plain seeds.
func egressEngineOptions(s egressSetup, sb *sandbox.Sandbox, db string) config.Options {
	o := cli.DemoOptions(sb, db)
	def := config.DefaultOptions()
	o.Sites, o.Rounds, o.Revisit = nil, def.Rounds, def.Revisit
	o.Seeds = egressSeeds(sb)
	o.Egress = nil
	for _, a := range egressAddrs {
		o.Egress = append(o.Egress, "bind:"+a)
	}
	o.Lanes.Max = s.lanes
	o.Lanes.DelayMin, o.Lanes.DelayMax = s.lo, s.hi
	return o
}

// egressCrawlconsole crawls a fresh sandbox with the engine for the window, reading
// the rotation's pair bans from its snapshots (Snapshot().Egress.PairBans) every
// 100 ms: a pair ban lasts PairBanFor (90 s real at scale 20) or the site's
// Retry-After (whole seconds), so none is missed.
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
	r := egressRun{name: "crawlconsole", start: start, end: end, dry: dry}
	r.reqs, r.bans = truthWindow(sb, start, end)
	for _, pb := range flags {
		if pb.At.Before(end) {
			r.flags = append(r.flags, egressFlag{ip: ipOf[pb.Egress], host: pb.Host, at: pb.At})
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
	answers  map[int]int // status of the request that drew each ban: 403 deny, 429, 200 challenge page
	detected int
	missed   []string // why, for the first few bans not detected
	// flags by what the sandbox was doing to the pair when the rotation set them
	flags, flagsBanned, flagsQuota, flagsOther int
	other                                      []string // the first few flags with no refusal behind them
	// quota: pairs the sandbox answered 429 past its quota, and those flagged after
	// the first such answer with at most 3 more requests refused by the quota
	quotaPairs, quotaDetected int
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
	d := egressDetection{bans: r.bans, flags: len(r.flags), answers: map[int]int{}}
	for _, b := range r.bans {
		k := pair{b.IP, b.Host}
		bansOf[k] = append(bansOf[k], b)
		for _, q := range byPair[k] {
			if q.Start.Equal(b.At) {
				d.answers[q.Status]++
			}
		}
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
	for k, reqs := range byPair {
		first := -1
		for i, q := range reqs {
			if q.Limited {
				first = i
				break
			}
		}
		if first < 0 {
			continue
		}
		d.quotaPairs++
		at := reqs[first].Start
		flagged := false
		for _, f := range flagsOf[k] {
			flagged = flagged || !f.at.Before(at)
		}
		more := 0 // requests the site refused again past its quota
		for _, q := range reqs[first+1:] {
			if q.Limited {
				more++
			}
		}
		if flagged && more <= 3 {
			d.quotaDetected++
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
	var answers []string
	for _, st := range []int{http.StatusForbidden, http.StatusTooManyRequests, http.StatusOK} {
		if n := d.answers[st]; n > 0 {
			answers = append(answers, fmt.Sprintf("%d× %d", n, st))
		}
	}
	fmt.Printf("  sandbox bans of its (IP, host) pairs: %d (answered %s); flagged by a pair ban with ≤ 3 requests after the ban began: %d\n",
		len(d.bans), strings.Join(answers, ", "), d.detected)
	for _, m := range d.missed {
		fmt.Printf("    missed: %s\n", m)
	}
	fmt.Printf("  pair bans set by the rotation: %d; while the sandbox banned the pair: %d; while past its quota (429): %d; neither: %d\n",
		d.flags, d.flagsBanned, d.flagsQuota, d.flagsOther)
	for _, o := range d.other {
		fmt.Printf("    unfounded: %s\n", o)
	}
	fmt.Printf("  pairs past the quota (429): %d; flagged with ≤ 3 more requests on the pair: %d\n", d.quotaPairs, d.quotaDetected)
}
