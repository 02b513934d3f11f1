package main

// The "bans" benchmark's first baseline, the prior art of seed 000: at most 3 threads
// per IP with timing control over a priority-sorted list, and no notion of adjacency.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// priorArt is the seed's prior art: at most 3 threads per IP with timing control over
// a priority-sorted list, and no notion of adjacency.
type priorArt struct {
	s       bansSetup
	inScope func(string) bool
	ua      string

	mu     sync.Mutex
	wake   chan struct{} // closed and replaced when the list changes
	list   priorList
	seen   map[string]bool
	seq    int
	taken  int // items out of the list: being fetched, or refused and waiting to go back
	robots map[string]*priorRobots
}

type priorItem struct {
	url   string
	depth int
	seq   int
}

// priorList is the priority-sorted list: lowest depth first, then discovery order.
type priorList []priorItem

func (l priorList) less(i, j int) bool {
	if l[i].depth != l[j].depth {
		return l[i].depth < l[j].depth
	}
	return l[i].seq < l[j].seq
}

func (l *priorList) push(it priorItem) {
	*l = append(*l, it)
	h := *l
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (l *priorList) pop() priorItem {
	h := *l
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	*l = h
	return top
}

type priorRobots struct {
	ready chan struct{}
	group *robotstxt.Group
}

// bansPriorArt crawls a fresh sandbox with the prior art until every page is fetched
// or the cap is hit.
func bansPriorArt(s bansSetup) (bansResult, error) {
	sb, err := sandbox.Start(s.cfg)
	if err != nil {
		return bansResult{}, err
	}
	defer sb.Close()
	p := &priorArt{s: s, inScope: crawlInHosts(crawlHosts(sb)), ua: "priorart-bench/1.0",
		wake: make(chan struct{}), seen: map[string]bool{}, robots: map[string]*priorRobots{}}
	ctx, cancel := context.WithTimeout(context.Background(), s.capPrior)
	defer cancel()
	start := time.Now()
	p.add(crawlSeeds(sb), 0)
	var wg sync.WaitGroup
	for i, a := range bansAddrs {
		tr := crawlTransport(sb.DNSAddr(), netip.MustParseAddr(a))
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		for t := 0; t < 3; t++ {
			wg.Add(1)
			go func(seed uint64) {
				defer wg.Done()
				p.worker(ctx, client, rand.New(rand.NewPCG(seed, 0x9a17)))
			}(uint64(i*3 + t))
		}
	}
	wg.Wait()
	makespan := time.Since(start)
	capped := ctx.Err() != nil
	if capped {
		makespan = s.capPrior
	}
	acct := crawlAccountSince(sb, 0, 0)
	return bansResult{name: "priorart", makespan: makespan, capped: capped, acct: acct, web: sb.Web(),
		note: fmt.Sprintf("refused %d", acct.refused)}, nil
}

// add puts newly found in-scope URLs on the list. Caller does not hold p.mu.
func (p *priorArt) add(urls []string, depth int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, u := range urls {
		if p.seen[u] || !p.inScope(u) {
			continue
		}
		p.seen[u] = true
		p.seq++
		p.list.push(priorItem{url: u, depth: depth, seq: p.seq})
	}
	p.broadcast()
}

func (p *priorArt) broadcast() {
	close(p.wake)
	p.wake = make(chan struct{})
}

// next takes the list's first item, waiting while the list is empty but items are
// still out; ok=false when everything is done or ctx ended.
func (p *priorArt) next(ctx context.Context) (priorItem, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if ctx.Err() != nil {
			return priorItem{}, false
		}
		if len(p.list) > 0 {
			p.taken++
			return p.list.pop(), true
		}
		if p.taken == 0 {
			return priorItem{}, false
		}
		w := p.wake
		p.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
		}
		p.mu.Lock()
	}
}

// done returns an item's slot; requeue puts it back on the list (after a refusal).
func (p *priorArt) done(it priorItem, requeue bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.taken--
	if requeue {
		p.list.push(it)
	}
	p.broadcast()
}

// worker is one of the 3 threads of an IP: take the top of the list, fetch, pause.
func (p *priorArt) worker(ctx context.Context, client *http.Client, rng *rand.Rand) {
	pause := func() bool {
		d := p.s.lo + time.Duration(rng.Int64N(int64(p.s.hi-p.s.lo)+1))
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		it, ok := p.next(ctx)
		if !ok {
			return
		}
		u, err := url.Parse(it.url)
		if err != nil {
			p.done(it, false)
			continue
		}
		g, fetched := p.rules(ctx, client, u)
		if fetched && !pause() { // robots.txt was a request of this thread
			p.done(it, false)
			return
		}
		if g != nil && !g.Test(u.RequestURI()) {
			p.done(it, false)
			continue
		}
		links, refused, err := p.fetch(ctx, client, u)
		switch {
		case refused:
			// Timing control only: the URL goes back on the list after a back-off.
			time.AfterFunc(p.s.refusal, func() { p.done(it, true) })
		default:
			if err == nil {
				p.add(links, it.depth+1)
			}
			p.done(it, false)
		}
		if !pause() {
			return
		}
	}
}

// rules returns the host's robots.txt group; fetched tells that this call made the
// request (the first thread to need a host fetches it, the others wait for it).
func (p *priorArt) rules(ctx context.Context, client *http.Client, u *url.URL) (*robotstxt.Group, bool) {
	p.mu.Lock()
	r := p.robots[u.Host]
	if r != nil {
		p.mu.Unlock()
		select {
		case <-r.ready:
		case <-ctx.Done():
		}
		return r.group, false
	}
	r = &priorRobots{ready: make(chan struct{})}
	p.robots[u.Host] = r
	p.mu.Unlock()
	defer close(r.ready)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.Scheme+"://"+u.Host+"/robots.txt", nil)
	if err != nil {
		return nil, true
	}
	req.Header.Set("User-Agent", p.ua)
	resp, err := client.Do(req)
	if err != nil {
		return nil, true
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512<<10))
	if data, err := robotstxt.FromStatusAndBytes(resp.StatusCode, body); err == nil {
		r.group = data.FindGroup(p.ua)
	}
	return r.group, true
}

// fetch GETs a page; refused reports a ban or quota answer (403, 429, captcha page).
func (p *priorArt) fetch(ctx context.Context, client *http.Client, u *url.URL) ([]string, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("User-Agent", p.ua)
	resp, err := client.Do(req)
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 10<<20))
	if err != nil {
		return nil, false, err
	}
	switch {
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests:
		return nil, true, nil
	case resp.StatusCode != http.StatusOK:
		return nil, false, errors.New(resp.Status)
	case strings.Contains(strings.ToLower(string(body[:min(len(body), 4096)])), "verify you are human"):
		return nil, true, nil
	}
	return crawlPageLinks(resp.Request.URL, body), false, nil
}
