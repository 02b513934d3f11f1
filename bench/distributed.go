package main

// Benchmark "distributed": the distributed crawl (M4: a master with the frontier and
// store, workers with the lanes, over NATS JetStream) in one process, all on loopback.
// Goals: scaleout_3_vs_1 >= 2.7 with 0 bans; overhead_ratio_vs_inprocess >= 0.8; the
// master's store keeps >= 1.5x headroom over what 3 workers deliver.
//
//	go run ./bench distributed [-hosts 120] [-listings 6] [-articles 20] [-scale 50]
//	                           [-lanes 16] [-warmup 1s] [-window 10s] [-reps 2]
//	                           [-ohosts 240] [-par 16] [-oreps 3] [-hb 1s]
//	                           [-complete] [-only scaleout|overhead] [-cpuprofile FILE]
//
// Scale-out: the sandbox WITH its anti-bot rule (scale -scale, so the human gap G is
// 2 s / scale), crawled by a master and 1 worker, then by a master and 3 workers,
// fresh sandbox (same seed, so the same web) per run. Worker i leaves from its own
// two addresses 127.0.0.(2+2i) and 127.0.0.(3+2i). Every run has the same politeness:
// -lanes lanes per worker, pauses 1.25·G..2·G between one lane's requests, a host cap
// of one request per web second (the settings of engine/cluster_test.go). With these
// a worker fetches at most lanes / mean pause pages/s (the "politeness bound" column),
// and a big web (-hosts, -listings × -articles per section host) keeps 3 workers'
// lanes busy: politeness, not the CPU, bounds both runs.
//
// Pages/s are counted over a fixed window of the sandbox's truth log, [t0+warmup,
// t0+warmup+window) where t0 is the run's first request, not to completion. The end
// of a crawl is its last hosts: a host belongs to one worker at a time, hosts are
// spread over workers by count, not by pages, and a section host's listing pages form
// a chain; so the 3-worker run ends with one worker finishing its biggest hosts while
// the others idle. Time to completion measures that and the web's shape more than the
// workers' throughput (-complete measures it anyway). The web is big enough that the
// 3-worker run is still busy when the window closes (a run that ran dry earlier is
// flagged "drained" and counted over its real span). Bans count over the whole run.
//
// Transport overhead: the sandbox without the anti-bot rule and with every delay off
// (lanes.max -par, pause 0, host cap 0, robots.txt honoured, as "throughput" does),
// crawled to completion by the in-process engine (engine.New) and by a master with 1
// worker; both leave from the same two addresses (127.0.0.2, 127.0.0.3). Then a master
// with 3 workers, for the master's ingest. After one untimed warm-up crawl, runs
// alternate (A B C, C B A, ...) over one sandbox. Both crawls are CPU-bound on a
// small machine (the sandbox shares the process), so their pages/s ratio is close to
// the ratio of their CPU per page, which is steadier under load and printed too.
//
// Each run is profiled with every part under a role label (master, worker, nats,
// engine, sandbox; see distributed_roles.go). That gives the master's own CPU per
// page; the transport's (wire codec, NATS client, NATS server, GC); and the CPU of
// the master's two serial goroutines: the store writer and the result handler. A
// serial goroutine can take 1 / (its CPU per page) pages/s, so its headroom over what
// the workers delivered is the run's time over its CPU time. (Store.WriterBusy would
// also count the writer's waits for a CPU and the disk; the master engine does not
// expose its store.)

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("distributed", runDistributed) }

// distSetup is what the runs of one benchmark share.
type distSetup struct {
	scaleCfg       sandbox.Config // the scale-out web (anti-bot on)
	lanes          int
	delayLo, delay time.Duration // pause range of one lane: [delayLo, delay]
	warmup, window time.Duration
	par            int
	hb             time.Duration
	timeout        time.Duration
	profiles       []*profile.Profile // every run's, for -cpuprofile
}

// scaleRun is one politeness-bound run of the scale-out part.
type scaleRun struct {
	workers    int
	pages      int     // pages answered inside the window
	rate       float64 // pages / window
	perWorker  []int   // of pages, by the worker whose address fetched it
	bans       int
	violations int
	drained    bool          // the crawl ran dry before the window closed
	span       time.Duration // the window, or the real span of a drained run
	cpu        time.Duration // process CPU from start to the window's end
	wall       time.Duration
	roles      roleCPU
}

// bound is what the workers' lanes could fetch at most: each lane makes one request
// per mean pause.
func (s *distSetup) bound(workers int) float64 {
	mean := (s.delayLo + s.delay).Seconds() / 2
	return float64(workers*s.lanes) / mean
}

// overheadRun is one politeness-off crawl to completion.
type overheadRun struct {
	kind    string // in-process, 1 worker, 3 workers
	workers int    // 0: in-process
	pages   int    // pages the sandbox answered (robots.txt excluded)
	stored  int64
	wall    time.Duration // Start (or starting the cluster) to Done
	setup   time.Duration // starting the NATS server, master and workers
	cpu     time.Duration // process CPU over wall
	alloc   uint64        // bytes the process allocated over wall (the GC's work)
	roles   roleCPU
}

func (r overheadRun) rate() float64 { return float64(r.pages) / r.wall.Seconds() }

func (r overheadRun) perPage(d time.Duration) float64 {
	if r.stored == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(r.stored)
}

func runDistributed(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("distributed", flag.ContinueOnError)
	hosts := fs.Int("hosts", 120, "scale-out sandbox: virtual hosts")
	listings := fs.Int("listings", 6, "scale-out sandbox: listing pages per section host")
	articles := fs.Int("articles", 20, "scale-out sandbox: articles per listing page")
	scale := fs.Float64("scale", 50, "scale-out sandbox: time scale (human gap = 2 s / scale)")
	lanesN := fs.Int("lanes", 16, "scale-out: lanes.max of every worker")
	warmup := fs.Duration("warmup", time.Second, "scale-out: skip this long after the first request")
	window := fs.Duration("window", 10*time.Second, "scale-out: count pages over this window")
	reps := fs.Int("reps", 2, "scale-out: runs per worker count")
	ohosts := fs.Int("ohosts", 240, "overhead sandbox: virtual hosts")
	par := fs.Int("par", 16, "overhead: lanes.max of the engine and of each worker")
	oreps := fs.Int("oreps", 3, "overhead: runs per kind")
	hb := fs.Duration("hb", time.Second, "workers' heartbeat period (the demo's)")
	only := fs.String("only", "", "run only scaleout or overhead")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up on a crawl after this long")
	complete := fs.Bool("complete", false, "scale-out: count pages/s to completion instead of over the window")
	cpuProfile := fs.String("cpuprofile", "", "write every run's CPU profile, merged (labels role and run), to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *only != "" && *only != "scaleout" && *only != "overhead" {
		return nil, fmt.Errorf("-only %q: want scaleout or overhead", *only)
	}
	if *reps < 1 || *oreps < 1 || *lanesN < 1 || *par < 1 || *window <= 0 {
		return nil, errors.New("-reps, -oreps, -lanes, -par and -window must be positive")
	}
	cfg := crawlSandboxConfig(*hosts, *scale)
	cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing = *listings, *articles
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	gap := time.Duration(float64(cfg.AntiBot.HumanGap) / *scale)
	s := &distSetup{scaleCfg: cfg, lanes: *lanesN, delayLo: gap * 5 / 4, delay: gap * 2,
		warmup: *warmup, window: *window, par: *par, hb: *hb, timeout: *timeout}
	if *complete { // a window as long as the timeout: every run drains and counts over its span
		s.warmup, s.window = 0, *timeout
	}

	fmt.Printf("distributed: master + workers over an embedded NATS server (JetStream), one process, loopback; heartbeat %v\n", *hb)
	fmt.Printf("  GOMAXPROCS %d, %s, load average %s\n", runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(3))
	out := map[string]any{"gomaxprocs": runtime.GOMAXPROCS(0)}

	if *only != "overhead" {
		if err := distScaleOut(s, *reps, out); err != nil {
			return nil, err
		}
	}
	if *only != "scaleout" {
		if err := distOverhead(s, *ohosts, *oreps, out); err != nil {
			return nil, err
		}
	}
	if err := writeMergedProfile(*cpuProfile, s.profiles); err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	out["load_avg"] = loadAvg(1)
	return out, nil
}

// distScaleOut runs the scale-out part and adds its figures to out.
func distScaleOut(s *distSetup, reps int, out map[string]any) error {
	cfg := s.scaleCfg
	web := sandbox.NewWeb(cfg)
	fmt.Printf("\nscale-out: sandbox of %d hosts in %d sites, %d listings × %d articles per section host, anti-bot rule ON (G = %v), scale %g\n",
		cfg.Hosts, len(web.Sites()), cfg.Layout.ListingPages, cfg.Layout.ArticlesPerListing,
		time.Duration(float64(cfg.AntiBot.HumanGap)/cfg.Scale), cfg.Scale)
	fmt.Printf("  every worker: %d lanes, pause %v..%v, host cap %g/s (1 per web second), its own 2 addresses; fresh sandbox (seed %d) per run\n",
		s.lanes, s.delayLo, s.delay, cfg.Scale, cfg.Seed)
	if s.warmup == 0 && s.window == s.timeout {
		fmt.Printf("  pages/s from the first request to the last (-complete)\n\n")
	} else {
		fmt.Printf("  pages/s over [first request + %v, + %v): a fixed window, not to completion (the end of a crawl is its last, biggest hosts)\n\n",
			s.warmup, s.window)
	}
	fmt.Printf("%-4s %-8s %7s %9s %9s %6s %5s %5s %10s %9s  %s\n", "run", "workers", "pages", "pages/s", "bound/s", "of bd", "bans", "viol", "CPU cores", "µs/page", "pages per worker")
	var runs []scaleRun
	for i := 0; i < reps; i++ {
		order := []int{1, 3}
		if i%2 == 1 {
			order = []int{3, 1}
		}
		for _, n := range order {
			r, err := s.scaleRun(n, fmt.Sprintf("scaleout-%dw-%d", n, i+1))
			if err != nil {
				return fmt.Errorf("scale-out, %d workers: %w", n, err)
			}
			runs = append(runs, r)
			note := ""
			if r.drained {
				note = fmt.Sprintf("  DRAINED after %.2f s: counted over that span", r.span.Seconds())
			}
			ws := make([]string, len(r.perWorker))
			for j, p := range r.perWorker {
				ws[j] = fmt.Sprint(p)
			}
			fmt.Printf("%-4d %-8d %7d %9.1f %9.1f %6.2f %5d %5d %10.2f %9.0f  %s%s\n", len(runs), n, r.pages, r.rate, s.bound(n),
				r.rate/s.bound(n), r.bans, r.violations, r.cpu.Seconds()/r.wall.Seconds(),
				float64(r.cpu.Microseconds())/float64(max(1, r.pages)), strings.Join(ws, " / "), note)
		}
	}
	var r1, r3, paired []float64
	bans, viol := 0, 0
	for i, r := range runs {
		if r.workers == 1 {
			r1 = append(r1, r.rate)
		} else {
			r3 = append(r3, r.rate)
		}
		bans += r.bans
		viol += r.violations
		if i%2 == 1 {
			a, b := runs[i-1], r
			if a.workers == 3 {
				a, b = b, a
			}
			paired = append(paired, b.rate/a.rate)
		}
	}
	m1, m3 := crawlMedian(r1), crawlMedian(r3)
	ratio := m3 / m1
	fmt.Printf("\nscaleout_3_vs_1 = %.1f / %.1f pages/s = %.3f   (goal ≥ 2.7; paired per repetition: %s)\n", m3, m1, ratio, fmtList(paired, 3))
	fmt.Printf("bans            = %d, adjacency violations %d over all %d runs   (goal 0)\n", bans, viol, len(runs))
	fmt.Printf("the 1-worker run reaches %.0f%% of its lanes' bound (%d lanes / mean pause %v): politeness, not CPU, bounds it\n",
		100*m1/s.bound(1), s.lanes, (s.delayLo+s.delay)/2)
	out["scaleout_3_vs_1"] = crawlRound(ratio, 3)
	out["scaleout_paired"] = crawlRound(crawlMedian(paired), 3)
	out["bans"] = bans
	out["violations"] = viol
	out["pages_per_s_1"] = crawlRound(m1, 1)
	out["pages_per_s_3"] = crawlRound(m3, 1)
	out["lanes_bound_per_s_1"] = crawlRound(s.bound(1), 1)
	out["scaleout_hosts"] = cfg.Hosts
	if s.warmup == 0 && s.window == s.timeout {
		out["scaleout_complete"] = true
	} else {
		out["scaleout_window_s"] = s.window.Seconds()
	}
	return nil
}

// scaleRun crawls a fresh sandbox with n workers until the window closes.
func (s *distSetup) scaleRun(n int, name string) (scaleRun, error) {
	r := scaleRun{workers: n}
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("run", name))
	var sb *sandbox.Sandbox
	var err error
	labelled(ctx, roleSandbox, func(context.Context) { sb, err = sandbox.Start(s.scaleCfg) })
	if err != nil {
		return r, err
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "bench-distributed-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	o := config.DefaultOptions()
	o.Seeds = crawlSeeds(sb)
	o.DB = filepath.Join(dir, "crawl.db")
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = s.lanes
	o.Lanes.DelayMin, o.Lanes.DelayMax = s.delayLo, s.delay
	o.HostRate = s.scaleCfg.Scale
	o.Revisit.Enabled = false

	prof, err := startRunProfile()
	if err != nil {
		return r, err
	}
	cpu0, start := crawlCPU(), time.Now()
	c, err := startDistCluster(ctx, o, n, workerBinds, s.hb)
	if err != nil {
		prof.stop()
		return r, err
	}
	// The window starts at the first request, a few ms after the start; wait past
	// its end with slack.
	deadline := time.After(s.warmup + s.window + 300*time.Millisecond)
	select {
	case <-c.master.Done():
		r.drained = true
	case <-deadline:
	}
	r.wall, r.cpu = time.Since(start), crawlCPU()-cpu0
	p, perr := prof.stop()
	cerr := c.close()
	if perr != nil {
		return r, perr
	}
	if cerr != nil {
		return r, cerr
	}
	s.profiles = append(s.profiles, p)
	if r.roles, err = cpuByRole(p); err != nil {
		return r, err
	}

	reqs := sb.Truth().Requests()
	if len(reqs) == 0 {
		return r, errors.New("the sandbox saw no request")
	}
	t0 := reqs[0].Start
	for _, q := range reqs {
		if q.Start.Before(t0) {
			t0 = q.Start
		}
		if q.Violation {
			r.violations++
		}
	}
	from, to := t0.Add(s.warmup), t0.Add(s.warmup+s.window)
	if stop := start.Add(r.wall); to.After(stop) && !r.drained {
		return r, fmt.Errorf("the window ends %v after the run stopped: raise the slack", to.Sub(stop))
	}
	worker := map[string]int{}
	for i := 0; i < n; i++ {
		for _, a := range workerBinds(i) {
			worker[a] = i
		}
	}
	r.perWorker = make([]int, n)
	last := from
	for _, q := range reqs {
		if q.Status != 200 || q.Banned || q.Limited || q.Kind == sandbox.KindRobots || q.End.Before(from) || !q.End.Before(to) {
			continue
		}
		r.pages++
		r.perWorker[worker[q.IP]]++
		if q.End.After(last) {
			last = q.End
		}
	}
	r.span = s.window
	if r.drained && last.Sub(from) < s.window {
		r.span = last.Sub(from)
	}
	r.rate = float64(r.pages) / r.span.Seconds()
	r.bans = len(sb.Truth().Bans())
	return r, nil
}

// distOverhead runs the transport-overhead part and adds its figures to out.
func distOverhead(s *distSetup, hosts, reps int, out map[string]any) error {
	cfg := crawlSandboxConfig(hosts, 1)
	cfg.AntiBot.Enabled = false
	var sb *sandbox.Sandbox
	var err error
	labelled(context.Background(), roleSandbox, func(context.Context) { sb, err = sandbox.Start(cfg) })
	if err != nil {
		return err
	}
	defer sb.Close()
	seeds := crawlSeeds(sb)
	fmt.Printf("\ntransport overhead: sandbox of %d hosts in %d sites, anti-bot rule off, every delay off (lanes.max %d, pause 0, host cap 0), robots.txt honoured, to completion\n",
		hosts, len(seeds), s.par)
	fmt.Printf("  in-process engine (engine.New) and a master with 1 worker, both from 127.0.0.2 + 127.0.0.3; then a master with 3 workers (2 addresses each) for the store's ingest\n")
	fmt.Printf("  CPU by role from a labelled profile of each run (sandbox and NATS server share the process; unlabelled = GC workers, runtime)\n\n")
	// The process's first crawl of a web is slower (a cold heap, the sandbox's pages
	// rendered the first time): one untimed run first.
	if w, err := s.overheadRun(sb, seeds, 0, "overhead-warmup"); err != nil {
		return fmt.Errorf("overhead, warm-up: %w", err)
	} else {
		fmt.Printf("  warm-up crawl (in-process, not counted): %.2f s\n\n", w.wall.Seconds())
	}
	fmt.Printf("%-4s %-11s %6s %6s %8s %6s %8s %8s | %7s %7s %7s %7s %7s %7s %7s %7s\n", "run", "crawler", "pages", "wall s", "pages/s", "setup",
		"µs/page", "KB/page", "master", "result", "writer", "worker", "engine", "nats", "sandbox", "unlab.")
	kinds := []int{0, 1, 3}
	var runs []overheadRun
	for i := 0; i < reps; i++ {
		order := slices.Clone(kinds)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, n := range order {
			r, err := s.overheadRun(sb, seeds, n, fmt.Sprintf("overhead-%dw-%d", n, i+1))
			if err != nil {
				return fmt.Errorf("overhead, %s: %w", distKind(n), err)
			}
			runs = append(runs, r)
			rc := r.roles.byRole
			fmt.Printf("%-4d %-11s %6d %6.2f %8.0f %6s %8.0f %8.1f | %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f\n", len(runs), r.kind, r.pages,
				r.wall.Seconds(), r.rate(), fmtSetup(r.setup), r.perPage(r.cpu), float64(r.alloc)/1024/float64(max(1, r.stored)),
				r.perPage(rc[roleMaster]), r.perPage(r.roles.result), r.perPage(r.roles.writer), r.perPage(rc[roleWorker]),
				r.perPage(rc[roleEngine]), r.perPage(rc[roleNATS]), r.perPage(rc[roleSandbox]), r.perPage(rc[roleOther]))
		}
	}
	fmt.Printf("(CPU µs per stored page by role; master includes its result handler and its store writer; unlab. = GC workers, runtime)\n")

	by := map[int][]overheadRun{}
	for _, r := range runs {
		by[r.workers] = append(by[r.workers], r)
	}
	// med is the median of f over the runs with n workers.
	med := func(n int, f func(overheadRun) float64) float64 {
		var xs []float64
		for _, r := range by[n] {
			xs = append(xs, f(r))
		}
		return crawlMedian(xs)
	}
	perPage := func(d func(overheadRun) time.Duration) func(overheadRun) float64 {
		return func(r overheadRun) float64 { return r.perPage(d(r)) }
	}
	// share is how many times over a serial goroutine could keep up: the run's time
	// over that goroutine's CPU time.
	share := func(d func(overheadRun) time.Duration) func(overheadRun) float64 {
		return func(r overheadRun) float64 { return r.wall.Seconds() / max(d(r).Seconds(), 1e-9) }
	}
	var (
		cpu     = func(r overheadRun) time.Duration { return r.cpu }
		master  = func(r overheadRun) time.Duration { return r.roles.byRole[roleMaster] }
		writer  = func(r overheadRun) time.Duration { return r.roles.writer }
		result  = func(r overheadRun) time.Duration { return r.roles.result }
		codec   = func(r overheadRun) time.Duration { return r.roles.codec }
		client  = func(r overheadRun) time.Duration { return r.roles.client }
		server  = func(r overheadRun) time.Duration { return r.roles.byRole[roleNATS] }
		unlab   = func(r overheadRun) time.Duration { return r.roles.byRole[roleOther] }
		allocKB = func(r overheadRun) float64 { return float64(r.alloc) / 1024 / float64(max(1, r.stored)) }
		rate    = func(r overheadRun) float64 { return r.rate() }
	)
	var paired []float64
	for i := range min(len(by[0]), len(by[1])) { // one of each per repetition
		paired = append(paired, by[1][i].rate()/by[0][i].rate())
	}
	in, one, three := med(0, rate), med(1, rate), med(3, rate)
	ratio := one / in
	cpuIn, cpuOne := med(0, perPage(cpu)), med(1, perPage(cpu))
	writerUS, resultUS := med(3, perPage(writer)), med(3, perPage(result))
	headroom, resultHeadroom := med(3, share(writer)), med(3, share(result))
	fmt.Println()
	fmt.Printf("overhead_ratio_vs_inprocess = %.0f / %.0f pages/s = %.3f   (goal ≥ 0.8; paired per repetition: %s)\n", one, in, ratio, fmtList(paired, 3))
	fmt.Printf("CPU µs/page, whole process  = in-process %.0f, master + 1 worker %.0f (ratio %.3f), master + 3 workers %.0f\n",
		cpuIn, cpuOne, cpuIn/cpuOne, med(3, perPage(cpu)))
	fmt.Printf("  of the 1-worker crawl's:    wire codec %.0f, NATS client %.0f, NATS server %.0f, unlabelled (GC) %.0f vs %.0f in process; %.0f vs %.0f KB allocated per page\n",
		med(1, perPage(codec)), med(1, perPage(client)), med(1, perPage(server)), med(1, perPage(unlab)), med(0, perPage(unlab)),
		med(1, allocKB), med(0, allocKB))
	fmt.Printf("master_cpu_us_per_page      = %.0f with 3 workers, %.0f with 1 (its own goroutines: result handler, frontier, dispatch, store writer)\n",
		med(3, perPage(master)), med(1, perPage(master)))
	fmt.Printf("store writer                = %.0f µs CPU/page with 3 workers (%.0f in process): it could commit %.0f pages/s\n",
		writerUS, med(0, perPage(writer)), 1e6/max(writerUS, 1e-9))
	fmt.Printf("store_headroom              = %.2f× over the %.0f pages/s 3 workers delivered   (goal ≥ 1.5; run time / writer CPU time)\n", headroom, three)
	procs := float64(runtime.GOMAXPROCS(0))
	resultHeadroom *= procs // the master commits results on GOMAXPROCS goroutines
	fmt.Printf("result handler              = %.0f µs CPU/page on %.0f goroutines: %.2f× headroom, %.0f pages/s at most with every core to itself\n",
		resultUS, procs, resultHeadroom, procs*1e6/max(resultUS, 1e-9))
	out["overhead_ratio_vs_inprocess"] = crawlRound(ratio, 3)
	out["overhead_paired"] = crawlRound(crawlMedian(paired), 3)
	out["overhead_cpu_ratio"] = crawlRound(cpuIn/cpuOne, 3)
	out["inprocess_pages_per_s"] = crawlRound(in, 1)
	out["cluster1_pages_per_s"] = crawlRound(one, 1)
	out["cluster3_pages_per_s"] = crawlRound(three, 1)
	out["inprocess_cpu_us_per_page"] = crawlRound(cpuIn, 1)
	out["cluster1_cpu_us_per_page"] = crawlRound(cpuOne, 1)
	out["wire_codec_us_per_page"] = crawlRound(med(1, perPage(codec)), 1)
	out["master_cpu_us_per_page"] = crawlRound(med(3, perPage(master)), 1)
	out["master_cpu_us_per_page_1w"] = crawlRound(med(1, perPage(master)), 1)
	out["writer_cpu_us_per_page"] = crawlRound(writerUS, 1)
	out["store_headroom"] = crawlRound(headroom, 2)
	out["result_handler_cpu_us_per_page"] = crawlRound(resultUS, 1)
	out["result_handler_headroom"] = crawlRound(resultHeadroom, 2)
	out["alloc_kb_per_page_inprocess"] = crawlRound(med(0, allocKB), 1)
	out["alloc_kb_per_page_1w"] = crawlRound(med(1, allocKB), 1)
	out["overhead_hosts"] = hosts
	return nil
}

func distKind(workers int) string {
	switch workers {
	case 0:
		return "in-process"
	case 1:
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", workers)
}

// overheadRun crawls the sandbox to completion in process (workers 0) or with a
// master and that many workers.
func (s *distSetup) overheadRun(sb *sandbox.Sandbox, seeds []string, workers int, name string) (overheadRun, error) {
	r := overheadRun{kind: distKind(workers), workers: workers}
	dir, err := os.MkdirTemp("", "bench-distributed-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	o := config.DefaultOptions()
	o.Seeds = seeds
	o.DB = filepath.Join(dir, "crawl.db")
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = s.par
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, 0
	o.HostRate = 0
	o.Revisit.Enabled = false
	if workers == 0 { // the worker's two addresses, all in use at once as on a worker
		o.Egress = []string{"bind:" + workerBinds(0)[0], "bind:" + workerBinds(0)[1]}
		o.Rotation.PerNode = 0
	}
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("run", name))
	_, mark := sb.Truth().RequestsSince(1 << 62)

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc0 := ms.TotalAlloc
	prof, err := startRunProfile()
	if err != nil {
		return r, err
	}
	cpu0, start := crawlCPU(), time.Now()
	var done <-chan struct{}
	var stats func() view.Stats
	var closeAll func() error
	if workers == 0 {
		var e *engine.Engine
		labelled(ctx, roleEngine, func(context.Context) {
			if e, err = engine.New(o); err == nil {
				if err = e.Start(); err != nil {
					e.Close()
				}
			}
		})
		if err != nil {
			prof.stop()
			return r, err
		}
		done, stats, closeAll = e.Done(), e.Stats, e.Close
	} else {
		c, err := startDistCluster(ctx, o, workers, workerBinds, s.hb)
		if err != nil {
			prof.stop()
			return r, err
		}
		r.setup = time.Since(start)
		done, stats, closeAll = c.master.Done(), c.master.Stats, c.close
	}
	select {
	case <-done:
	case <-time.After(s.timeout):
		prof.stop()
		closeAll()
		return r, fmt.Errorf("crawl not done after %v", s.timeout)
	}
	r.wall, r.cpu = time.Since(start), crawlCPU()-cpu0
	p, perr := prof.stop()
	runtime.ReadMemStats(&ms)
	r.alloc = ms.TotalAlloc - alloc0
	r.stored = stats().PagesStored
	if err := closeAll(); err != nil {
		return r, err
	}
	if perr != nil {
		return r, perr
	}
	s.profiles = append(s.profiles, p)
	if r.roles, err = cpuByRole(p); err != nil {
		return r, err
	}
	r.pages = crawlAccountSince(sb, mark, 0).pages
	return r, nil
}

func fmtSetup(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0fms", float64(d.Microseconds())/1000)
}

func fmtList(xs []float64, digits int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.*f", digits, x)
	}
	return strings.Join(parts, ", ")
}
