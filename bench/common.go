package main

// Shared by the crawl benchmarks "throughput" and "bans": the sandbox they crawl, the
// keep-alive transport their baselines (bare colly, the 3-threads-per-IP prior art)
// fetch with, the sandbox's own account of a run, and small statistics.

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/html"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// crawlSandboxConfig is a sandbox for crawl benchmarks: no faults, no dead host names,
// near-zero DNS latency and no robots.txt Crawl-delay, so that what is measured is the
// crawler (and, for "bans", the anti-bot rule), not the sandbox's weather. robots.txt
// still disallows /private/, so every crawler that honours it fetches the same pages.
func crawlSandboxConfig(hosts int, scale float64) sandbox.Config {
	cfg := sandbox.DefaultConfig()
	cfg.Seed = 1
	cfg.Hosts = hosts
	cfg.Scale = scale
	cfg.Faults.Shares = nil
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = 0, 200*time.Microsecond
	cfg.Robots.CrawlDelayShare = 0
	return cfg
}

// crawlSeeds lists the sites' entry pages: the seeds every crawler starts from.
func crawlSeeds(sb *sandbox.Sandbox) []string {
	var out []string
	for _, s := range sb.Info().Sites {
		out = append(out, s.Entry)
	}
	return out
}

// crawlHosts lists every virtual host name: the domains the baselines may follow
// links to (crawlconsole's scope rule "same site as a seed" allows exactly these).
func crawlHosts(sb *sandbox.Sandbox) []string {
	var out []string
	for _, s := range sb.Info().Sites {
		out = append(out, s.Hosts...)
	}
	return out
}

// crawlTransport is the keep-alive transport the baselines use: names resolved by
// the sandbox's DNS server with Go's resolver (no cache), connections made from local
// (zero: the default source address, else a bind to that loopback address, which the
// sandbox sees as one client IP), and connection pooling sized like crawlconsole's
// fetcher (engine/fetch: 512 idle, 8 per host), so that a comparison measures the
// crawlers, not pool sizes.
func crawlTransport(dnsAddr string, local netip.Addr) *http.Transport {
	dnsDialer := &net.Dialer{Timeout: 3 * time.Second}
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dnsDialer.DialContext(ctx, network, dnsAddr)
	}}
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if local.IsValid() {
		d.LocalAddr = &net.TCPAddr{IP: local.AsSlice()}
	}
	return &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			ips, err := resolver.LookupNetIP(ctx, "ip4", host)
			if err != nil {
				return nil, err
			}
			if len(ips) == 0 {
				return nil, fmt.Errorf("%s: no address", host)
			}
			return d.DialContext(ctx, network, net.JoinHostPort(ips[0].String(), port))
		},
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
	}
}

// crawlAccount is what the sandbox saw of one crawl: its truth log from a mark on.
type crawlAccount struct {
	requests   int // every request, robots.txt included
	pages      int // 200 answers that were not ban pages, robots.txt excluded
	unique     int // distinct URLs among pages
	refused    int // answered with a ban page or a 429 quota answer
	violations int // requests that broke the adjacency rule (M1)
	robotsBad  int // requests for paths robots.txt disallows
	bans       int // bans handed out
	minServe   time.Duration
	first      time.Time // first request's start
	last       time.Time // last request's end
	urls       map[string]bool
}

// crawlAccountSince reads the truth log from request index since and bans from index
// bansSince on.
func crawlAccountSince(sb *sandbox.Sandbox, since, bansSince int) crawlAccount {
	reqs, _ := sb.Truth().RequestsSince(since)
	a := crawlAccount{urls: map[string]bool{}, minServe: time.Hour}
	for _, r := range reqs {
		a.requests++
		if a.first.IsZero() || r.Start.Before(a.first) {
			a.first = r.Start
		}
		if r.End.After(a.last) {
			a.last = r.End
		}
		if d := r.End.Sub(r.Start); d < a.minServe {
			a.minServe = d
		}
		if r.Violation {
			a.violations++
		}
		if r.Robots {
			a.robotsBad++
		}
		switch {
		case r.Banned || r.Limited:
			a.refused++
		case r.Status == http.StatusOK && r.Kind != sandbox.KindRobots:
			a.pages++
			a.urls[r.URL] = true
		}
	}
	a.unique = len(a.urls)
	if bans := sb.Truth().Bans(); len(bans) > bansSince {
		a.bans = len(bans) - bansSince
	}
	if a.requests == 0 {
		a.minServe = 0
	}
	return a
}

// median of xs (xs is sorted in place).
func crawlMedian(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// round rounds x to digits decimals, for the JSON line.
func crawlRound(x float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	if x < 0 {
		return -float64(int64(-x*p+0.5)) / p
	}
	return float64(int64(x*p+0.5)) / p
}

// crawlInHosts returns a predicate telling whether an absolute URL's host is one of hosts.
func crawlInHosts(hosts []string) func(rawURL string) bool {
	set := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		set[h] = true
	}
	return func(rawURL string) bool {
		rest, ok := strings.CutPrefix(rawURL, "http://")
		if !ok {
			return false
		}
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			rest = rest[:i]
		}
		if i := strings.LastIndexByte(rest, ':'); i >= 0 {
			rest = rest[:i]
		}
		return set[strings.ToLower(rest)]
	}
}

// crawlPageLinks returns the absolute targets of a page's <a href> links, in document
// order: the prior-art baseline's link extraction (a tokenizer, no DOM).
func crawlPageLinks(base *url.URL, body []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if len(name) != 1 || name[0] != 'a' || !hasAttr {
				continue
			}
			for {
				k, v, more := z.TagAttr()
				if string(k) == "href" {
					if u, err := base.Parse(string(v)); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
						u.Fragment = ""
						out = append(out, u.String())
					}
					break
				}
				if !more {
					break
				}
			}
		}
	}
}

// crawlCPU is the CPU time this process has used (user + system): every crawler
// and the sandbox share the process, so a difference over one run is that run's cost.
func crawlCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAvg is the machine's load average, its first n fields of /proc/loadavg (1, 5
// and 15 minutes), to put a wall-clock figure in context; "unknown" if unreadable.
func loadAvg(n int) string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < n {
		return "unknown"
	}
	return strings.Join(f[:n], " ")
}

// startMemProfile arranges for the allocs profile (Go's default sampling, one per
// 512 KiB allocated) to be written to path when the returned stop runs
// (-memprofile). The profile counts from the program's start, so the sandbox's
// setup and the ceiling measurement are in it too: small beside the timed crawls;
// read it with -sample_index=alloc_space. An empty path does nothing.
func startMemProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return func() {
		defer f.Close()
		runtime.GC() // the profile is as of the last GC
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fmt.Fprintf(os.Stderr, "memprofile %s: %v\n", path, err)
		}
	}, nil
}

// parseProfiled parses args into fs with a -cpuprofile flag beside fs's own and
// starts the CPU profile of the whole run that it names (none when empty); stop ends
// it.
func parseProfiled(fs *flag.FlagSet, args []string) (stop func(), err error) {
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return startCPUProfile(*cpuProfile)
}

// startCPUProfile writes a CPU profile of what follows to path (-cpuprofile); the
// returned stop ends it. An empty path profiles nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
