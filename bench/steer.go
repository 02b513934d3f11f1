package main

// go run ./bench steer — a keyword added live is searched at once.
//
//	go run ./bench steer [-keywords 20] [-scale 50] [-hosts 40] [-site-keywords 40] [-lanes 24]
//	                     [-egresses 1] [-warmup 2s] [-seed 1] [-timeout 20s]
//
// A crawl of the sandbox with the demo's settings (cli.DemoOptions: loopback
// egresses, lane pauses 1.25..3 × the sandbox's human gap, one request per web second
// per host; at the default scale 50 that is delay_min 50 ms, delay_max 120 ms), its
// social site searched for -site-keywords keywords so that the search host's lane
// always has a backlog (a lane pausing between two searches is the case this
// measures). After -warmup, -keywords new keywords are added to that site one by one
// through Engine.Steer, the call `:keyword add` and `ctl keyword add` end in. Each
// latency runs from just before Steer is called (the command reaching the engine) to
// the start of the first request for that keyword at the sandbox's site-search
// endpoint (the sandbox's truth log: the server's side, the handler's start). The next
// keyword is added once every page of the last one was asked for, after a random wait
// of 0..2 × delay_max, so that commands land at every phase of the lane's pause.
//
// Two crawls, one after the other, each on its own sandbox built from the same seed:
//
//	before  the engine as it was (Options.SteerBaseline): a lane pausing between two
//	        fetches sleeps its random pause out, so the operator's search, at the
//	        head of its queue, waits for the rest of it; and the search reaches the
//	        board when the store's write batch that inserts it commits
//	ours    the pause is cut to delay_min after the lane's last response for the
//	        operator's search (the gate still holds the host's gaps), and the search
//	        is on the board when Steer returns
//
// Both trade a task in hand (at the gate, or pausing after the lane ran dry) for the
// operator's search, and send it first at the host's gate.
//
// With -egresses 1 (the default) the search host has one lane, whose pause is what
// the operator waits for; with the demo's four, up to four lanes share the host's
// slots and the search's lane is often at the gate already.
//
// Goal: first_search_p95_ms <= delay_max_ms (ours). The last line is one JSON object.
//
// The sandbox's search quota is raised out of the way (it would ban the crawl's
// addresses from the search host, which measures the quota, not steering); its other
// anti-bot rules hold and the run counts their violations (M1: must be 0).

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/ui/cli"
)

func init() { register("steer", runSteer) }

// steerSetup is one run's settings.
type steerSetup struct {
	keywords     int
	scale        float64
	hosts        int
	siteKeywords int
	lanes        int
	warmup       time.Duration
	seed         int64
	timeout      time.Duration // per keyword, for its first search
	egresses     int           // how many of the demo's egresses the crawl leaves from
}

// steerRun is what one crawl measured.
type steerRun struct {
	name       string
	latencies  []time.Duration // per keyword, in the order added; -1 when none came
	lanes      []string        // the search host's lanes at each add (status, backlog)
	violations int             // M1 violations the sandbox saw
	bans       int
	requests   int
	delayMax   time.Duration
	delayMin   time.Duration
}

func runSteer(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("steer", flag.ContinueOnError)
	s := steerSetup{}
	fs.IntVar(&s.keywords, "keywords", 20, "keywords added live, one by one")
	fs.Float64Var(&s.scale, "scale", 50, "sandbox time scale (the demo's lane pauses are 1.25..3 × 2 s / scale)")
	fs.IntVar(&s.hosts, "hosts", 40, "sandbox hosts")
	fs.IntVar(&s.siteKeywords, "site-keywords", 40, "keywords per sandbox site at start (the search host's backlog)")
	fs.IntVar(&s.lanes, "lanes", 24, "lanes.max")
	fs.DurationVar(&s.warmup, "warmup", 2*time.Second, "crawl time before the first keyword is added")
	fs.Int64Var(&s.seed, "seed", 1, "sandbox seed (and the waits between keywords)")
	fs.IntVar(&s.egresses, "egresses", 1, "how many of the demo's four loopback egresses the crawl leaves from (1: one lane per host)")
	fs.DurationVar(&s.timeout, "timeout", 20*time.Second, "longest wait for one keyword's first search")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if s.keywords < 1 || s.scale <= 0 || s.siteKeywords < 1 {
		return nil, fmt.Errorf("-keywords and -site-keywords must be >= 1 and -scale > 0")
	}
	fmt.Printf("steer: %d keywords added live to the sandbox's social site, one by one (GOMAXPROCS %d, %s, load average %s)\n",
		s.keywords, runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(3))
	var runs []steerRun
	for _, v := range []struct {
		name     string
		baseline bool
	}{{"before", true}, {"ours", false}} {
		r, err := steerCrawl(s, v.name, v.baseline)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		runs = append(runs, r)
	}
	before, ours := runs[0], runs[1]
	fmt.Printf("\ndelay_min_ms %d, delay_max_ms %d (the lane's random pause between two requests)\n\n",
		ours.delayMin.Milliseconds(), ours.delayMax.Milliseconds())
	fmt.Printf("%-4s %10s %10s   %s\n", "kw", "before ms", "ours ms", "search host's lanes at the add (ours)")
	for i := range ours.latencies {
		fmt.Printf("%-4d %10s %10s   %s\n", i+1, steerMs(before.latencies[i]), steerMs(ours.latencies[i]), ours.lanes[i])
	}
	out := map[string]any{"keywords": s.keywords, "delay_max_ms": ours.delayMax.Milliseconds(), "load": loadAvg(1)}
	fmt.Println()
	for _, r := range runs {
		p50, p95, missing := steerQuantiles(r.latencies)
		fmt.Printf("%-7s first search p50 %6.1f ms  p95 %6.1f ms  max %6.1f ms  missing %d  (sandbox: %d requests, %d M1 violations, %d bans)\n",
			r.name, p50, p95, steerMax(r.latencies), missing, r.requests, r.violations, r.bans)
		key := ""
		if r.name == "before" {
			key = "before_"
		}
		out[key+"first_search_p50_ms"] = crawlRound(p50, 1)
		out[key+"first_search_p95_ms"] = crawlRound(p95, 1)
		out[key+"missing"] = missing
		out[key+"violations"] = r.violations
		out[key+"bans"] = r.bans
	}
	_, bp95, _ := steerQuantiles(before.latencies)
	_, op95, missing := steerQuantiles(ours.latencies)
	ratio := 0.0
	if op95 > 0 {
		ratio = bp95 / op95
	}
	out["p95_before_over_ours"] = crawlRound(ratio, 2)
	dm := float64(ours.delayMax.Milliseconds())
	ok := op95 <= dm && missing == 0 && ours.violations == 0
	fmt.Printf("\np95 before / ours: %.2f×\ngoal first_search_p95_ms <= delay_max_ms: %.1f <= %.0f: %s\n", ratio, op95, dm, steerVerdict(ok))
	out["goal_met"] = ok
	return out, nil
}

func steerVerdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func steerMs(d time.Duration) string {
	if d < 0 {
		return "none"
	}
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
}

// steerQuantiles are the p50 and p95 (nearest rank) in ms of the latencies that
// came, and how many did not.
func steerQuantiles(ls []time.Duration) (p50, p95 float64, missing int) {
	var ms []float64
	for _, d := range ls {
		if d < 0 {
			missing++
			continue
		}
		ms = append(ms, float64(d)/float64(time.Millisecond))
	}
	if len(ms) == 0 {
		return 0, 0, missing
	}
	sort.Float64s(ms)
	rank := func(q float64) float64 {
		i := int(q*float64(len(ms))+0.999999) - 1
		return ms[max(0, min(i, len(ms)-1))]
	}
	return rank(0.5), rank(0.95), missing
}

func steerMax(ls []time.Duration) float64 {
	var m time.Duration
	for _, d := range ls {
		m = max(m, d)
	}
	return float64(m) / float64(time.Millisecond)
}

// steerCrawl runs one crawl and adds the keywords.
func steerCrawl(s steerSetup, name string, baseline bool) (steerRun, error) {
	cfg := crawlSandboxConfig(s.hosts, s.scale)
	cfg.Seed = s.seed
	cfg.Layout.Keywords = s.siteKeywords
	cfg.Search.Quota = 1 << 30 // out of the way: see the file comment
	sb, err := sandbox.Start(cfg)
	if err != nil {
		return steerRun{}, err
	}
	defer sb.Close()
	var social sandbox.Site
	for _, site := range sb.Info().Sites {
		if site.Search != "" {
			social = site
			break
		}
	}
	if social.Search == "" {
		return steerRun{}, fmt.Errorf("the sandbox (seed %d, %d hosts) has no social site: try another -seed", s.seed, s.hosts)
	}
	searchHost := strings.ToLower(social.Hosts[0])
	dir, err := os.MkdirTemp("", "bench-steer-")
	if err != nil {
		return steerRun{}, err
	}
	defer os.RemoveAll(dir)
	o := cli.DemoOptions(sb, filepath.Join(dir, "crawl.db"))
	o.Lanes.Max = s.lanes
	if s.egresses >= 1 && s.egresses < len(o.Egress) {
		o.Egress = o.Egress[:s.egresses]
	}
	o.SteerBaseline = baseline
	e, err := engine.New(o)
	if err != nil {
		return steerRun{}, err
	}
	if err := e.Start(); err != nil {
		e.Close()
		return steerRun{}, err
	}
	defer e.Close()
	run := steerRun{name: name, delayMin: o.Lanes.DelayMin, delayMax: o.Lanes.DelayMax}
	fmt.Printf("%s: site %s (search host %s, %d keywords × %d pages at start), delay %v..%v, host_rate %.0f/s, %d lanes max, %d egresses\n",
		name, social.Domain, searchHost, len(social.Keywords), cfg.Search.PagesPerKeyword, o.Lanes.DelayMin, o.Lanes.DelayMax,
		o.HostRate, o.Lanes.Max, len(o.Egress))
	time.Sleep(s.warmup)
	rng := rand.New(rand.NewPCG(uint64(s.seed), 7))
	_, mark := sb.Truth().RequestsSince(0)
	for i := range s.keywords {
		kw := fmt.Sprintf("steer%02dword", i+1)
		run.lanes = append(run.lanes, steerHostLanes(e.Snapshot(), searchHost))
		at := time.Now()
		if _, err := e.Steer(steer.Change{Op: steer.KeywordAdd, Site: social.Domain, Keywords: []string{kw}}); err != nil {
			return steerRun{}, fmt.Errorf("keyword add %s %s: %w", social.Domain, kw, err)
		}
		first, next := steerWait(sb, mark, searchHost, kw, cfg.Search.PagesPerKeyword, at.Add(s.timeout))
		mark = next
		if first.IsZero() {
			run.latencies = append(run.latencies, -1)
			fmt.Printf("  %s: no search for %q within %v\n", name, kw, s.timeout)
		} else {
			run.latencies = append(run.latencies, first.Sub(at))
		}
		time.Sleep(time.Duration(rng.Int64N(int64(2*o.Lanes.DelayMax) + 1)))
	}
	acct := crawlAccountSince(sb, 0, 0)
	run.violations, run.bans, run.requests = acct.violations, acct.bans, acct.requests
	return run, nil
}

// steerWait follows the sandbox's truth log from index since until every one of
// pages search pages for kw on host was asked for, or until deadline. first is the
// start of the first of them (zero if none came); next is where to read on from.
func steerWait(sb *sandbox.Sandbox, since int, host, kw string, pages int, deadline time.Time) (first time.Time, next int) {
	asked := map[string]bool{}
	next = since
	for time.Now().Before(deadline) {
		reqs, n := sb.Truth().RequestsSince(next)
		next = n
		for _, r := range reqs {
			if r.Host != host {
				continue
			}
			u, err := url.Parse(r.URL)
			if err != nil || u.Path != "/search" || u.Query().Get("q") != kw {
				continue
			}
			if first.IsZero() || r.Start.Before(first) {
				first = r.Start
			}
			asked[u.Query().Get("page")] = true
		}
		if len(asked) >= pages {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return first, next
}

// steerHostLanes describes the lanes holding host: status and backlog.
func steerHostLanes(snap view.Snapshot, host string) string {
	var parts []string
	for _, l := range snap.Lanes {
		for _, h := range l.Hosts {
			if h == host {
				parts = append(parts, fmt.Sprintf("%d:%s/%d", l.ID, l.Status, l.Queued))
				break
			}
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}
