package main

// The upstream bound of benchmark "dns" and its report: the TTL census, the queries
// each host strictly needed, and the table and JSON fields.

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// dnsCensus is what the sandbox's DNS server says about each name: the TTL of a live
// host's A record, how each dead name fails, and the RFC 2308 TTL of NXDOMAIN.
type dnsCensus struct {
	ttl    map[string]time.Duration // live hosts
	dead   map[string]string        // dead names: "nxdomain", "servfail", "timeout"
	negTTL time.Duration
}

func (c dnsCensus) summary() string {
	by := map[time.Duration]int{}
	for _, t := range c.ttl {
		by[t]++
	}
	keys := make([]time.Duration, 0, len(by))
	for t := range by {
		keys = append(keys, t)
	}
	slices.Sort(keys)
	var parts []string
	for _, t := range keys {
		parts = append(parts, fmt.Sprintf("%d hosts with TTL %v", by[t], t))
	}
	return strings.Join(parts, ", ")
}

// dnsTakeCensus asks a zero-latency twin of the sandbox (same seed and scale, hence the
// same names and TTLs) for every live host's A record and one NXDOMAIN name's SOA.
func dnsTakeCensus(cfg sandbox.Config) (dnsCensus, error) {
	twin := cfg
	twin.DNS.LatencyMin, twin.DNS.LatencyMax = 0, 0
	sb, err := sandbox.Start(twin)
	if err != nil {
		return dnsCensus{}, err
	}
	defer sb.Close()
	c := dnsCensus{ttl: map[string]time.Duration{}, dead: sb.Web().DeadHosts()}
	var hosts []string
	for _, s := range sb.Info().Sites {
		hosts = append(hosts, s.Hosts...)
	}
	var nx string
	for name, kind := range c.dead {
		if kind == "nxdomain" {
			nx = name
			break
		}
	}
	client := &dns.Client{Net: "udp", Timeout: 2 * time.Second}
	ask := func(name string) (*dns.Msg, error) {
		m := new(dns.Msg)
		m.SetQuestion(dns.Fqdn(name), dns.TypeA)
		var lastErr error
		for try := 0; try < 3; try++ {
			r, _, err := client.Exchange(m, sb.DNSAddr())
			if err == nil {
				return r, nil
			}
			lastErr = err
		}
		return nil, lastErr
	}
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		next  atomic.Int64
	)
	for w := 0; w < 16; w++ {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(hosts); i = int(next.Add(1)) - 1 {
				r, err := ask(hosts[i])
				mu.Lock()
				switch {
				case err != nil:
					first = dnsFirstErr(first, fmt.Errorf("%s: %w", hosts[i], err))
				case len(r.Answer) == 0:
					first = dnsFirstErr(first, fmt.Errorf("%s: no A record", hosts[i]))
				default:
					c.ttl[hosts[i]] = time.Duration(r.Answer[0].Header().Ttl) * time.Second
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return c, first
	}
	if nx != "" {
		r, err := ask(nx)
		if err != nil {
			return c, err
		}
		for _, rr := range r.Ns {
			if soa, ok := rr.(*dns.SOA); ok {
				c.negTTL = time.Duration(min(soa.Hdr.Ttl, soa.Minttl)) * time.Second
			}
		}
		if r.Rcode != dns.RcodeNameError || c.negTTL == 0 {
			return c, fmt.Errorf("%s: want NXDOMAIN with an SOA, got rcode %d", nx, r.Rcode)
		}
	}
	return c, nil
}

func dnsFirstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// dnsNeedRow is one line of the upstream bound's derivation: a class of names, how
// many upstream resolutions they strictly needed, and how many the server saw.
type dnsNeedRow struct {
	class    string
	rule     string
	hosts    int
	needed   int
	messages int // at the sandbox's DNS server
}

// dnsHostNeed is what one host strictly needed upstream while it had queued URLs for
// span: one resolution per TTL period (live hosts: the A record's TTL; NXDOMAIN: the
// SOA's negative TTL), or one per step of the cache's retry backoff for names that fail
// transiently; with the row of the derivation it belongs to, and how many messages one
// resolution costs at the server (an A and an AAAA; both sent twice when no answer ever
// comes, see upstream.exchange).
func dnsHostNeed(host string, span time.Duration, c dnsCensus) (need int, class, rule string, msgs int) {
	retry := dnscache.DefaultOptions()
	periods := func(period time.Duration) int { return 1 + int(span/period) }
	switch kind := c.dead[host]; {
	case c.ttl[host] > 0:
		return periods(c.ttl[host]), fmt.Sprintf("live, TTL %v", c.ttl[host]), "1 + ⌊span/TTL⌋", 2
	case kind == "nxdomain":
		return periods(c.negTTL), "NXDOMAIN", fmt.Sprintf("1 + ⌊span/%v⌋ (SOA negative TTL)", c.negTTL), 2
	case kind != "":
		msgs := 2
		if kind == "timeout" {
			msgs = 4
		}
		return dnsBackoffQueries(span, retry.RetryBase, retry.RetryMax), strings.ToUpper(kind),
			fmt.Sprintf("backoff steps %v·2^k ≤ %v at their shortest jitter", retry.RetryBase, retry.RetryMax), msgs
	}
	return 1, "other", "1", 2
}

// dnsUpstreamNeed derives, from a crawl's queue spans and the census, the upstream
// resolutions strictly needed, per class of names (see dnsHostNeed). Names the server
// was asked about but the crawl never queued needed none.
func dnsUpstreamNeed(r *dnsRun, c dnsCensus) ([]dnsNeedRow, int) {
	rows := map[string]*dnsNeedRow{}
	row := func(class, rule string) *dnsNeedRow {
		if rows[class] == nil {
			rows[class] = &dnsNeedRow{class: class, rule: rule}
		}
		return rows[class]
	}
	total := 0
	for host, sp := range r.spans {
		n, class, rule, _ := dnsHostNeed(host, sp.last.Sub(sp.first), c)
		x := row(class, rule)
		x.hosts++
		x.needed += n
		x.messages += r.perName[host]
		total += n
	}
	for name, m := range r.perName {
		if _, ok := r.spans[name]; !ok {
			x := row("never queued", "0")
			x.hosts++
			x.messages += m
		}
	}
	out := make([]dnsNeedRow, 0, len(rows))
	for _, x := range rows {
		out = append(out, *x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].class < out[j].class })
	return out, total
}

// dnsBackoffQueries is how many times the cache's retry policy can ask for a name that
// keeps failing transiently over span: once at once, then after each backoff step at
// its shortest (d/2 of d = base·2^k, capped at maxStep).
func dnsBackoffQueries(span, base, maxStep time.Duration) int {
	n, t, d := 1, time.Duration(0), base
	for {
		t += d / 2
		if t > span {
			return n
		}
		n++
		d = min(2*d, maxStep)
	}
}

// dnsExcess lists the hosts the server was asked about most beyond their need, in
// messages (a resolution's cost per dnsHostNeed), for the diagnosis of a missed bound.
func dnsExcess(r *dnsRun, c dnsCensus, n int) []string {
	type ex struct {
		host, class       string
		need, got, perRes int
		span              time.Duration
	}
	var all []ex
	for host, sp := range r.spans {
		span := sp.last.Sub(sp.first)
		need, class, _, perRes := dnsHostNeed(host, span, c)
		if got := r.perName[host]; got > need*perRes {
			all = append(all, ex{host, class, need, got, perRes, span})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		oi, oj := all[i].got-all[i].need*all[i].perRes, all[j].got-all[j].need*all[j].perRes
		return oi > oj || oi == oj && all[i].host < all[j].host
	})
	var out []string
	for _, x := range all[:min(n, len(all))] {
		out = append(out, fmt.Sprintf("%s (%s): %d messages, needed %d resolutions × %d (queued for %.1f s)",
			x.host, x.class, x.got, x.need, x.perRes, x.span.Seconds()))
	}
	if len(all) > n {
		out = append(out, fmt.Sprintf("... %d hosts over their need in all", len(all)))
	}
	return out
}

// dnsReport prints the comparison and the bound's derivation and returns the fields.
func dnsReport(runs map[string]*dnsRun, kinds []string, c dnsCensus, lanes int) map[string]any {
	fmt.Println()
	fmt.Printf("%-22s %8s %8s %7s %10s %10s %9s %8s %8s %9s %11s %9s\n", "resolver", "crawl s", "lookups", "waited",
		"zero-wait", "zero-wait", "zero-wait", "p50 ms", "p99 ms", "p99 ms", "upstream", "server")
	fmt.Printf("%-22s %8s %8s %7s %10s %10s %9s %8s %8s %9s %11s %9s\n", "", "", "", "", "whole run", "after wu", "per req",
		"", "", "after wu", "resolutions", "messages")
	for _, k := range kinds {
		r := runs[k]
		fmt.Printf("%-22s %8.1f %8d %7d %10.4f %10.4f %9.4f %8.1f %8.1f %9.1f %11d %9d\n", dnsResolverNames[k], r.wall.Seconds(),
			r.lookups, r.waited, r.zeroShare(), r.zeroShareAfter(), r.zeroShareRequests(), r.p50, r.p99, r.p99After,
			r.resolutions, r.server)
	}
	fmt.Println("lookups are per dial: keep-alive requests resolve nothing. crawlconsole's p50/p99 are its histogram's bucket edges;")
	fmt.Println("a baseline lookup under 1 ms is a cache answer. A lookup's wait is the resolver call: Go's resolver goes on for its")
	fmt.Println("attempts (2 × 5 s on a silent name) after the request's own 5 s timeout has failed the fetch. rs/dnscache only")
	fmt.Println("answers names it has seen: each host is dialled once in this crawl, so its first lookup is nearly its only one.")
	same := true
	for _, k := range kinds {
		if runs[k].urls != runs[kinds[0]].urls {
			same = false
		}
	}
	if !same {
		fmt.Println("WARNING: the runs did not crawl the same URLs:")
	} else {
		fmt.Printf("same crawl in every run: %d URLs, %d done, %d failed (the dead names)\n",
			runs[kinds[0]].urls.all, runs[kinds[0]].urls.done, runs[kinds[0]].urls.failed)
	}
	for _, k := range kinds {
		if !same {
			fmt.Printf("  %-22s %s\n", dnsResolverNames[k], runs[k].line())
		}
	}

	out := map[string]any{"gomaxprocs": runtime.GOMAXPROCS(0), "failing_names": len(c.dead), "hosts": len(c.ttl),
		"lanes": lanes, "same_crawl": same}
	for _, k := range kinds {
		r := runs[k]
		prefix := map[string]string{dnsCC: "", dnsGo: "go_resolver_", dnsLib: "dnscache_lib_"}[k]
		out[prefix+"wait_p99_ms"] = dnsRound(r.p99, 3)
		out[prefix+"wait_p99_ms_after_warmup"] = dnsRound(r.p99After, 3)
		out[prefix+"zero_wait_share_whole_run"] = dnsRound(r.zeroShare(), 5)
		out[prefix+"crawl_s"] = dnsRound(r.wall.Seconds(), 2)
		out[prefix+"server_messages"] = r.server
		if k == dnsCC {
			out["zero_wait_share"] = dnsRound(r.zeroShareAfter(), 5)
		} else {
			out[prefix+"zero_wait_share"] = dnsRound(r.zeroShareAfter(), 5)
		}
	}
	if cc := runs[dnsCC]; cc != nil {
		out["warmup_s"] = dnsRound(cc.warmup.Seconds(), 2)
		out["wait_p50_ms"] = dnsRound(cc.p50, 3)
		out["zero_wait_share_per_request"] = dnsRound(cc.zeroShareRequests(), 5)
		out["lookups"], out["lookups_after_warmup"] = cc.lookups, cc.lookupsAfter
		rows, needed := dnsUpstreamNeed(cc, c)
		bound := int(math.Floor(1.1 * float64(needed)))
		queries := cc.server / 2
		fmt.Println()
		fmt.Printf("warm-up: %.1f s from Start until every seed host had been asked upstream and answered; %d lookups waited\n"+
			"before it (the first of up to %d lanes opened at Start: %.2f%% of all lookups), %d after it; prefetch backlog peaked at %d hosts\n",
			cc.warmup.Seconds(), cc.waited-cc.waitedAfter, lanes, 100*dnsRatio(cc.waited-cc.waitedAfter, cc.lookups), cc.waitedAfter, cc.maxBacklog)
		fmt.Println()
		fmt.Println("upstream bound (crawlconsole's crawl): per host, the resolutions strictly needed while it had queued URLs")
		fmt.Println("(span = first discovered_at .. last updated_at of the host's URLs in the store; TTLs as the server serves them)")
		fmt.Printf("%-18s %6s %8s %10s %10s  %s\n", "names", "hosts", "needed", "server msgs", "msgs / 2", "needed per host")
		for _, x := range rows {
			fmt.Printf("%-18s %6d %8d %10d %10.1f  %s\n", x.class, x.hosts, x.needed, x.messages, float64(x.messages)/2, x.rule)
		}
		fmt.Printf("%-18s %6s %8d %10d %10d\n", "total", "", needed, cc.server, queries)
		fmt.Printf("bound = 1.1 × %d = %d resolutions (%d messages: an A and an AAAA per resolution)\n", needed, bound, 2*bound)
		fmt.Printf("server saw %d messages = %d A+AAAA pairs (upstream_queries); the cache counted %d resolutions and %d messages\n"+
			"sent (a UDP query unanswered after half the timeout is sent again: silent names cost 4 messages a resolution)\n",
			cc.server, queries, cc.resolutions, cc.cacheMsgs)
		if ex := dnsExcess(cc, c, 8); len(ex) > 0 {
			fmt.Println("names asked about more often than they needed (server messages):")
			for _, l := range ex {
				fmt.Println("  " + l)
			}
		}
		out["upstream_queries"] = queries
		out["upstream_messages"] = cc.server
		out["cache_upstream_queries"] = cc.resolutions
		out["cache_upstream_messages"] = cc.cacheMsgs
		out["upstream_needed"] = needed
		out["upstream_bound"] = bound
		out["upstream_bound_messages"] = 2 * bound
		goals := map[string]bool{
			"wait_p99_ms < 1":                    cc.p99 < 1,
			"zero_wait_share >= 0.995":           cc.zeroShareAfter() >= 0.995,
			"upstream_queries <= upstream_bound": queries <= bound,
		}
		out["goals_met"] = goals
		fmt.Println()
		for _, g := range []string{"wait_p99_ms < 1", "zero_wait_share >= 0.995", "upstream_queries <= upstream_bound"} {
			fmt.Printf("goal %-36s %v\n", g, goals[g])
		}
		if g := runs[dnsGo]; g != nil {
			out["speedup_vs_go_resolver"] = dnsRound(g.wall.Seconds()/cc.wall.Seconds(), 3)
			fmt.Printf("crawl time: Go resolver / crawlconsole = %.2f\n", g.wall.Seconds()/cc.wall.Seconds())
		}
		if l := runs[dnsLib]; l != nil {
			out["speedup_vs_dnscache_lib"] = dnsRound(l.wall.Seconds()/cc.wall.Seconds(), 3)
			fmt.Printf("crawl time: rs/dnscache / crawlconsole = %.2f\n", l.wall.Seconds()/cc.wall.Seconds())
		}
	}
	return out
}
