package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
)

const commandUsage = `Usage: crawlconsole sandbox [flags]

Runs the synthetic sandbox web on loopback: virtual-host HTTP server, DNS server and
ground-truth endpoint. Prints one JSON line (http, dns, truth, port, scale, seed, sites)
and runs until interrupted (SIGINT/SIGTERM).

Flags:
  --seed N           seed of the web (default 0)
  --hosts N          virtual hosts, 2..1000000 (default 60)
  --scale F          web time runs F× real time, > 0 (default 1)
  --truth FILE       write the ground truth as JSON to FILE on exit
  --http ADDR        HTTP listen address, loopback only (default 127.0.0.1:0)
  --dns ADDR         DNS listen address, UDP+TCP, loopback only (default 127.0.0.1:0)
  --truth-addr ADDR  truth endpoint address, loopback only (default 127.0.0.1:0)
  --faults F         share of articles/posts with a fault, 0..1, spread over all kinds (default 0.04)
  --dead F           share of extra dead host names (NXDOMAIN/SERVFAIL/timeout), 0..1 (default 0.1)
  --dns-latency MIN..MAX  DNS answer latency range, e.g. 20ms..200ms (default 20ms..200ms)
  --antibot on|off   anti-bot rule and quotas (default on)
  --quota N          requests per IP and host per web hour, ≥ 1 (default 3600)
  --publishing       news sites publish new articles over time, announced in feeds and
                     sitemaps (RSS, Atom, sitemap, news sitemap, index, lying lastmod, none)
  --real-dates       write dates in real time, as the demo does: a page's, feed's or
                     sitemap's date is the real moment the web's clock read it, and
                     articles say they were published when the web started (default:
                     web time, which runs --scale× ahead and starts at 2025-01-01)
  --corpus DIR       serve the real-world corpus of feeds and sitemaps instead
                     (engine/discover/testdata/realworld, as the realfeeds bench does):
                     home pages linking feeds, robots.txt naming sitemaps, on --http,
                     with a DNS server on --dns answering 127.0.0.1 for every name;
                     prints http, dns, the home pages and the crawl command
  --homes FILE       with --corpus: write the home pages to FILE, for crawl --seeds
  --spa              serve the script-built sites too (pages a crawl renders with a
                     headless Chromium): spa, mixed (script under /app/ only), error
                     (a 404 shell), static, hang, on 127.0.0.21..25; "spa" in the JSON
                     line names each one's home page
  -h, --help         show this help

Fetch a page:  curl --resolve www.NAME:PORT:127.0.0.1 http://www.NAME:PORT/
`

// RunCommand implements `crawlconsole sandbox`: it starts the sandbox web, prints one
// JSON line describing it, and runs until ctx is cancelled (SIGINT/SIGTERM). It returns
// the exit status: 0 after a clean shutdown, 2 for bad flags, 1 for other failures.
func RunCommand(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	cfg, opts, err := parseFlags(args)
	truthFile := opts.truth
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, commandUsage)
		return 0
	}
	if err != nil {
		return clikit.Usage(stderr, "sandbox", err.Error())
	}
	if opts.corpus != "" {
		return runRealCommand(ctx, opts.corpus, cfg.HTTPAddr, cfg.DNSAddr, opts.homes, stdout, stderr)
	}
	var truthOut *os.File
	if truthFile != "" { // fail now, not after an hour of running; truncate only at exit
		_, statErr := os.Stat(truthFile)
		if truthOut, err = os.OpenFile(truthFile, os.O_WRONLY|os.O_CREATE, 0o644); err != nil {
			fmt.Fprintf(stderr, "crawlconsole sandbox: --truth: %v\n", err)
			return 2
		}
		defer truthOut.Close()
		if os.IsNotExist(statErr) {
			defer func() {
				if code != 0 { // leave no empty file behind a failed start
					os.Remove(truthFile)
				}
			}()
		}
	}
	sb, err := Start(cfg)
	var inUse *AddrInUseError
	if errors.As(err, &inUse) {
		flagName := map[string]string{"HTTP": "--http", "DNS (UDP)": "--dns", "DNS (TCP)": "--dns", "truth": "--truth-addr"}[inUse.Listener]
		fmt.Fprintf(stderr, "crawlconsole sandbox: %s %s: address already in use; choose another port, or port 0 for a free one\n", flagName, inUse.Addr)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole sandbox: %v\n", err)
		return 1
	}
	out := struct {
		Info
		SPA map[string]string `json:"spa,omitempty"` // --spa: each script-built site's home page, by kind
	}{Info: sb.Info()}
	if opts.spa {
		spa, err := StartSPA(spaAddrs, spaArticles)
		if err != nil {
			sb.Close()
			fmt.Fprintf(stderr, "crawlconsole sandbox: --spa: %v\n", err)
			return 1
		}
		defer spa.Close()
		out.SPA = map[string]string{}
		for _, k := range []string{SPASite, MixedSite, ErrorSite, StaticSite, HangSite} {
			out.SPA[k] = spa.URL(k)
		}
	}
	line, err := json.Marshal(out)
	if err != nil {
		sb.Close()
		fmt.Fprintf(stderr, "crawlconsole sandbox: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, string(line))
	<-ctx.Done()
	sb.Close()
	if truthOut != nil {
		err := truthOut.Truncate(0)
		if err == nil {
			err = sb.Truth().WriteJSON(truthOut, 0)
		}
		if err != nil {
			fmt.Fprintf(stderr, "crawlconsole sandbox: writing --truth %s: %v\n", truthFile, err)
			return 1
		}
		if err := truthOut.Close(); err != nil {
			fmt.Fprintf(stderr, "crawlconsole sandbox: writing --truth %s: %v\n", truthFile, err)
			return 1
		}
	}
	return 0
}

// The script-built sites of --spa: one per loopback address (the render tests'
// and bench's kinds: spa, mixed, error, static, hang), 30 articles each.
var spaAddrs = []string{"127.0.0.21", "127.0.0.22", "127.0.0.23", "127.0.0.24", "127.0.0.25"}

const spaArticles = 30

// cmdOptions are the command's flags that are no part of the web's Config.
type cmdOptions struct {
	spa    bool   // --spa: serve the script-built sites too
	truth  string // --truth FILE
	corpus string // --corpus DIR: serve the real-world corpus instead
	homes  string // --homes FILE: its home pages, for crawl --seeds
}

// parseFlags turns the command line into a Config; errors name the flag and the
// allowed values.
func parseFlags(args []string) (Config, cmdOptions, error) {
	var o cmdOptions
	cfg := DefaultConfig()
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "")
	fs.IntVar(&cfg.Hosts, "hosts", cfg.Hosts, "")
	fs.Float64Var(&cfg.Scale, "scale", cfg.Scale, "")
	fs.StringVar(&cfg.HTTPAddr, "http", cfg.HTTPAddr, "")
	fs.StringVar(&cfg.DNSAddr, "dns", cfg.DNSAddr, "")
	fs.StringVar(&cfg.TruthAddr, "truth-addr", cfg.TruthAddr, "")
	fs.StringVar(&o.truth, "truth", "", "")
	faults := fs.Float64("faults", cfg.FaultShare(), "")
	dead := fs.Float64("dead", cfg.DNS.NXDomainShare+cfg.DNS.ServFailShare+cfg.DNS.TimeoutShare, "")
	latency := fs.String("dns-latency", "20ms..200ms", "")
	antibot := fs.String("antibot", "on", "")
	fs.IntVar(&cfg.AntiBot.Quota, "quota", cfg.AntiBot.Quota, "")
	fs.BoolVar(&cfg.Publishing, "publishing", cfg.Publishing, "")
	fs.BoolVar(&cfg.RealDates, "real-dates", cfg.RealDates, "")
	fs.StringVar(&o.corpus, "corpus", "", "")
	fs.StringVar(&o.homes, "homes", "", "")
	fs.BoolVar(&o.spa, "spa", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, o, err
		}
		return cfg, o, explainFlagError(fs, err)
	}
	if fs.NArg() > 0 {
		return cfg, o, fmt.Errorf("unexpected argument %q (the sandbox takes flags only)", fs.Arg(0))
	}
	checks := []struct {
		bad bool
		msg string
	}{
		{cfg.Hosts < 2 || cfg.Hosts > maxHosts, fmt.Sprintf("--hosts must be between 2 and %d, got %d", maxHosts, cfg.Hosts)},
		{!(cfg.Scale > 0 && cfg.Scale <= 1e7), fmt.Sprintf("--scale must be > 0 and ≤ 1e7, got %v", cfg.Scale)},
		{!(*faults >= 0 && *faults <= 1), fmt.Sprintf("--faults must be a share between 0 and 1, got %v", *faults)},
		{!(*dead >= 0 && *dead <= 1), fmt.Sprintf("--dead must be a share between 0 and 1, got %v", *dead)},
		{*antibot != "on" && *antibot != "off", fmt.Sprintf("--antibot must be on or off, got %q", *antibot)},
		{cfg.AntiBot.Quota < 1, fmt.Sprintf("--quota must be ≥ 1, got %d", cfg.AntiBot.Quota)},
	}
	for _, c := range checks {
		if c.bad {
			return cfg, o, errors.New(c.msg)
		}
	}
	if o.homes != "" && o.corpus == "" {
		return cfg, o, errors.New("--homes writes the seeds of --corpus: give --corpus DIR too")
	}
	for _, a := range []struct{ flag, addr string }{{"--http", cfg.HTTPAddr}, {"--dns", cfg.DNSAddr}, {"--truth-addr", cfg.TruthAddr}} {
		if err := checkLoopback(a.addr); err != nil {
			return cfg, o, fmt.Errorf("%s %v", a.flag, err)
		}
	}
	lo, hi, err := parseRange(*latency)
	if err != nil {
		return cfg, o, fmt.Errorf("--dns-latency must be MIN..MAX durations with 0 ≤ MIN ≤ MAX ≤ 1m, e.g. 20ms..200ms: %v", err)
	}
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = lo, hi
	cfg.SetFaultShare(*faults)
	// Keep the default 2:1:1 mix of NXDOMAIN, SERVFAIL and timeouts.
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = *dead/2, *dead/4, *dead/4
	cfg.AntiBot.Enabled = *antibot == "on"
	return cfg, o, cfg.Validate()
}

func parseRange(s string) (time.Duration, time.Duration, error) {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return 0, 0, fmt.Errorf("got %q", s)
	}
	lo, err1 := time.ParseDuration(a)
	hi, err2 := time.ParseDuration(b)
	if err1 != nil || err2 != nil || lo < 0 || hi < lo || hi > time.Minute {
		return 0, 0, fmt.Errorf("got %q", s)
	}
	return lo, hi, nil
}

// explainFlagError rewrites the flag package's terse errors to name the allowed
// values; an unknown flag is named with the one it was likely meant to be, as the
// other commands name it, the list left to --help.
func explainFlagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	allowed := map[string]string{
		"seed": "an integer", "hosts": "an integer 2..1000000", "scale": "a number > 0",
		"faults": "a share 0..1", "dead": "a share 0..1", "quota": "an integer ≥ 1",
	}
	for name, want := range allowed {
		if strings.Contains(msg, "-"+name+":") || strings.Contains(msg, "-"+name+" ") {
			return fmt.Errorf("--%s must be %s (%s)", name, want, msg)
		}
	}
	if hint := clikit.FlagHint(fs, msg); hint != "" {
		return fmt.Errorf("%s: %s", msg, hint)
	}
	return err
}
