package main

// go run ./bench discovery -live — the three crawls of the discovery bench as real
// engine runs (engine.New, Start, Close) against the publishing sandbox served on
// loopback, on a compressed clock.
//
// Clock. The sandbox's web clock runs Scale = 86400/day_s times real time (one web
// day in -day real seconds); the engine runs on real time with every duration that
// stands for a web duration divided by Scale, as the engine's own sandbox tests do
// (revisit intervals and budget, discovery MinPoll/MaxPoll, politeness, host rate,
// lane delay). Latency is publish time (sandbox truth) to the engine's fetch stamp
// of the stored capture (store.Captures FetchedAt), mapped back to web time.
//
// Equal fetches per hour. Each crawl runs with one lane whose fixed pause is the
// budget's slot (a web hour over the budget), and every request goes through a
// pacing proxy (discovery_pace.go, the crawl's egress) that starts at most one per
// slot, whatever the crawl wants. The sandbox's truth log counts what each crawl
// actually fetched (robots.txt, feeds, sitemaps, 304s, pages), reported per web hour.
//
// Warm-up. Sites start with -live-backlog of articles already published (the
// sandbox's PublishBacklog, 3 web days by default, cut short here: at the measured
// fetch rate no crawl could fetch three days of sitemap backlog within a short run).
// Then -live-warmup web days unmeasured, for the crawls to read it and learn their
// intervals, and -live-measure days measured; articles of the last -grace days are
// not measured (they had no time to be found).
//
// The crawls (each in its own sandbox built from the same seed, so the same web; run
// at the same time):
//
//	entry_only    the engine with discovery off: seeds are every host's entry page,
//	              revisited by the engine's revisit estimator (today's crawler)
//	fixed_poller  the engine with discovery on and MinPoll = MaxPoll = one fixed
//	              interval: the engine finds the feeds and sitemaps and fetches what
//	              they list as ours does, but polls each on one fixed interval, the
//	              one at which the feeds and sitemaps alone would spend the budget
//	              left after new articles (StormCrawler's fixed fetch interval for
//	              sitemaps and feeds). Written as engine options, not as a separate
//	              fetcher, so that it differs from ours in the poll schedule only.
//	ours          the engine's defaults with discovery on (learned poll intervals),
//	              told the crawl's fetch budget (discovery.fetch_budget) as an
//	              operator would: its reads get what the new articles it expects
//	              (the rates its Poller learned, not the sandbox's) leave of it
//
// budget_share_to_match_fixed_p95: ours run again, one run after another, at a share
// of the budget (its lane pause, pacing proxy and fetch_budget all at that share),
// bisected for the least share at which its p95 is at most fixed_poller's (whose run
// is reused); -bisect=false skips it.
//
// Common to all three: the scope is the entry pages, /story/ pages and XML documents
// (scope.include), so none of the crawls wanders into the sandbox's classic link
// graph (listings and articles that never publish news, the same cost for all);
// discovery.probe is "all" (no site is declared a news site, and the lying sitemap is
// only at /sitemap.xml); revisit on. entry_only's revisit budget is raised so that its
// revisits spend the fetch budget (they are all it has); the other two keep the
// engine's default revisit budget.

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// discLiveDefaultBudget is the live mode's fetch budget over the article rate when
// -budget is not given: room for one page refetch per article (revisit.initial) and
// the polls. At the simulation's 1.4 every crawl's lane saturates.
const discLiveDefaultBudget = 3.0

// discLive holds the live mode's settings.
type discLive struct {
	hosts      int
	seed       int64
	dayReal    time.Duration // one web day in real time
	backlog    time.Duration // web time sites have published before the crawl starts
	warmup     float64       // web days unmeasured
	measure    float64       // web days measured
	grace      float64       // web days at the end whose articles are not measured
	perArticle float64       // fetch budget over the mean article rate
}

func (l discLive) scale() float64 { return float64(24*time.Hour) / float64(l.dayReal) }

func (l discLive) webDays(d float64) time.Duration { return time.Duration(d * float64(24*time.Hour)) }

// discLiveWeb is the sandbox config of a live run: crawlSandboxConfig (no faults,
// fast DNS, no Crawl-delay) with the publishing model on.
func discLiveWeb(l discLive) sandbox.Config {
	cfg := crawlSandboxConfig(l.hosts, l.scale())
	cfg.Seed = l.seed
	cfg.Publishing = true
	cfg.PublishBacklog = l.backlog
	return cfg
}

func runDiscoveryLive(l discLive, bisect bool) (map[string]any, error) {
	cfg := discLiveWeb(l)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	web := sandbox.NewWeb(cfg)
	rate, docs, entries := 0.0, 0, 0
	for _, ps := range web.PublishingSites() {
		rate += ps.Rate / 24
		entries += len(ps.Hosts)
		docs += len(ps.Feeds) + len(ps.Sitemaps)
		if ps.Announce == sandbox.AnnounceIndex {
			docs += 2 // the news and archive sitemaps it lists
		}
	}
	budget := l.perArticle * rate // fetches per web hour
	// The fixed poller's interval: its docs alone spend what articles leave.
	fixed := time.Duration(float64(docs) / max(budget-rate, 1e-3) * float64(time.Hour))
	fmt.Printf("discovery -live: %d publishing sites (%d hosts, %d feeds/sitemaps), %.1f articles/web hour, budget %.1f fetches/web hour (one per %.0f web s = %v real), fixed poll interval %v; web day = %v real (scale %.0f); backlog %v, warm-up %.2f d, measure %.2f d, grace %.2f d (load %s)\n",
		len(web.PublishingSites()), entries, docs, rate, budget, 3600/budget, discLiveReal(l, time.Duration(float64(time.Hour)/budget)).Round(time.Millisecond),
		fixed.Round(time.Minute), l.dayReal, l.scale(), l.backlog, l.warmup, l.measure, l.grace, loadAvg(1))
	results := map[string]*discResult{}
	notes := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	crawls := discoveryCrawls
	errs := make(chan error, len(crawls))
	began := time.Now()
	for _, c := range crawls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := budget
			if c == "ours" && discLiveOursShare > 0 {
				b *= discLiveOursShare
			}
			r, note, err := discLiveRun(l, c, b, fixed)
			if err != nil {
				errs <- fmt.Errorf("%s: %w", c, err)
				return
			}
			mu.Lock()
			results[c], notes[c] = r, note
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	fmt.Printf("  the %d crawls ran at the same time in %v (load %s)\n", len(crawls), time.Since(began).Round(time.Millisecond), loadAvg(1))
	for _, c := range crawls {
		fmt.Printf("  %-16s %s\n", c, notes[c])
	}
	out, figs := discoveryReport(results)
	perHour := map[string]any{}
	x := discoveryLiveExtras{live: true, perHour: map[string]float64{}, fixedBudgetPer: budget}
	for _, c := range crawls {
		x.perHour[c] = float64(results[c].fetches) / (l.measure * 24)
		perHour[c] = crawlRound(x.perHour[c], 1)
	}
	noRefetch := map[string]any{}
	for _, c := range crawls {
		r := results[c]
		noRefetch[c] = crawlRound(float64(r.fetches-r.refetches)/max(1, float64(r.found)), 3)
	}
	// What discovery itself costs: the page revisit policy's refetches of stored
	// articles (revisit.initial, then its estimate) left out.
	out["fetches_per_new_article_without_page_refetches"] = noRefetch
	// The least p95 any periodic schedule could reach with the reads the budget
	// leaves after the articles, knowing every site's rate (discoveryP95Bound).
	pubs, counts, from, to := discLivePublished(l, web)
	bound := discoveryP95Bound(counts, l.measure*24, (budget-rate)*l.measure*24, 24) * 3600
	fmt.Printf("bound: no schedule of periodic reads at the budget less the article rate (%.1f reads/web h, every site read at least daily) has an expected p95 below %.0f s here, knowing every site's rate (one source a site, Poisson publishing, articles fetched at once)\n",
		budget-rate, bound)
	out["latency_p95_bound_at_budget_s"] = jsonNumber(crawlRound(bound, 0))
	// The least share of the budget at which that best periodic schedule could match
	// fixed_poller's measured p95 at the whole budget: below it no poller can, whatever
	// it knows (the share goal checked against what the sites publish). Articles take
	// their rate of the share first; the rest are reads.
	if fixedP95 := figs["fixed_poller"].p95; fixedP95 > 0 {
		boundShare := discoveryBisect(rate/budget, 1, 0.001, 30, func(share float64) bool {
			return discoveryP95Bound(counts, l.measure*24, (share*budget-rate)*l.measure*24, 24)*3600 <= fixedP95
		})
		if discoveryP95Bound(counts, l.measure*24, (budget-rate)*l.measure*24, 24)*3600 > fixedP95 {
			boundShare = math.Inf(1)
		}
		fmt.Printf("bound: the least share of the budget at which any periodic schedule could reach fixed_poller's p95 of %.0f s here: %.3f (the goal asks ours for <= 0.7)\n",
			fixedP95, boundShare)
		out["budget_share_bound_to_match_fixed_p95"] = jsonNumber(crawlRound(boundShare, 3))
		// The same with the lane: every fetch in its slot, the articles a read finds
		// ahead of due reads, on the articles the sites really published.
		laneAt := func(share float64) float64 {
			return discoveryLaneBound(pubs, from, to, 86400, 3600/(share*budget))
		}
		laneShare := discoveryBisect(rate/budget, 1, 0.001, 30, func(share float64) bool { return laneAt(share) <= fixedP95 })
		if laneAt(1) > fixedP95 {
			laneShare = math.Inf(1)
		}
		fmt.Printf("bound with the lane: periodic reads knowing every site's rate, each fetch in its slot (%.0f web s at the whole budget), the articles a read finds ahead of due reads: p95 %.0f s at the whole budget, %.0f s at 0.7 of it; the least share reaching fixed_poller's p95: %.3f\n",
			3600/budget, laneAt(1), laneAt(0.7), laneShare)
		out["latency_p95_lane_bound_at_budget_s"] = jsonNumber(crawlRound(laneAt(1), 0))
		out["budget_share_lane_bound_to_match_fixed_p95"] = jsonNumber(crawlRound(laneShare, 3))
		// And over schedules that also time each read by the site's age, the time
		// since its last article (discoveryAgeLaneBound): publishing comes in runs,
		// and such reads are not periodic, so the bound above does not hold them.
		ageAt := func(share float64) float64 {
			return discoveryAgeLaneBound(pubs, from, to, 86400, 3600/(share*budget))
		}
		ageFull := ageAt(1) // each costs a few hundred lane simulations
		ageShare := discoveryBisect(rate/budget, 1, 0.005, 8, func(share float64) bool { return ageAt(share) <= fixedP95 })
		if ageFull > fixedP95 {
			ageShare = math.Inf(1)
		}
		fmt.Printf("bound with the lane and the age: reads timed by each site's rate and the time since its last article (its date or the read that found it): p95 %.0f s at the whole budget, %.0f s at 0.7 of it; the least share reaching fixed_poller's p95: %.3f\n",
			ageFull, ageAt(0.7), ageShare)
		out["latency_p95_age_lane_bound_at_budget_s"] = jsonNumber(crawlRound(ageFull, 0))
		out["budget_share_age_lane_bound_to_match_fixed_p95"] = jsonNumber(crawlRound(ageShare, 3))
	}
	if bisect {
		fixedP95 := figs["fixed_poller"].p95
		var steps []map[string]any
		step := func(share, p95, perHour float64) bool {
			ok := p95 >= 0 && p95 <= fixedP95
			steps = append(steps, map[string]any{"share": share, "latency_p95_s": p95, "fetches_per_hour": perHour, "matches": ok})
			fmt.Printf("bisect: ours at %.3f of the budget (%.1f fetches/web h): p95 %.0f s vs fixed_poller's %.0f s: %v; %.1f fetches/web h spent (load %s)\n",
				share, share*budget, p95, fixedP95, map[bool]string{true: "matches", false: "misses"}[ok], perHour, loadAvg(1))
			return ok
		}
		atFull := step(1, figs["ours"].p95, crawlRound(x.perHour["ours"], 1))
		x.share = discoveryShare(atFull, func(share float64) bool {
			r, _, err := discLiveRun(l, "ours", share*budget, fixed)
			if err != nil {
				fmt.Printf("bisect: ours at %.3f: %v\n", share, err)
				return false
			}
			return step(share, discoveryFiguresOf(r).p95, crawlRound(float64(r.fetches)/(l.measure*24), 1))
		})
		x.bisected = true
		out["budget_share_steps"] = steps
	}
	discoveryGoals(out, figs, x)
	out["mode"] = "live"
	out["fetch_budget_per_hour"] = crawlRound(budget, 1)
	out["fetches_per_hour"] = perHour
	out["web_day_real_s"] = l.dayReal.Seconds()
	out["runtime_s"] = crawlRound(time.Since(began).Seconds(), 1)
	return out, nil
}

// discLiveRevisitBudget gives all three crawls entry_only's revisit budget
// (-revisit-budget; default false: ours and fixed_poller keep the engine default).
var discLiveRevisitBudget = false

// discLiveOursShare, when positive, runs ours at that share of the budget in the
// main run (-ours-share: one bisection step, looked at with -trace).
var discLiveOursShare = 0.0

// discLiveTrace names a crawl whose sites, requests and missed articles are printed
// (-trace CRAWL): how the live figures are diagnosed.
var discLiveTrace string

// discLiveReal is the real duration of a web duration.
func discLiveReal(l discLive, web time.Duration) time.Duration {
	return max(time.Duration(float64(web)/l.scale()), time.Millisecond)
}

// discLiveOptions is the engine configuration of one crawl.
func discLiveOptions(l discLive, sb *sandbox.Sandbox, crawl string, budget float64, fixed time.Duration, db string) config.Options {
	scale := l.scale()
	o := config.DefaultOptions()
	for _, ps := range sb.Web().PublishingSites() {
		// The www entry page, the seed of all three crawls: it lists the latest
		// articles of every host of the site (section hosts have no page at /).
		o.Seeds = append(o.Seeds, ps.Entry)
	}
	o.DB = db
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	slot := discLiveReal(l, time.Duration(float64(time.Hour)/budget))
	o.Lanes.Max = 1
	o.Lanes.DelayMin, o.Lanes.DelayMax = slot, slot
	o.HostRate = scale // 1 request per web second per host
	o.Politeness = config.DefaultPoliteness().Scaled(scale)
	o.Scope.Include = []string{`^https?://[^/]+/$`, `/story/`, `\.xml$`}
	rv := o.Revisit
	if discLiveRevisitBudget || crawl == "entry_only" {
		// Revisits are entry_only's only way to new articles: a revisit budget
		// (fetches per page per web day, over every stored page) that spends the
		// fetch budget once the pages stored by mid-measure are in. ours and
		// fixed_poller keep the engine's default (revisit.budget 0.1) unless
		// -revisit-budget: with it, a crawl that polls when due would spend the
		// whole fetch budget on revisits too.
		pages := float64(len(o.Seeds)) + budget/l.perArticle*(l.backlog.Hours()+24*(l.warmup+l.measure/2))
		rv.Budget = budget * 24 / pages
	}
	o.Revisit = rv.Scaled(scale)
	d := o.Discovery
	d.Probe = config.ProbeAll
	d.MinPoll, d.MaxPoll = discLiveReal(l, d.MinPoll), discLiveReal(l, d.MaxPoll)
	d.RateHalfLife = discLiveReal(l, d.RateHalfLife)
	switch crawl {
	case "entry_only":
		d.Enabled = false
	case "fixed_poller":
		d.MinPoll = discLiveReal(l, fixed)
		d.MaxPoll = d.MinPoll
	case "ours":
		// Fetches per real hour: the web-hour budget, scaled.
		d.FetchBudget = budget * scale
	}
	o.Discovery = d
	return o
}

// discLiveRun runs one crawl in its own sandbox and measures it.
func discLiveRun(l discLive, crawl string, budget float64, fixed time.Duration) (*discResult, string, error) {
	sb, err := sandbox.Start(discLiveWeb(l))
	if err != nil {
		return nil, "", err
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "bench-discovery-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "crawl.db")
	o := discLiveOptions(l, sb, crawl, budget, fixed, db)
	pace, err := startDiscPace(o.Lanes.DelayMin, sb.DNSAddr())
	if err != nil {
		return nil, "", err
	}
	defer pace.Close()
	o.Egress = []string{pace.Spec()}
	e, err := engine.New(o)
	if err != nil {
		return nil, "", err
	}
	start := sb.Web().Epoch()
	from := start.Add(l.webDays(l.warmup))
	until := from.Add(l.webDays(l.measure))
	end := until.Add(l.webDays(l.grace))
	if err := e.Start(); err != nil {
		e.Close()
		return nil, "", err
	}
	time.Sleep(time.Until(sb.RealTime(end)))
	snap := e.Snapshot()
	if err := e.Close(); err != nil {
		return nil, "", err
	}
	res := &discResult{warnings: map[string]int{}}
	if crawl == discLiveTrace {
		for _, s := range snap.Discovery {
			fmt.Printf("trace %s: site %+v\n", crawl, s)
		}
		for _, r := range sb.Truth().Requests() {
			fmt.Printf("trace %s: request at web +%v %s %d\n", crawl, sb.WebTime(r.Start).Sub(start).Round(time.Minute), r.URL, r.Status)
		}
	}
	for _, s := range snap.Discovery {
		if !s.DatesTrusted {
			res.untrusted = append(res.untrusted, s.Site+": "+s.Why)
		}
		for k, n := range s.Warnings {
			res.warnings[k] += n
		}
		res.hintRefetches += int(s.Hints)
	}
	sort.Strings(res.untrusted)
	// Fetches: every request the sites saw in the measured window.
	realFrom, realUntil := sb.RealTime(from), sb.RealTime(until)
	kinds := map[string]int{}
	var lastReq time.Time
	for _, r := range sb.Truth().Requests() {
		if r.Start.Before(realFrom) || !r.Start.Before(realUntil) {
			continue
		}
		res.fetches++
		k := string(r.Kind)
		if r.Status == http.StatusNotModified {
			k += "_304"
		}
		kinds[k]++
		if r.Kind == sandbox.KindDiscovery {
			res.polls++
		}
		if r.Start.After(lastReq) {
			lastReq = r.Start
		}
	}
	// Stored: each URL's first capture with a page (200), stamped by the engine.
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return nil, "", err
	}
	stored := map[string]time.Time{}
	err = st.Captures(time.Time{}, func(c store.Capture, _ error) error {
		if _, ok := stored[c.URL]; !ok && c.Status == http.StatusOK {
			stored[c.URL] = sb.WebTime(c.FetchedAt)
		}
		return nil
	})
	st.Close()
	if err != nil {
		return nil, "", err
	}
	byMode := map[sandbox.Announce][2]int{} // published, found
	for _, ps := range sb.Web().PublishingSites() {
		ann := ps.Announce != sandbox.AnnounceNone
		for _, a := range sb.Web().Published(ps.Domain, from, until) {
			res.published++
			if ann {
				res.pubAnnounced++
			} else {
				res.pubNeither++
			}
			at, ok := stored[a.URL]
			m := byMode[ps.Announce]
			m[0]++
			if ok {
				m[1]++
			}
			byMode[ps.Announce] = m
			if !ok {
				if crawl == discLiveTrace {
					fmt.Printf("trace %s: missed (%s) %s published at web +%v\n", crawl, ps.Announce, a.URL, a.Published.Sub(start).Round(time.Minute))
				}
				continue
			}
			lat := at.Sub(a.Published).Seconds()
			if crawl == discLiveTrace {
				fmt.Printf("trace %s: found (%s) %s after %.0f s\n", crawl, ps.Announce, a.URL, lat)
			}
			res.found++
			res.latencies = append(res.latencies, lat)
			if ann {
				res.foundAnnounced++
			} else {
				res.foundNeither++
				res.latNeither = append(res.latNeither, lat)
			}
		}
	}
	var ks []string
	for k, n := range kinds {
		ks = append(ks, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(ks)
	var ms []string
	for m, n := range byMode {
		ms = append(ms, fmt.Sprintf("%s %d/%d", m, n[1], n[0]))
	}
	sort.Strings(ms)
	// The window's article fetches: first fetches of articles published in it or
	// before it (a backlog), and refetches (page revisits).
	pubAt := map[string]time.Time{}
	for _, ps := range sb.Web().PublishingSites() {
		for _, a := range sb.Web().Published(ps.Domain, start.Add(-l.backlog), end) {
			pubAt[a.URL] = a.Published
		}
	}
	fetched := map[string]bool{}
	var firstNew, firstOld, refetch int
	for _, r := range sb.Truth().Requests() {
		if r.Kind != sandbox.KindArticle || r.Status != http.StatusOK {
			continue
		}
		in := !r.Start.Before(realFrom) && r.Start.Before(realUntil)
		switch {
		case !in:
		case fetched[r.URL]:
			refetch++
		case pubAt[r.URL].Before(from):
			firstOld++
		default:
			firstNew++
		}
		fetched[r.URL] = true
	}
	res.refetches = refetch
	note := fmt.Sprintf("measured window: %d requests (%s); article fetches: %d first fetches of articles published in the window, %d of older ones, %d refetches; found by announce mode %s; %d pages stored in all",
		res.fetches, strings.Join(ks, ", "), firstNew, firstOld, refetch, strings.Join(ms, ", "), len(stored))
	return res, note, nil
}
