package main

// The "bans" benchmark's yardstick: the page set every crawler must fetch, the lower
// bound on the makespan derived from the sandbox's rules, and the per-host account of
// how crawlconsole actually spent its time.

import (
	"fmt"
	"sort"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// bansReach is the page set every crawler must fetch, per host.
type bansReach struct {
	total       int
	perHost     map[string]int
	maxChildren int // most children of one entry page
}

// bansReachable lists the pages reachable from the entry pages by links (a page whose
// chain of parents ends at an entry; search result pages are roots no page links to)
// that robots.txt allows.
func bansReachable(w *sandbox.Web) bansReach {
	pages := w.Pages()
	byURL := make(map[string]sandbox.PageInfo, len(pages))
	for _, p := range pages {
		byURL[p.URL] = p
	}
	memo := map[string]bool{}
	var reachable func(u string) bool
	reachable = func(u string) bool {
		if v, ok := memo[u]; ok {
			return v
		}
		p := byURL[u]
		v := p.Kind == sandbox.KindEntry
		if p.Parent != "" {
			v = reachable(p.Parent)
		}
		memo[u] = v
		return v
	}
	r := bansReach{perHost: map[string]int{}}
	children := map[string]int{}
	for _, p := range pages {
		if p.Disallowed || p.Kind == sandbox.KindDead || !reachable(p.URL) {
			continue
		}
		r.total++
		r.perHost[p.Host]++
		if par, ok := byURL[p.Parent]; ok && par.Kind == sandbox.KindEntry {
			children[p.Parent]++
			r.maxChildren = max(r.maxChildren, children[p.Parent])
		}
	}
	return r
}

// bansLowerBound is the shortest makespan any schedule could reach without tripping
// the sandbox's rules from the same addresses, with its derivation.
type bansLowerBound struct {
	lines []string
	total time.Duration
}

func (lb bansLowerBound) print() {
	for _, l := range lb.lines {
		fmt.Println(l)
	}
}

// bansBound derives the bound from the rules. Per address, requests to one host (or
// with one parent page) never overlap and start at least G after the previous one
// ended, and every request lasts at least serve; a page cannot be requested before
// the page linking to it has been fetched.
func bansBound(s bansSetup, r bansReach, serve time.Duration) bansLowerBound {
	n := len(bansAddrs)
	g := s.gap
	var lb bansLowerBound
	add := func(format string, args ...any) { lb.lines = append(lb.lines, fmt.Sprintf(format, args...)) }
	rounds := func(k int) int { return (k + n - 1) / n }
	serial := func(k int) time.Duration { // k requests serial on one address
		if k <= 0 {
			return 0
		}
		return time.Duration(k)*serve + time.Duration(k-1)*g
	}
	add("lower bound: the shortest makespan any schedule could reach from %d addresses without tripping the sandbox's rules", n)
	add("  rule: per address, requests to one host or with one parent page never overlap and start ≥ G after the previous ended;")
	add("        G = HumanGap %v web ÷ scale %g = %v real; every request lasts ≥ s = %v (shortest the sandbox served, truth log)",
		s.cfg.AntiBot.HumanGap, s.cfg.Scale, g, serve)

	host, most := "", 0
	hostsSorted := make([]string, 0, len(r.perHost))
	for h := range r.perHost {
		hostsSorted = append(hostsSorted, h)
	}
	sort.Strings(hostsSorted)
	for _, h := range hostsSorted {
		if r.perHost[h] > most {
			host, most = h, r.perHost[h]
		}
	}
	req := most + 1 // and its robots.txt, a request to the host like any other
	k := rounds(req)
	tHost := serial(k)
	add("  (1) host throughput: busiest host %s has %d pages + robots.txt = %d requests; over %d addresses one of them makes ≥ ⌈%d/%d⌉ = %d,",
		host, most, req, n, req, n, k)
	add("      serial: %d·s + %d·G = %v", k, k-1, tHost.Round(time.Millisecond))

	L, A := s.cfg.Layout.ListingPages, s.cfg.Layout.ArticlesPerListing
	ka := rounds(A)
	tDepth := time.Duration(L+1)*serve + serial(ka)
	add("  (2) link depth: entry → list?p=1 → … → list?p=%d is a chain of %d fetches (%d·s); the last listing's %d articles share its host",
		L, L+1, L+1, A)
	add("      and parent, so one address makes ≥ %d of them after it: %d·s + %d·s + %d·G = %v", ka, L+1, ka, ka-1, tDepth.Round(time.Millisecond))

	children := r.maxChildren
	tParent := serial(rounds(children))
	add("  (3) parent rule across hosts: an entry's %d children (listings p=1 and top stories, on several hosts) share a parent:", children)
	add("      ≥ %d per address: %v — not binding beside (1)", rounds(children), tParent.Round(time.Millisecond))
	add("  (4) request quota: %d per address and host per %v web; the gap rule alone allows at most %d in that window — not binding",
		s.cfg.AntiBot.Quota, s.cfg.AntiBot.QuotaWindow, int(s.cfg.AntiBot.QuotaWindow/s.cfg.AntiBot.HumanGap)+1)
	total := max(tHost, tDepth, tParent)
	if s.hostCap > 0 {
		iv := time.Duration(float64(time.Second) / (s.hostCap * s.cfg.Scale))
		tCap := time.Duration(req-1)*iv + serve
		add("  (5) crawlconsole's own per-host cap (politeness, not a sandbox rule): %g/web s = one start per %v on a host:", s.hostCap, iv)
		add("      %d requests → %d·%v + s = %v", req, req-1, iv, tCap.Round(time.Millisecond))
		total = max(total, tCap)
	} else {
		add("  (5) per-host aggregate cap: the sandbox has none, and crawlconsole's host cap is off here")
	}
	add("  lower_bound_s = max of the above = %.3f s", total.Seconds())
	lb.total = total
	return lb
}

// bansHostSpan is how one host was crawled: when, and from which addresses.
type bansHostSpan struct {
	host        string
	first, last time.Duration // first start and last end, from the crawl's start
	perIP       map[string]int
	requests    int
	meanGap     time.Duration // mean end-to-start gap between one address's requests to the host
}

// bansHostSpans summarises the truth log per host, slowest host last.
func bansHostSpans(reqs []sandbox.Request, start time.Time) []bansHostSpan {
	by := map[string]*bansHostSpan{}
	type key struct{ host, ip string }
	lastEnd := map[key]time.Time{}
	gaps := map[string][]time.Duration{}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Start.Before(reqs[j].Start) })
	for _, r := range reqs {
		h := by[r.Host]
		if h == nil {
			h = &bansHostSpan{host: r.Host, first: r.Start.Sub(start), perIP: map[string]int{}}
			by[r.Host] = h
		}
		h.requests++
		h.perIP[r.IP]++
		h.last = max(h.last, r.End.Sub(start))
		k := key{r.Host, r.IP}
		if le, ok := lastEnd[k]; ok {
			gaps[r.Host] = append(gaps[r.Host], r.Start.Sub(le))
		}
		lastEnd[k] = r.End
	}
	var out []bansHostSpan
	for host, h := range by {
		var sum time.Duration
		for _, g := range gaps[host] {
			sum += g
		}
		if n := len(gaps[host]); n > 0 {
			h.meanGap = sum / time.Duration(n)
		}
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].last < out[j].last })
	return out
}
