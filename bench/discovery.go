package main

// go run ./bench discovery — how soon a new article is stored, three
// crawls at an equal fetch budget. By default the three are real engine runs against
// the publishing sandbox on a compressed clock (discovery_live.go); -sim runs the
// simulation below, which is fast and long (8 web days over 240 hosts) but drives
// engine/discover's parsing and Poller in the bench's own fetch loop, not the engine.
//
// The sandbox's publishing sites (sandbox/publish.go) put out articles at random,
// heavy-tailed times (Pareto gaps, site rates log-uniform 2..96 a day). Each site
// announces them in one way: an RSS or Atom feed (linked from its entry page), a
// sitemap, a news sitemap, a sitemap index (news + archive), a sitemap whose lastmod
// is always "now" (not declared in robots.txt, found at /sitemap.xml), or nothing.
// Every host's entry page lists its latest 20 articles (www: of all hosts). (The
// served sandbox has an entry page on www only; the simulation's entry_only also
// polls the section hosts' entry pages of its model.)
//
// -sim: time is simulated (no servers): documents are rendered by the model at the
// simulated instant and parsed by engine/discover exactly as the engine does. Each
// crawl has the same fetcher, budget fetches per hour (one slot every 3600/budget
// s), and fetches a found article in the first free slot (articles before polls).
// Polls use the remaining slots:
//
//	entry_only    today's crawler: the entry pages of every host, round robin
//	fixed_poller  StormCrawler-like: the same sources as ours (feeds, sitemaps from
//	              robots.txt or /sitemap.xml, the www entry page of a site some of
//	              whose hosts no feed or sitemap covers, as the engine polls its
//	              seed), each on one fixed interval, round robin, every free slot
//	ours          the same sources, each on its learned interval (discover.Poller:
//	              rates from the new URLs each poll brings, the poll budget split by
//	              the square-root rule); a slot with nothing due is left unused
//	ours_revisit_estimator  ours with revisit.EstimateRate's rate in place of the
//	              Poller's count (discovery_estimator.go), reported under its own key
//
// Sitemaps are scoped as the engine scopes them (discover.Allowed): a sitemap declared
// in robots.txt speaks for every host of its site (each host's robots.txt names it,
// a cross-submission); the undeclared lying one only for www, so its section hosts'
// articles come from the www entry page.
//
// Measured on articles published between the warm-up and the end less a grace
// period: latency (publish to stored, web seconds), found_share, and fetches per
// new article (all fetches of the measured period over articles found in it).

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("discovery", runDiscoveryBench) }

var discoveryCrawls = []string{"entry_only", "fixed_poller", "ours"}

// discoveryEstimatorCrawl is the simulation's extra crawl (discovery_estimator.go):
// ours with the revisit estimator's rate in place of discover.Poller's count. Its
// figures go under their own key; the three required maps keep the three crawls.
const discoveryEstimatorCrawl = "ours_revisit_estimator"

// discoveryExtraCrawls are reported under their own keys.
var discoveryExtraCrawls = []string{discoveryEstimatorCrawl}

type discSource struct {
	url   string
	site  string
	kind  string // "entry", "doc"
	cross []string
	known bool // an index admitted to the tree
	// body, doc and err are its last read's document and what Parse made of it: a
	// read that serves the same bytes again is not parsed again (the simulation's
	// time goes to parsing 1,000-URL sitemaps that did not change).
	body []byte
	doc  discover.Doc
	err  error
}

type discSite struct {
	ps        sandbox.PublishingSite
	announced bool
}

type discResult struct {
	latencies      []float64 // found articles, web seconds
	latNeither     []float64
	published      int
	found          int
	pubAnnounced   int
	foundAnnounced int
	pubNeither     int
	foundNeither   int
	fetches        int
	polls          int
	hintRefetches  int
	refetches      int // live: article fetches of pages already stored (page revisits)
	untrusted      []string
	warnings       map[string]int
}

func runDiscoveryBench(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("discovery", flag.ContinueOnError)
	hosts := fs.Int("hosts", 240, "-sim: sandbox hosts")
	days := fs.Float64("days", 8, "-sim: simulated days")
	warm := fs.Float64("warmup", 1, "-sim: days before measuring")
	grace := fs.Float64("grace", 0.25, "days at the end whose articles are not measured")
	perArticle := fs.Float64("budget", 1.4, "fetches per hour, as a multiple of the sites' mean article rate (-live default: 3)")
	seed := fs.Int64("seed", 1, "sandbox seed")
	sim := fs.Bool("sim", false, "the simulation (simulated time, no servers) instead of the live engine runs")
	live := fs.Bool("live", true, "the three crawls as real engine runs against the publishing sandbox on loopback (discovery_live.go; the default)")
	liveHosts := fs.Int("live-hosts", 60, "-live: sandbox hosts")
	day := fs.Duration("day", 30*time.Second, "-live: real time of one web day")
	liveBacklog := fs.Duration("live-backlog", 6*time.Hour, "-live: web time the sites have published before the crawl starts")
	liveWarm := fs.Float64("live-warmup", 2, "-live: web days before measuring (two: at a share of the budget below one, ours is still fetching the first day's backlog after one)")
	liveMeasure := fs.Float64("live-measure", 1.5, "-live: web days measured")
	fs.StringVar(&discLiveTrace, "trace", "", "-live: print this crawl's feeds and sitemaps, every request and every missed article; -sim: each measured article's latency, the read that found it and its wait in the queue")
	fs.Float64Var(&discLiveOursShare, "ours-share", 0, "run ours at this share of the budget in the main run (live: one bisection step, to look at with -trace; -sim: ours and ours_revisit_estimator; the goals then compare unequal budgets)")
	bisect := fs.Bool("bisect", true, "find budget_share_to_match_fixed_p95 by bisection (up to 5 more runs of ours, one after another; -sim: the same steps on the simulation); -bisect=false for a quick run")
	fs.BoolVar(&discLiveRevisitBudget, "revisit-budget", false, "-live: ours and fixed_poller get entry_only's raised revisit budget too (default: the engine's default revisit.budget)")
	estimator := fs.Bool("estimator", true, "-sim: run ours_revisit_estimator too")
	runs := fs.Int("runs", 1, "-live: run the bench this many times, one after another, printing each run and the median of each figure (the goals judged on the medians); the simulation is deterministic, one run is all of it")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *runs < 1 {
		return nil, fmt.Errorf("-runs %d: want at least 1", *runs)
	}
	if *live && !*sim {
		budgetSet := false
		fs.Visit(func(f *flag.Flag) { budgetSet = budgetSet || f.Name == "budget" })
		if !budgetSet {
			// Live, every new page is also refetched by the page revisit policy
			// (revisit.initial): at 1.4x the article rate every crawl's lane
			// saturates and queues, and the comparison measures the queue.
			*perArticle = discLiveDefaultBudget
		}
		l := discLive{hosts: *liveHosts, seed: *seed, dayReal: *day, backlog: *liveBacklog, warmup: *liveWarm,
			measure: *liveMeasure, grace: *grace, perArticle: *perArticle}
		if *runs > 1 {
			return discoveryRepeat(*runs, func() (map[string]any, error) { return runDiscoveryLive(l, *bisect) })
		}
		return runDiscoveryLive(l, *bisect)
	}
	cfg := sandbox.DefaultConfig()
	cfg.Seed = *seed
	cfg.Hosts = *hosts
	cfg.HTTPAddr = "127.0.0.1:0"
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	web := sandbox.NewWeb(cfg)
	var sites []discSite
	rate := 0.0
	for _, ps := range web.PublishingSites() {
		sites = append(sites, discSite{ps: ps, announced: ps.Announce != sandbox.AnnounceNone})
		rate += ps.Rate / 24
	}
	budget := *perArticle * rate
	start := web.Epoch()
	end := start.Add(time.Duration(*days * float64(24*time.Hour)))
	from := start.Add(time.Duration(*warm * float64(24*time.Hour)))
	until := end.Add(-time.Duration(*grace * float64(24*time.Hour)))
	fmt.Printf("discovery: %d publishing sites, %.1f articles/hour, budget %.1f fetches/hour, %.0f days (load %s)\n",
		len(sites), rate, budget, *days, loadAvg(1))
	results := map[string]*discResult{}
	crawls := discoveryCrawls
	if *estimator {
		crawls = append(crawls[:len(crawls):len(crawls)], discoveryEstimatorCrawl)
	}
	for _, c := range crawls {
		began := time.Now()
		b := budget
		if c != "entry_only" && c != "fixed_poller" && discLiveOursShare > 0 {
			b *= discLiveOursShare
		}
		results[c] = discoveryRun(web, sites, c, b, start, end, from, until)
		fmt.Printf("  %-22s ran in %v\n", c, time.Since(began).Round(time.Millisecond))
	}
	out, figs := discoveryReport(results)
	// entry_only and fixed_poller spend every slot; ours leaves a slot unspent when
	// no source is due, so its fetches per hour are checked as the live run's are.
	x := discoveryLiveExtras{perHour: map[string]float64{}, fixedBudgetPer: budget}
	perHour := map[string]any{}
	for _, c := range discoveryCrawls {
		x.perHour[c] = float64(results[c].fetches) / until.Sub(from).Hours()
		perHour[c] = crawlRound(x.perHour[c], 1)
	}
	if *bisect {
		full := results["ours"]
		if discLiveOursShare > 0 && discLiveOursShare != 1 {
			full = discoveryRun(web, sites, "ours", budget, start, end, from, until)
		}
		x.share, out["budget_share_steps"] = discoverySimShare(full, figs["fixed_poller"].p95, budget, until.Sub(from).Hours(),
			func(share float64) *discResult {
				return discoveryRun(web, sites, "ours", share*budget, start, end, from, until)
			})
		x.bisected = true
	}
	discoveryGoals(out, figs, x)
	out["fetches_per_hour"] = perHour
	out["mode"] = "sim"
	return out, nil
}

// discoverySources lists a crawl's poll sources: every host's entry page for
// entry_only; else each site's feeds and sitemaps, and its www entry page when some
// of its hosts none of them may speak for. (Polling each section host's entry page
// instead, as the simulation did, split a site into as many slow sources, each read
// on the square-root rule's longer interval for its share of the site's rate: on
// seeds 1 and 3 at 0.75 of the budget they held 130 of 331 and 97 of 544 articles
// of ours' tail, where live the engine polls one entry page.)
func discoverySources(sites []discSite, crawl string) []*discSource {
	var out []*discSource
	for _, s := range sites {
		covered := map[string]bool{}
		if crawl != "entry_only" {
			for _, f := range s.ps.Feeds {
				out = append(out, &discSource{url: f, site: s.ps.Domain, kind: "doc"})
				for _, h := range s.ps.Hosts {
					covered[h] = true
				}
			}
			for _, sm := range s.ps.Sitemaps {
				src := &discSource{url: sm, site: s.ps.Domain, kind: "doc"}
				if s.ps.Announce == sandbox.AnnounceLyingLM {
					covered[s.ps.Hosts[0]] = true // undeclared: speaks for its own host only
				} else {
					src.cross = s.ps.Hosts // each host's robots.txt names it
					for _, h := range s.ps.Hosts {
						covered[h] = true
					}
				}
				out = append(out, src)
			}
		}
		for i, h := range s.ps.Hosts {
			if covered[h] {
				continue
			}
			if crawl != "entry_only" {
				// The seed, as the engine polls it: it lists every host's articles.
				out = append(out, &discSource{url: s.ps.Entry, site: s.ps.Domain, kind: "entry"})
				break
			}
			u := s.ps.Entry
			if i > 0 {
				u = strings.Replace(s.ps.Entry, s.ps.Hosts[0], h, 1)
			}
			out = append(out, &discSource{url: u, site: s.ps.Domain, kind: "entry"})
		}
	}
	return out
}

func discoveryRun(web *sandbox.Web, sites []discSite, crawl string, budget float64, start, end, from, until time.Time) *discResult {
	res := &discResult{warnings: map[string]int{}}
	sources := discoverySources(sites, crawl)
	byURL := map[string]*discSource{}
	for _, s := range sources {
		byURL[s.url] = s
	}
	announced := map[string]bool{}
	rateOf := map[string]float64{}
	for _, s := range sites {
		announced[s.ps.Domain] = s.announced
		rateOf[s.ps.Domain] = s.ps.Rate
	}
	pubAt := map[string]time.Time{}
	siteOf := map[string]string{}
	for _, s := range sites {
		for _, a := range web.Published(s.ps.Domain, start, end) {
			pubAt[a.URL] = a.Published
			siteOf[a.URL] = s.ps.Domain
		}
	}
	seen := map[string]bool{}
	// The sites published before the crawl began (sandbox.PublishBacklog); a crawl
	// that has been running has those already, so they are not news to any of the
	// three and cost none of them fetches.
	for _, s := range sites {
		for _, a := range web.Published(s.ps.Domain, start.Add(-sandbox.PublishBacklog), start) {
			seen[a.URL] = true
		}
	}
	lastDate := map[string]time.Time{} // ours: last date a sitemap/feed gave a URL
	trust := map[string]*discover.Trust{}
	tree := discover.NewTree()
	var queue []string // found, not yet fetched
	slot := time.Duration(float64(time.Hour) / budget)
	// KeepPace as the engine sets it with a budget: a read queued behind articles
	// does not push every later read back (without it ours left 3% of seed 3's
	// slots unspent).
	var poller discPoller = countPoller{&discover.Poller{MinInterval: slot, MaxInterval: 24 * time.Hour, KeepPace: true}}
	if crawl == discoveryEstimatorCrawl {
		poller = newEstimatorPoller(slot, 24*time.Hour)
	}
	rr := 0
	// -trace CRAWL on the simulation: for each measured article, the read that
	// found it (its source, when, the interval since that source's read before)
	// and its fetch.
	tracing := crawl == discLiveTrace
	type foundBy struct {
		src        string
		read, prev time.Time
	}
	var by map[string]foundBy
	lastRead := map[string]time.Time{}
	if tracing {
		by = map[string]foundBy{}
	}
	var fetchTimes []time.Time // ours: recent article fetches, for the poll budget
	for now := start; now.Before(end); now = now.Add(slot) {
		measured := !now.Before(from) && now.Before(until)
		if len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			if measured {
				res.fetches++
			}
			fetchTimes = append(fetchTimes, now)
			if p, ok := pubAt[u]; ok && !p.Before(from) && !p.After(until) {
				lat := now.Sub(p).Seconds()
				if tracing {
					f := by[u]
					fmt.Printf("simtrace %s: article %s site %s rate %.1f/d latency %.0f s: read %.0f s after publish by %s (%.0f s after its read before), fetched %.0f s after that read\n",
						crawl, u, siteOf[u], rateOf[siteOf[u]], lat, f.read.Sub(p).Seconds(), f.src, f.read.Sub(f.prev).Seconds(), now.Sub(f.read).Seconds())
				}
				res.found++
				res.latencies = append(res.latencies, lat)
				if announced[siteOf[u]] {
					res.foundAnnounced++
				} else {
					res.latNeither = append(res.latNeither, lat)
					res.foundNeither++
				}
			}
			continue
		}
		var src *discSource
		switch crawl {
		case "entry_only", "fixed_poller":
			// Round robin over the sources, one per free slot: a fixed interval of
			// len(sources) free slots (the fixed poller's own schedule, StormCrawler's
			// sitemap/feed fetch interval, is set so the budget is used).
			src = sources[rr%len(sources)]
			rr++
		case "ours", discoveryEstimatorCrawl:
			for len(fetchTimes) > 0 && now.Sub(fetchTimes[0]) > 24*time.Hour {
				fetchTimes = fetchTimes[1:]
			}
			articleRate := float64(len(fetchTimes)) / math.Min(24, math.Max(1, now.Sub(start).Hours()))
			poller.SetBudget(math.Max(0.3*budget, budget-articleRate))
			best := time.Time{}
			for _, s := range sources {
				n := poller.Next(s.url)
				if n.After(now) {
					continue
				}
				if src == nil || n.Before(best) {
					src, best = s, n
				}
			}
		}
		if src == nil {
			continue // ours: nothing due; the slot is not spent
		}
		if measured {
			res.fetches++
			res.polls++
		}
		queued := len(queue)
		newItems, total := discoveryPoll(web, src, now, crawl, byURL, &sources, seen, lastDate, trust, tree, &queue, res, measured)
		if tracing {
			for _, u := range queue[queued:] {
				by[u] = foundBy{src: src.url, read: now, prev: lastRead[src.url]}
			}
			lastRead[src.url] = now
		}
		if crawl != "entry_only" && crawl != "fixed_poller" {
			poller.Observe(src.url, now, newItems, total > 0 && newItems == total)
		}
	}
	for site, tr := range trust {
		if ok, why := tr.Trusted(); !ok {
			res.untrusted = append(res.untrusted, site+": "+why)
		}
	}
	sort.Strings(res.untrusted)
	for u, p := range pubAt {
		if p.Before(from) || p.After(until) {
			continue
		}
		res.published++
		if announced[siteOf[u]] {
			res.pubAnnounced++
		} else {
			res.pubNeither++
		}
	}
	return res
}

// discoveryPoll fetches one source at now: an entry page's article links, or a feed
// or sitemap parsed by engine/discover; it queues the new URLs and returns how many
// there were and how many the document listed.
func discoveryPoll(web *sandbox.Web, src *discSource, now time.Time, crawl string, byURL map[string]*discSource,
	sources *[]*discSource, seen map[string]bool, lastDate map[string]time.Time, trust map[string]*discover.Trust,
	tree *discover.Tree, queue *[]string, res *discResult, measured bool) (newItems, total int) {
	add := func(u string) {
		if !seen[u] {
			seen[u] = true
			*queue = append(*queue, u)
			newItems++
		}
	}
	if src.kind == "entry" {
		host := strings.TrimPrefix(src.url, "http://")
		host, _, _ = strings.Cut(host, "/")
		links := web.PublishingEntryLinks(host, now)
		for _, u := range links {
			add(u)
		}
		return newItems, len(links)
	}
	body, _, ok := web.RenderDiscovery(src.url, now)
	if !ok {
		res.warnings["not_found"]++
		return 0, 0
	}
	if src.body == nil || !bytes.Equal(body, src.body) {
		src.body = body
		src.doc, src.err = discover.Parse(body, discover.Limits{})
	}
	doc, err := src.doc, src.err
	for k, n := range doc.Warnings {
		res.warnings[k] += n
	}
	if err != nil {
		res.warnings["parse_error"]++
		return 0, 0
	}
	if doc.Kind == discover.KindIndex {
		if !src.known {
			tree.Root(src.site, src.url)
			src.known = true
		}
		for _, e := range doc.Entries {
			if !discover.Allowed(discover.KindSitemap, src.url, e.URL, nil) {
				res.warnings["off_host"]++
				continue
			}
			if byURL[e.URL] != nil {
				continue
			}
			if why := tree.Child(src.site, src.url, e.URL); why != "" {
				res.warnings[why]++
				continue
			}
			child := &discSource{url: e.URL, site: src.site, kind: "doc", cross: src.cross}
			byURL[e.URL] = child
			*sources = append(*sources, child)
		}
		return 0, len(doc.Entries)
	}
	tr := trust[src.site]
	if tr == nil {
		tr = &discover.Trust{}
		trust[src.site] = tr
	}
	if doc.Kind != discover.KindFeed {
		tr.ObserveDocument(doc.Entries, now)
	}
	trusted, _ := tr.Trusted()
	for _, e := range doc.Entries {
		if !discover.Allowed(doc.Kind, src.url, e.URL, src.cross) {
			res.warnings["off_host"]++
			continue
		}
		total++
		if seen[e.URL] {
			// A known page whose date moved: due now, if the site's dates are
			// trusted (ours only; the articles of this model never change, so
			// every such refetch finds nothing new — and teaches Trust so).
			if d := e.Latest(); crawl != "entry_only" && crawl != "fixed_poller" && !d.IsZero() && d.After(lastDate[e.URL]) && !lastDate[e.URL].IsZero() {
				if trusted {
					if measured {
						res.hintRefetches++
						res.fetches++
					}
					tr.ObserveHint(false)
				}
			}
			lastDate[e.URL] = e.Latest()
			continue
		}
		lastDate[e.URL] = e.Latest()
		add(e.URL)
	}
	return newItems, total
}

// discoveryPercentile is the q-quantile of xs; -1 when xs is empty (nothing found,
// so no latency to report).
func discoveryPercentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return -1
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// discoveryPercentileOfAll is discoveryPercentile over all of published items, of
// which xs are the latencies of those found: an item never found counts as never
// (+Inf).
func discoveryPercentileOfAll(xs []float64, published int, q float64) float64 {
	if published == 0 {
		return -1
	}
	all := slices.Clone(xs)
	for len(all) < published {
		all = append(all, math.Inf(1))
	}
	return discoveryPercentile(all, q)
}

// discoveryFigures are one crawl's figures. p95NeitherAll is the p95 on sites with
// neither over every article they published, one never stored counting as never.
type discoveryFigures struct {
	p50, p95, found, foundAnn, foundNeither, p95Neither, p95NeitherAll, fpa float64
}

func discoveryFiguresOf(r *discResult) discoveryFigures {
	share := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return crawlRound(float64(a)/float64(b), 4)
	}
	return discoveryFigures{
		p50:           crawlRound(discoveryPercentile(r.latencies, 0.5), 0),
		p95:           crawlRound(discoveryPercentile(r.latencies, 0.95), 0),
		found:         share(r.found, r.published),
		foundAnn:      share(r.foundAnnounced, r.pubAnnounced),
		foundNeither:  share(r.foundNeither, r.pubNeither),
		p95Neither:    crawlRound(discoveryPercentile(r.latNeither, 0.95), 0),
		p95NeitherAll: discoveryPercentileOfAll(r.latNeither, r.pubNeither, 0.95),
		fpa:           crawlRound(float64(r.fetches)/math.Max(1, float64(r.found)), 3),
	}
}

func discoveryReport(rs map[string]*discResult) (map[string]any, map[string]discoveryFigures) {
	p50, p95, found, fpa := map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}
	foundAnn, p95Neither, foundNeither := map[string]any{}, map[string]any{}, map[string]any{}
	fmt.Printf("\n%-22s %9s %9s %7s %9s %11s %9s %11s %7s %6s\n", "crawl", "p50_s", "p95_s", "found", "found_ann", "found_none", "p95_none", "fetch/new", "polls", "hints")
	figs := map[string]discoveryFigures{}
	for _, c := range append(discoveryCrawls[:len(discoveryCrawls):len(discoveryCrawls)], discoveryExtraCrawls...) {
		r := rs[c]
		if r == nil {
			continue
		}
		f := discoveryFiguresOf(r)
		figs[c] = f
		fmt.Printf("%-22s %9.0f %9.0f %7.4f %9.4f %11.4f %9.0f %11.3f %7d %6d\n", c, f.p50, f.p95, f.found, f.foundAnn, f.foundNeither, f.p95Neither, f.fpa, r.polls, r.hintRefetches)
		if slices.Contains(discoveryExtraCrawls, c) {
			continue
		}
		p50[c], p95[c], found[c], fpa[c] = f.p50, f.p95, f.found, f.fpa
		foundAnn[c], foundNeither[c], p95Neither[c] = f.foundAnn, f.foundNeither, f.p95Neither
	}
	fmt.Println("(-1 s: no article of that kind was found)")
	o := rs["ours"]
	fmt.Printf("\nours: sites whose dates are not trusted: %v\nours: document warnings: %v\n", o.untrusted, o.warnings)
	out := map[string]any{
		"latency_p50_s":               p50,
		"latency_p95_s":               p95,
		"found_share":                 found,
		"fetches_per_new_article":     fpa,
		"found_share_feed_or_sitemap": foundAnn,
		"found_share_neither":         foundNeither,
		"latency_p95_s_neither":       p95Neither,
		"ours_untrusted_sites":        len(o.untrusted),
		"ours_hint_refetches":         o.hintRefetches,
	}
	for _, c := range discoveryExtraCrawls {
		if x, ok := figs[c]; ok {
			out[c] = map[string]any{
				"latency_p50_s": x.p50, "latency_p95_s": x.p95, "found_share": x.found,
				"fetches_per_new_article": x.fpa, "found_share_feed_or_sitemap": x.foundAnn,
				"found_share_neither": x.foundNeither, "latency_p95_s_neither": x.p95Neither,
			}
		}
	}
	return out, figs
}
