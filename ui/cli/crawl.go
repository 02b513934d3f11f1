package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/themes"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// crawlFlags are the flags shared by crawl and serve.
type crawlFlags struct {
	fs                                                  *flag.FlagSet
	seedsFile, config, db, statsJSON, dnsServer, userAg string
	headless, untilIdle, mouse                          bool
	duration                                            time.Duration
	egress, allowPrivate                                listFlag
	lanes                                               int
	delay                                               delayFlag
	theme                                               string
	metrics                                             metricsFlags
	seeds                                               *seedList // --seeds, once options has read its head
	said                                                []string  // warnings options printed on stderr already
	help                                                io.Writer // where --help prints: the command's stdout
}

func newCrawlFlags(name, usageLine string, stdout, stderr io.Writer) *crawlFlags {
	c := &crawlFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError), help: stdout}
	fs := c.fs
	fs.SetOutput(stderr)
	fs.StringVar(&c.seedsFile, "seeds", "", "read seed URLs from `FILE`, one per line")
	fs.StringVar(&c.config, "config", "", "YAML config `FILE` (flags override it)")
	fs.StringVar(&c.db, "db", "crawl.db", "SQLite store `PATH`; an existing store is resumed")
	headless, mouse := "no console: print progress lines instead", "enable mouse in the console"
	if name == "serve" { // kept so that a crawl's command line can become a serve's
		headless, mouse = "ignored: serve always prints progress lines (its console is over SSH)", "ignored by serve"
	}
	fs.BoolVar(&c.headless, "headless", false, headless)
	fs.DurationVar(&c.duration, "duration", 0, "stop after `D` (e.g. 10m); 0 = no limit")
	fs.BoolVar(&c.untilIdle, "until-idle", false, "stop when nothing is left to crawl")
	fs.StringVar(&c.statsJSON, "stats-json", "", "write the final stats object to `FILE`")
	fs.StringVar(&c.dnsServer, "dns-server", "", "resolve through the DNS server at `HOST:PORT`")
	fs.Var(&c.egress, "egress", "egress `SPEC`: bind:IP, http://[user:pass@]host:port or socks5://[user:pass@]host:port,\n"+
		"optionally NAME=SPEC (a password may be ${env:VAR} or ${file:/path}); repeatable")
	fs.Var(&c.allowPrivate, "allow-private", "let the SSRF guard through `CIDR`; repeatable")
	fs.Var(positiveInt{&c.lanes}, "lanes", fmt.Sprintf("most lanes fetching at once (`N` >= 1; default: lanes.max of --config, else %d)",
		config.DefaultOptions().Lanes.Max))
	fs.Var(&c.delay, "delay", "random pause between a lane's requests, `MIN..MAX` (e.g. 2s..6s)")
	fs.StringVar(&c.userAg, "user-agent", "", "User-Agent `UA` (default names crawlconsole)")
	fs.StringVar(&c.theme, "theme", "dark", "console theme `NAME`: dark, light, high-contrast, mono")
	fs.BoolVar(&c.mouse, "mouse", false, mouse)
	c.metrics.add(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s\n\nFlags:\n", usageLine)
		fs.PrintDefaults()
	}
	return c
}

// options builds engine options: defaults -> config file -> flags (only those given).
func (c *crawlFlags) options(positional []string) (config.Options, error) {
	opts := config.DefaultOptions()
	if err := checkTheme(c.theme); err != nil {
		return opts, err
	}
	if c.duration < 0 {
		return opts, fmt.Errorf("--duration must be >= 0 (0 = no limit), got %v", c.duration)
	}
	if c.config != "" {
		if err := loadConfig(c.config, &opts); err != nil {
			return opts, err
		}
		var err error
		if opts.Seeds, err = configSeeds(c.config, opts.Seeds, c.fs.Output()); err != nil {
			return opts, err
		}
	}
	set := clikit.Set(c.fs)
	if set["seeds"] {
		s, list, err := readSeeds(c.seedsFile, c.fs.Output())
		if err != nil {
			return opts, err
		}
		opts.Seeds = append(opts.Seeds, s...)
		if list.more {
			c.seeds = list
		}
	}
	for _, p := range positional {
		// A host typed without its scheme would be refused by the crawl as a bad
		// scheme ("example.com:8080/" reads as the scheme "example.com"): said
		// here with the URL to give, before a store is made for it.
		if _, err := frontier.Normalize(strings.TrimSpace(p)); err != nil && clikit.SchemeFix(p) != "" {
			return opts, fmt.Errorf("seed %q has no scheme: give it as %s", p, clikit.SchemeFix(p))
		}
	}
	opts.Seeds = append(opts.Seeds, positional...)
	if set["db"] || opts.DB == "" {
		opts.DB = c.db
	}
	if set["dns-server"] {
		opts.DNSServers = []string{c.dnsServer}
	}
	if set["egress"] {
		opts.Egress = c.egress
	}
	if set["allow-private"] {
		opts.AllowPrivate = c.allowPrivate
	}
	if set["lanes"] {
		opts.Lanes.Max = c.lanes
	}
	if set["delay"] {
		opts.Lanes.DelayMin, opts.Lanes.DelayMax = c.delay.min, c.delay.max
	}
	if set["user-agent"] {
		opts.UserAgent = c.userAg
	}
	if err := c.metrics.check(); err != nil {
		return opts, err
	}
	if err := opts.Validate(); err != nil {
		if c.config != "" {
			err = configLine(c.config, err, set)
		}
		return opts, err
	}
	if !opts.Declares() && opts.DB != "" {
		if _, err := os.Stat(opts.DB); errors.Is(err, fs.ErrNotExist) {
			// Said before the store is created: a usage error leaves no empty store.
			return opts, fmt.Errorf("nothing to crawl: give seed URLs as arguments or with --seeds FILE (there is no store at %s to resume)", opts.DB)
		}
	}
	// Per-site etiquette overrides are said before the console takes the screen (the
	// engine logs them too, for the Log pane).
	for _, w := range opts.EtiquetteWarnings() {
		fmt.Fprintf(c.fs.Output(), "crawlconsole: warning: %s\n", w)
		c.said = append(c.said, w)
	}
	return opts, nil
}

// parse parses args; done=true means return code now (help or usage error).
func (c *crawlFlags) parse(args []string) (pos []string, code int, done bool) {
	pos, err := parseInterspersed(c.fs, args, c.help)
	if errors.Is(err, flag.ErrHelp) {
		return nil, 0, true
	}
	if err != nil {
		return nil, ExitUsage, true
	}
	return pos, 0, false
}

func runCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCrawlFlags("crawl", "crawlconsole crawl [URL...] [flags]", stdout, stderr)
	operator := c.fs.String("operator", "", "serve live steering (crawlconsole ctl) and console --attach on loopback `ADDR`, e.g. 127.0.0.1:4223")
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	opts, err := c.options(pos)
	if err == nil {
		err = bindNotLocal(opts.Egress)
	}
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole crawl: %v\n", err)
		return ExitUsage
	}
	for _, w := range proxyWarnings(opts.Egress) {
		fmt.Fprintf(stderr, "crawlconsole crawl: warning: %s\n", w)
	}
	fresh := absentFiles(opts.DB)
	before, resumes := resumeCounts(opts.DB)
	eng, err := engine.New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole crawl: %v%s\n", err, unwritableAdvice(err))
		fresh.remove()
		return ExitUsage
	}
	if note := resumeNote(opts.DB, before, resumes, eng.RequeuedBlocked()); note != "" {
		fmt.Fprintf(stderr, "crawlconsole crawl: %s%s\n", note, eng.HeldHosts().Note())
	}
	if *operator != "" {
		stop, err := operatorPort(*operator, opts.DB, eng, stderr, "crawl")
		if err != nil {
			fmt.Fprintf(stderr, "crawlconsole crawl: %v\n", err)
			eng.Close()
			fresh.remove()
			return ExitUsage
		}
		defer stop()
	}
	return run(ctx, eng, runConfig{headless: c.headless, duration: c.duration, untilIdle: c.untilIdle,
		statsJSON: c.statsJSON, theme: c.theme, mouse: c.mouse, title: "crawl", metrics: c.metrics, seeds: c.seeds, said: c.said,
		failedStart: fresh.remove, db: opts.DB}, stdout, stderr)
}

// runConfig says how a started crawl is watched and ended.
type runConfig struct {
	headless  bool
	duration  time.Duration
	untilIdle bool
	statsJSON string
	theme     string
	mouse     bool
	title     string
	metrics   metricsFlags         // --metrics: serve /metrics while the crawl runs
	started   bool                 // eng was started already (a local cluster's master)
	extra     func(map[string]any) // adds fields to the stats object (demo: sandbox truth)
	// alongside runs next to the crawl until it ends (serve: the SSH console); an
	// error from it ends the crawl.
	alongside func(ctx context.Context, ctrl control.Control) error
	// seeds is the rest of a --seeds file longer than its head, fed once the crawl
	// has started.
	seeds *seedList
	// said are warnings printed on stderr before the start, not printed again
	// when the engine logs them.
	said []string
	// failedStart, if set, removes what a start that failed created (the store's
	// files), once the engine is closed.
	failedStart func()
	// db is the store a crawl stopped with URLs left goes on from ("" for none
	// worth naming).
	db string
}

// run starts eng, watches it (console or progress lines) until the user quits, a
// signal arrives, the duration passes or (until-idle) the crawl runs dry, then stops
// it cleanly and writes the stats.
func run(ctx context.Context, eng *engine.Engine, rc runConfig, stdout, stderr io.Writer) int {
	failedStart := func() {
		eng.Close()
		if rc.failedStart != nil {
			rc.failedStart()
		}
	}
	if !rc.headless && !onTerminal() {
		// Said before the crawl starts: the console would fail once it had begun
		// (Bubble Tea reads keys from stdin), with the store's files left behind.
		fmt.Fprintln(stderr, "crawlconsole: the console needs a terminal, and stdin or stdout is not one: run it in a terminal, or add --headless for progress lines")
		failedStart()
		return ExitUsage
	}
	msrv, err := rc.metrics.listen()
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole: %v\n", err)
		failedStart()
		return ExitUsage
	}
	defer serveOn(msrv, eng, stderr)()
	var feed *engine.SeedFeed
	if rc.seeds != nil {
		feed = eng.OpenSeedFeed() // before Start: the crawl is not idle before the list ends
	}
	if !rc.started {
		if err := eng.Start(); err != nil {
			fmt.Fprintf(stderr, "crawlconsole: %v\n", err)
			if feed != nil {
				feed.Close(nil)
			}
			failedStart()
			return ExitUsage
		}
	}
	stopFeed := func() {}
	if feed != nil {
		fctx, cancel := context.WithCancel(ctx)
		fed := make(chan struct{})
		go func() { defer close(fed); rc.seeds.feed(fctx, feed) }()
		stopFeed = func() { cancel(); <-fed }
	}
	if rc.headless {
		if n := eng.Stats().Resumed; n > 0 {
			// The console's Log pane says so; headless, the operator reads stderr.
			fmt.Fprintf(stderr, "crawlconsole: resumed: %s in progress when the last run ended (killed or crashed) went back to the queue\n", plural.Count(n, "URL"))
		}
	}
	if rc.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, rc.duration)
		defer cancel()
	}
	var idle <-chan struct{}
	if rc.untilIdle {
		idle = eng.Done()
	}
	code := 0
	var sideErr chan error
	if rc.alongside != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		sideErr = make(chan error, 1)
		go func() {
			err := rc.alongside(ctx, eng)
			if err != nil {
				fmt.Fprintf(stderr, "crawlconsole: %v\n", err)
			}
			sideErr <- err
			cancel()
		}()
		defer func() { cancel(); <-sideErr }()
	}
	var warns *warnReporter
	if rc.headless {
		warns = newWarnReporter(stderr)
		warns.skip(rc.said)
		headless(ctx, eng, idle, stdout, warns)
		if sideErr != nil {
			// An error from beside the crawl (serve's SSH server) ended it: not a clean exit.
			select {
			case err := <-sideErr:
				sideErr <- err // for the deferred wait
				if err != nil {
					code = 1
				}
			default:
			}
		}
	} else if err := console(ctx, eng, rc, idle); err != nil {
		fmt.Fprintf(stderr, "crawlconsole: console: %v\n", err)
		code = 1
	}
	stopFeed() // before Stop: a batch on its way is taken in whole or not at all
	eng.Stop()
	if warns != nil {
		warns.drain(eng)
		warns.finish()
	}
	st := eng.Stats()
	failure := eng.Failure()
	if err := eng.Close(); err != nil && failure == nil {
		fmt.Fprintf(stderr, "crawlconsole: closing the store: %v\n", err)
		code = 1
	}
	defer func() {
		if failure != nil { // last, so it is what the operator reads
			fmt.Fprintf(stderr, "crawlconsole: %v\n%s\n", failure, adviceOf(failure))
		}
	}()
	if failure != nil {
		code = ExitStoreFailed
	}
	if rc.statsJSON != "" {
		if err := writeStats(rc.statsJSON, st, rc.extra); err != nil {
			fmt.Fprintf(stderr, "crawlconsole: --stats-json: %v\n", err)
			// A failed store keeps its status: a stats file on the same full disk
			// fails too, and 3 is what tells the operator to free space and resume.
			if code == 0 {
				code = 1
			}
		}
	}
	fmt.Fprintln(stdout, summary(st))
	for _, l := range kindReport(st) {
		fmt.Fprintln(stdout, l)
	}
	if failure == nil && rc.db != "" {
		// The summary reads "done:" whatever the end; a stop with URLs left says
		// how to go on, as the store keeps everything for the next run.
		if n, ok := storeCounts(rc.db); ok && n.Unprocessed+n.InProgress > 0 {
			fmt.Fprintf(stderr, "crawlconsole: stopped with %s left to fetch; the %s stored %s kept in %s: to go on, %s\n",
				plural.Count(n.Unprocessed+n.InProgress, "URL"), plural.Count(n.Pages, "page"), plural.Noun(n.Pages, "is", "are"), rc.db, rc.startAgain())
		}
	}
	if why := nothingFetched(st, rc.startAgain()); why != "" && code == 0 {
		fmt.Fprintf(stderr, "crawlconsole: %s\n", why)
		code = ExitNothingFetched
	} else if failure == nil && rc.db != "" && st.PagesFetched == 0 && code == 0 {
		if n, ok := storeCounts(rc.db); ok && n.Unprocessed+n.InProgress == 0 && n.Deferred > 0 {
			// A run that found nothing due ends at once with "done: 0 pages fetched",
			// which reads as a finished crawl; its URLs only wait.
			fmt.Fprintf(stderr, "crawlconsole: nothing was due: %s\n", deferredAdvice(n.Deferred, rc.db, rc.startAgain()))
		}
	}
	return code
}

// deferredAdvice says what n URLs deferred in the store at db wait for and how to
// go on with them.
func deferredAdvice(n int64, db, again string) string {
	return fmt.Sprintf("%s %s deferred in %s (a site whose robots.txt did not answer is asked again after "+
		"etiquette.robots_retry, 1m by default, doubling; a disabled host or a page budget holds others): "+
		"%s once they are due, or without --until-idle, which waits for them", plural.Count(n, "URL"), plural.Noun(n, "waits", "wait"), db, again)
}

// startAgain is how the operator goes on with the store: the same command on the
// same --db. A master's store is a master's to go on with (its workers rejoin by
// themselves); `crawl --db` on it would crawl from this box alone.
func (rc runConfig) startAgain() string {
	if rc.title == "master" {
		return "start the master again with --db " + rc.db + " (its workers rejoin it)"
	}
	if strings.HasPrefix(rc.title, "demo") {
		return "start the demo again with --db " + rc.db
	}
	if rc.title == "serve" { // crawl --db would go on without the SSH console
		return "start serve again with --db " + rc.db + " and its --ssh flags"
	}
	return "start the crawl again with --db " + rc.db
}

// headless prints a progress line every few seconds, and the engine's new warnings
// on warns every second, until ctx ends or idle closes.
func headless(ctx context.Context, eng *engine.Engine, idle <-chan struct{}, w io.Writer, warns *warnReporter) {
	t := time.NewTicker(3 * time.Second)
	defer t.Stop()
	wt := time.NewTicker(time.Second)
	defer wt.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-idle:
			warns.drain(eng)
			fmt.Fprintln(w, progress(eng.Snapshot()))
			return
		case <-eng.Failed(): // the store failed: the crawl stopped itself
			fmt.Fprintln(w, progress(eng.Snapshot()))
			return
		case <-wt.C:
			warns.drain(eng)
		case <-t.C:
			fmt.Fprintln(w, progress(eng.Snapshot()))
		}
	}
}

// adviceOf is what the operator should do about a failure that stopped the crawl.
func adviceOf(err error) string {
	var se *front.StoreError
	if errors.As(err, &se) {
		return se.Advice() + "."
	}
	return ""
}

func progress(s view.Snapshot) string {
	var errs, skips int64
	for _, n := range s.Totals.Errors {
		errs += n
	}
	for _, n := range s.Totals.Skipped {
		skips += n
	}
	var warns int64
	for _, n := range s.Totals.Warnings {
		warns += n
	}
	state := string(s.State)
	if what, at := pane.IdleWait(&s); what != "" {
		state += fmt.Sprintf(" (next %s in %s)", what, max(time.Until(at), 0).Truncate(time.Second))
	}
	line := fmt.Sprintf("%s  %s  pages %d  %s  queue %d  lanes %d/%d  refused %d  errors %d  skipped %d",
		time.Since(s.StartedAt).Truncate(time.Second), state, s.Totals.PagesFetched, pane.Rate(pane.PagesPerSec(&s)),
		s.QueueDepth, s.LanesBusy, s.LanesMax, s.Totals.Refused, errs, skips)
	if warns > 0 {
		line += fmt.Sprintf("  warnings %d", warns)
	}
	if w := pane.RobotsWait(s.Totals.Robots); w != "" {
		line += "  " + w
	}
	if r := s.Render; r != nil && r.Renders+r.Failed > 0 {
		// The console's header says it ("browser idle, 31 renders"); a headless
		// crawl of a script-built site said nothing of its pages being rendered.
		line += fmt.Sprintf("  rendered %d", r.Renders)
		if r.Failed > 0 {
			line += fmt.Sprintf(" (%d kept plain)", r.Failed)
		}
	}
	if why, _ := limitedBy(s); why != "" && s.State == view.StateRunning {
		line += "  " + why
	}
	if s.StoreError != "" {
		line += "  STORE FAILED: " + s.StoreError
	}
	return line
}

// summary is the end-of-crawl line: failures by kind, and apart from them the URLs
// skipped by choice (robots.txt, noindex, scope, content type; front.IsSkip).
func summary(st view.Stats) string {
	head := "done"
	if st.StoreError != "" {
		head = "stopped, the store failed"
	}
	line := fmt.Sprintf(head+": %s fetched, %d stored, %d refused, %s queued, %d done, peak %s, %.1fs, %s; errors: %s; skipped: %s",
		plural.Count(st.PagesFetched, "page"), st.PagesStored, st.Refused, plural.Count(st.URLsQueued, "URL"), st.URLsDone, plural.Count(st.LanesPeak, "lane"), st.DurationS, pane.Rate(st.PagesPerS),
		kindList(st.Errors), kindList(st.Skipped))
	if len(st.Warnings) > 0 {
		line += "; warnings: " + kindList(st.Warnings)
	}
	if st.RobotsWaiting != nil {
		if w := pane.RobotsWait(*st.RobotsWaiting); w != "" {
			line += "; " + w
		}
	}
	return line
}

// kindList prints counts by kind as "a=1 b=2", sorted by kind, or "none".
func kindList(m map[string]int64) string {
	var kinds []string
	for k, n := range m {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
	}
	if len(kinds) == 0 {
		return "none"
	}
	sort.Strings(kinds)
	return strings.Join(kinds, " ")
}

func writeStats(path string, st view.Stats, extra func(map[string]any)) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if extra != nil {
		extra(m)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}

// checkTheme refuses an unknown --theme before anything starts (it was found only
// when the console opened, after the crawl had begun and created its database; and
// never with --headless).
func checkTheme(name string) error {
	if _, ok := themes.Lookup(name); !ok && name != "" {
		return fmt.Errorf("--theme: unknown theme %q (have %s)", name, strings.Join(themes.Names(), ", "))
	}
	return nil
}
