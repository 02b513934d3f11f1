package main

// Benchmark "throughput": pages per second and CPU time a page of a crawlconsole crawl
// against bare colly, both in this process, over the same sandbox pages, which a child
// process serves (throughput_child.go). Goal: ratio_vs_colly >= 0.9.
//
// The CPU time is given twice: this process's alone (own: the crawler's, with its
// share of both ends of loopback HTTP) and with the sandbox child's added (all: what
// the bench measured when the sandbox served from this process too). The sandbox's
// part is not the same for both: colly dials some 2,000 connections a crawl (the
// DNS column: its transport asks once a dial; crawlconsole caches names), and the
// sandbox's accepts and closes of them are most of the difference in its profile
// (-sandbox-cpuprofile profiles the child).
//
//	go run ./bench throughput [-hosts 240] [-par 16] [-reps 5] [-robots=true]
//	                          [-only crawlconsole|colly] [-cpuprofile FILE] [-scrape D]
//	                          [-sandbox-cpuprofile FILE]
//
// -scrape D serves crawlconsole's /metrics (engine/metrics) during its runs and
// scrapes it every D, to see what monitoring costs a crawl (0: no /metrics).
//
// Both crawl the whole sandbox from its sites' entry pages to completion, following
// links inside the sandbox's hosts, with the same parallelism and every delay and
// politeness cap off: crawlconsole with lanes.max = par, delay 0..0, host cap 0, no
// adaptive gap (config.FixedPoliteness; -adaptive keeps the default's on);
// colly Async with LimitRule{DomainGlob: "*", Parallelism: par} (one semaphore for all
// hosts) and its visited-set dedupe. robots.txt is honoured by both or by neither.
// Anti-bot rule, faults, dead hosts and Crawl-delay are off in the sandbox, DNS answers
// within 0.2 ms. crawlconsole keeps what it fetches in its SQLite store (batched
// writer) in a temporary directory; colly keeps nothing. Runs alternate (A B B A A B
// ...) to cancel drift on a shared machine; the medians are reported.
//
// M1 lanes fetch a host serially (one request in flight per host and per parent page
// on an address) and bind hosts whose pages share a parent to one lane, so the sandbox
// needs many hosts (default 240, about 60 sites) for 16 lanes to stay busy; colly
// fetches up to par pages of one host at once.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/metrics"
	"github.com/crawlconsole/crawlconsole/engine/page"
)

func init() { register("throughput", runThroughput) }

// throughputRun is one timed crawl of the sandbox.
type throughputRun struct {
	crawler string
	pages   int // pages the sandbox served with 200 (robots.txt excluded)
	unique  int
	reqs    int
	wall    time.Duration
	cpu     time.Duration // this process's CPU time over the run: the crawler's alone
	sbCPU   time.Duration // the sandbox child's CPU time over the run
	dns     int           // DNS queries the sandbox answered
	note    string
}

func (r throughputRun) rate() float64 { return float64(r.pages) / r.wall.Seconds() }

// ownPerPage is the crawler's CPU time per page in microseconds (this process's: the
// sandbox serves from a child). On a busy machine it compares crawlers where wall
// time cannot.
func (r throughputRun) ownPerPage() float64 { return r.perPage(r.cpu) }

// cpuPerPage adds the sandbox child's CPU time: what the bench reported when the
// sandbox served from this process.
func (r throughputRun) cpuPerPage() float64 { return r.perPage(r.cpu + r.sbCPU) }

func (r throughputRun) perPage(d time.Duration) float64 {
	if r.pages == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(r.pages)
}

const (
	crawlerCC    = "crawlconsole"
	crawlerColly = "colly"
)

func runThroughput(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("throughput", flag.ContinueOnError)
	hosts := fs.Int("hosts", 240, "sandbox virtual hosts")
	par := fs.Int("par", 16, "parallelism of both crawlers (crawlconsole lanes, colly LimitRule)")
	reps := fs.Int("reps", 5, "timed crawls per crawler")
	robots := fs.Bool("robots", true, "both crawlers honour robots.txt")
	only := fs.String("only", "", "run only this crawler (crawlconsole or colly), e.g. to profile it")
	ceilingD := fs.Duration("ceiling-d", 3*time.Second, "duration of the sandbox ceiling measurement (0: none)")
	timeout := fs.Duration("timeout", 3*time.Minute, "give up on a crawl after this long")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed crawls to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the timed crawls to this file")
	sbProfile := fs.String("sandbox-cpuprofile", "", "write a CPU profile of the sandbox child (from after its ceiling to its end) to this file")
	fs.BoolVar(&throughputTraps, "traps", true, "crawlconsole's crawler-trap guards on (false: their cost measured by difference)")
	fs.BoolVar(&throughputAdaptive, "adaptive", false, "keep crawlconsole's adaptive politeness (delay_factor × latency, back-off) on; off by default like every other delay")
	fs.DurationVar(&throughputStoreDelay, "store-delay", 0, "crawlconsole's store.Options.BatchDelay (0: the store's default)")
	scrape := fs.Duration("scrape", 0, "serve crawlconsole's /metrics and scrape it every `D` during its runs (0: off)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *par < 1 || *reps < 1 || *hosts < 2 {
		return nil, errors.New("-par and -reps must be positive, -hosts at least 2")
	}
	if *only != "" && *only != crawlerCC && *only != crawlerColly {
		return nil, fmt.Errorf("-only %q: want %s or %s", *only, crawlerCC, crawlerColly)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sb, err := startThroughputSandbox(ctx, *hosts, *par, *ceilingD, *sbProfile)
	if err != nil {
		return nil, err
	}
	defer sb.Close()
	seeds, dnsAddr := sb.seeds(), sb.Info.DNS

	robotsNote := "honoured by both"
	if !*robots {
		robotsNote = "ignored by both (/private/ pages fetched too)"
	}
	fmt.Printf("throughput: sandbox of %d hosts in %d sites (anti-bot, faults, dead hosts, Crawl-delay off; DNS ≤ 0.2 ms), robots.txt %s\n",
		*hosts, len(seeds), robotsNote)
	fmt.Printf("  crawlconsole: %d lanes, delay 0..0, host cap off, 1 egress (direct), SQLite store in a temp dir\n", *par)
	fmt.Printf("  colly %s: Async, LimitRule{DomainGlob: \"*\", Parallelism: %d}, AllowedDomains = sandbox hosts, visited-set dedupe,\n"+
		"    transport pooled like crawlconsole's (512 idle, 8 per host), names from the sandbox DNS\n", collyVersion(), *par)
	fmt.Printf("  GOMAXPROCS %d, %s, load average %s\n", runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(1))
	fmt.Printf("  the sandbox serves from a child process (pid %d); CPU µs a page: own = this process, the crawler alone;\n"+
		"    all = own + the sandbox child's (the one-process figure this bench gave before)\n", sb.Pid())
	fmt.Printf("  sandbox ceiling (Go keep-alive client, %d connections, small articles, in the child): %.0f pages/s\n\n", *par, sb.Ceiling)

	stop, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return nil, err
	}
	defer stop()
	stopMem, err := startMemProfile(*memProfile)
	if err != nil {
		return nil, err
	}
	defer stopMem()

	crawl := func(name string) (throughputRun, error) {
		mark, err := sb.mark()
		if err != nil {
			return throughputRun{}, err
		}
		cpu0, heap0 := crawlCPU(), readHeapCount()
		var wall time.Duration
		var note string
		if name == crawlerCC {
			wall, note, err = throughputCrawlconsole(dnsAddr, seeds, *par, *robots, *timeout, *scrape)
		} else {
			wall, note, err = throughputColly(dnsAddr, sb.hosts(), seeds, *par, *robots, *timeout)
		}
		if err != nil {
			return throughputRun{}, fmt.Errorf("%s: %w", name, err)
		}
		cpu, heap := crawlCPU()-cpu0, readHeapCount().since(heap0)
		a, dns, sbCPU, err := sb.account(mark)
		if err != nil {
			return throughputRun{}, err
		}
		if h := heap.note(a.pages); h != "" {
			note += ", " + h
		}
		return throughputRun{crawler: name, pages: a.pages, unique: a.unique, reqs: a.requests, wall: wall, cpu: cpu, sbCPU: sbCPU, dns: dns, note: note}, nil
	}
	fmt.Printf("%-4s %-13s %7s %7s %7s %6s %9s %9s %10s %10s  %s\n", "run", "crawler", "pages", "unique", "reqs", "DNS", "wall s", "pages/s", "own µs/pg", "all µs/pg", "notes")
	var runs []throughputRun
	for i := 0; i < *reps; i++ {
		order := []string{crawlerCC, crawlerColly}
		if i%2 == 1 {
			order = []string{crawlerColly, crawlerCC}
		}
		for _, name := range order {
			if *only != "" && name != *only {
				continue
			}
			r, err := crawl(name)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
			fmt.Printf("%-4d %-13s %7d %7d %7d %6d %9.2f %9.0f %10.0f %10.0f  %s\n", len(runs), r.crawler, r.pages, r.unique, r.reqs, r.dns, r.wall.Seconds(), r.rate(), r.ownPerPage(), r.cpuPerPage(), r.note)
		}
	}

	var ccRates, collyRates, ccCPU, collyCPU, ccOwn, collyOwn, ccSB, collySB []float64
	pages := map[string]int{}
	for _, r := range runs {
		sbPerPage := r.perPage(r.sbCPU)
		if r.crawler == crawlerCC {
			ccRates, ccCPU, ccOwn, ccSB = append(ccRates, r.rate()), append(ccCPU, r.cpuPerPage()), append(ccOwn, r.ownPerPage()), append(ccSB, sbPerPage)
		} else {
			collyRates, collyCPU, collyOwn, collySB = append(collyRates, r.rate()), append(collyCPU, r.cpuPerPage()), append(collyOwn, r.ownPerPage()), append(collySB, sbPerPage)
		}
		pages[r.crawler] = r.unique
	}
	// Each repetition ran the two crawlers back to back, so their ratio within it is
	// the least disturbed by the machine's load drifting between repetitions.
	var paired []float64
	for i := 0; i+1 < len(runs); i += 2 {
		x, y := runs[i], runs[i+1]
		if x.crawler == crawlerColly {
			x, y = y, x
		}
		if x.crawler == crawlerCC && y.crawler == crawlerColly && y.rate() > 0 {
			paired = append(paired, x.rate()/y.rate())
		}
	}
	cc, co := crawlMedian(ccRates), crawlMedian(collyRates)
	ccC, coC := crawlMedian(ccCPU), crawlMedian(collyCPU)
	ccO, coO := crawlMedian(ccOwn), crawlMedian(collyOwn)
	ccS, coS := crawlMedian(ccSB), crawlMedian(collySB)
	var ratio, cpuRatio, ownRatio any
	fmt.Println()
	fmt.Printf("%-34s %10s %12s %12s %12s\n", "median over runs", "pages/s", "own µs/page", "all µs/page", "sandbox's")
	fmt.Printf("%-34s %10.0f %12.0f %12.0f %12.0f\n", "crawlconsole", cc, ccO, ccC, ccS)
	fmt.Printf("%-34s %10.0f %12.0f %12.0f %12.0f\n", "colly", co, coO, coC, coS)
	if cc > 0 && co > 0 {
		ratio, cpuRatio, ownRatio = crawlRound(cc/co, 3), crawlRound(coC/ccC, 3), crawlRound(coO/ccO, 3)
		fmt.Printf("%-34s %10.3f %12.3f %12.3f   (goal ≥ 0.9 for pages/s; CPU ratios colly/crawlconsole)\n", "ratio crawlconsole / colly", cc/co, coO/ccO, coC/ccC)
	}
	if len(paired) > 0 {
		fmt.Printf("%-34s %10.3f   (median of the %d back-to-back pairs)\n", "paired ratio", crawlMedian(append([]float64(nil), paired...)), len(paired))
	}
	fmt.Printf("%-34s %10.0f\n", "sandbox ceiling", sb.Ceiling)
	if pages[crawlerCC] > 0 && pages[crawlerColly] > 0 && pages[crawlerCC] != pages[crawlerColly] {
		fmt.Printf("note: the crawlers fetched different page sets: %d vs %d distinct URLs\n", pages[crawlerCC], pages[crawlerColly])
	}
	if err := sb.Close(); err != nil {
		return nil, fmt.Errorf("sandbox child: %w", err)
	}
	return map[string]any{
		"pages_per_s":                   crawlRound(cc, 1),
		"colly_pages_per_s":             crawlRound(co, 1),
		"ratio_vs_colly":                ratio,
		"ceiling_pages_per_s":           crawlRound(sb.Ceiling, 1),
		"cpu_us_per_page":               crawlRound(ccC, 1),
		"paired_ratio_median":           crawlRound(crawlMedian(paired), 3),
		"colly_cpu_us_per_page":         crawlRound(coC, 1),
		"cpu_ratio_vs_colly":            cpuRatio,
		"own_cpu_us_per_page":           crawlRound(ccO, 1),
		"colly_own_cpu_us_per_page":     crawlRound(coO, 1),
		"own_cpu_ratio_vs_colly":        ownRatio,
		"sandbox_cpu_us_per_page":       crawlRound(ccS, 1),
		"colly_sandbox_cpu_us_per_page": crawlRound(coS, 1),
		"pages":                         max(pages[crawlerCC], pages[crawlerColly]),
		"hosts":                         *hosts,
		"parallelism":                   *par,
		"reps":                          *reps,
		"robots":                        *robots,
		"gomaxprocs":                    runtime.GOMAXPROCS(0),
	}, nil
}

// throughputTraps is -traps: the trap guards run on every link found.
var throughputTraps = true

// throughputStoreDelay is -store-delay: the store writer's batch delay, to weigh
// what fewer, bigger commits save.
var throughputStoreDelay time.Duration

// throughputAdaptive keeps the adaptive politeness terms on (-adaptive): what the
// default costs on healthy loopback hosts.
var throughputAdaptive bool

// throughputCrawlconsole crawls the sandbox to completion with every delay off and
// returns the time from Start to the crawl running dry (the store's last writes are
// committed by Close, timed apart in the note).
func throughputCrawlconsole(dnsAddr string, seeds []string, par int, robots bool, timeout, scrape time.Duration) (time.Duration, string, error) {
	dir, err := os.MkdirTemp("", "bench-throughput-")
	if err != nil {
		return 0, "", err
	}
	defer os.RemoveAll(dir)
	o := config.DefaultOptions()
	o.Seeds = seeds
	o.DB = filepath.Join(dir, "crawl.db")
	o.DNSServers = []string{dnsAddr}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = par
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, 0
	o.HostRate = 0
	if !throughputAdaptive {
		o.Politeness = config.FixedPoliteness() // the adaptive gap is a politeness delay too
	}
	o.Robots = robots
	o.Store.BatchDelay = throughputStoreDelay
	if !throughputTraps {
		o.Traps = frontier.TrapOptions{}
	}
	e, err := engine.New(o)
	if err != nil {
		return 0, "", err
	}
	stopScraping := func() int { return 0 }
	if scrape > 0 {
		srv, err := metrics.Listen("127.0.0.1:0", false)
		if err != nil {
			e.Close()
			return 0, "", err
		}
		srv.Serve(e)
		defer srv.Close()
		quit, scraped := make(chan struct{}), make(chan int)
		go func() {
			n := 0
			t := time.NewTicker(scrape)
			defer t.Stop()
			for {
				select {
				case <-quit:
					scraped <- n
					return
				case <-t.C:
					if resp, err := http.Get("http://" + srv.Addr() + "/metrics"); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						n++
					}
				}
			}
		}()
		stopScraping = func() int { close(quit); return <-scraped }
	}
	passes0 := page.TokenizerPasses()
	start := time.Now()
	if err := e.Start(); err != nil {
		e.Close()
		return 0, "", err
	}
	select {
	case <-e.Done():
	case <-time.After(timeout):
		stopScraping()
		e.Close()
		return 0, "", fmt.Errorf("crawl not done after %v", timeout)
	}
	wall := time.Since(start)
	scrapes := stopScraping()
	st := e.Stats()
	closeStart := time.Now()
	if err := e.Close(); err != nil {
		return 0, "", err
	}
	errs := int64(0)
	for k, v := range st.Errors {
		if k != fetch.KindRobots {
			errs += v
		}
	}
	// Every body the crawl read (pages, error pages, redirects' bodies) counts; the
	// goal is one tokenizer pass per response read, whoever reads it.
	passes := page.TokenizerPasses() - passes0
	note := fmt.Sprintf("lanes peak %d, errors %d, close %.2fs, tokenizer passes %d (%.3f per page fetched)",
		st.LanesPeak, errs, time.Since(closeStart).Seconds(), passes, float64(passes)/float64(max(st.PagesFetched, 1)))
	if scrape > 0 {
		note += fmt.Sprintf(", %d scrapes of /metrics", scrapes)
	}
	return wall, note, nil
}

// throughputColly crawls the sandbox to completion with bare colly.
func throughputColly(dnsAddr string, hosts, seeds []string, par int, robots bool, timeout time.Duration) (time.Duration, string, error) {
	c := colly.NewCollector(colly.Async(true), colly.AllowedDomains(hosts...))
	c.IgnoreRobotsTxt = !robots
	tr := crawlTransport(dnsAddr, netip.Addr{})
	defer tr.CloseIdleConnections()
	c.WithTransport(tr)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: par}); err != nil {
		return 0, "", err
	}
	var errs atomic.Int64
	c.OnError(func(*colly.Response, error) { errs.Add(1) })
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		e.Request.Visit(e.Attr("href")) //nolint:errcheck // visited, filtered or disallowed links are expected
	})
	start := time.Now()
	for _, s := range seeds {
		var visited *colly.AlreadyVisitedError
		if err := c.Visit(s); err != nil && !errors.As(err, &visited) { // a link from an earlier seed may have got there first
			return 0, "", err
		}
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		return 0, "", fmt.Errorf("crawl not done after %v", timeout)
	}
	return time.Since(start), fmt.Sprintf("errors %d", errs.Load()), nil
}

// collyVersion is the colly module version this binary was built with.
func collyVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/gocolly/colly/v2" {
				return d.Version
			}
		}
	}
	return "v2"
}
