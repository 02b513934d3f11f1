package engine

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
)

const dnsMetaKey = "dnscache.v1"

// newDNSCache builds the resolver of every egress: the M5 cache in front of the
// configured servers, warmed with what the last run left in the store.
func (e *Engine) newDNSCache() (*dnscache.Cache, error) {
	o := dnscache.DefaultOptions()
	o.Servers = e.opts.DNSServers
	d := e.opts.DNS
	if d.MinTTL > 0 {
		o.MinTTL = d.MinTTL
	}
	if d.MaxTTL > 0 {
		o.MaxTTL = d.MaxTTL
	}
	if d.SlowThreshold > 0 {
		o.SlowThreshold = d.SlowThreshold
	}
	if d.Workers > 0 {
		o.MaxWorkers = d.Workers
	}
	if d.Timeout > 0 {
		o.Timeout = d.Timeout
	}
	o.StillNeeded = e.hostQueued
	o.Now = e.opts.Now
	c, err := dnscache.New(o)
	if err != nil {
		return nil, err
	}
	if e.st == nil {
		return c, nil // a worker: nothing kept between runs
	}
	if b, err := e.st.GetMeta(dnsMetaKey); err == nil && len(b) > 0 {
		var entries []dnscache.Entry
		if json.Unmarshal(b, &entries) == nil {
			c.Import(entries)
		}
	}
	return c, nil
}

// hostQueued tells the DNS cache whether a host still has URLs waiting, so entries
// near expiry are refreshed only when they will be used (M5).
func (e *Engine) hostQueued(host string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.board == nil || e.board.Holds(host)
}

// dnsPrefetcher collects the hosts of newly queued URLs and hands them to the
// cache's resolver pool in batches, outside the engine lock (M5: resolve the queue's
// hosts while the lanes fetch). Hosts keep the order they were queued in, which is
// the order lanes take them: the cache resolves new names first come, first served.
type dnsPrefetcher struct {
	mu    sync.Mutex
	hosts []string
	seen  map[string]struct{} // the set of hosts
	kick  chan struct{}
}

func (p *dnsPrefetcher) add(host string) {
	p.mu.Lock()
	if p.seen == nil {
		p.seen = map[string]struct{}{}
	}
	if _, ok := p.seen[host]; !ok {
		p.seen[host] = struct{}{}
		p.hosts = append(p.hosts, host)
	}
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *dnsPrefetcher) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.hosts
	p.hosts = nil
	clear(p.seen)
	return out
}

// runPrefetch feeds queued hosts to the cache until the engine stops.
func (e *Engine) runPrefetch() {
	defer e.wg.Done()
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-e.prefetch.kick:
			if hosts := e.prefetch.take(); len(hosts) > 0 {
				e.dns.Prefetch(hosts...)
			}
		}
	}
}

// saveDNS persists the cache's live entries so a restarted crawl starts warm.
func (e *Engine) saveDNS() {
	b, err := json.Marshal(e.dns.Export())
	if err == nil {
		e.st.SetMeta(dnsMetaKey, b)
	}
}

// dnsViewCache refreshes the DNS pane's data at most once a second: gathering the
// slowest domains walks the whole cache, too much for every console tick.
type dnsViewCache struct {
	mu   sync.Mutex
	at   time.Time
	view DNSView
}

func (e *Engine) dnsView() *DNSView {
	if e.dns == nil {
		return nil
	}
	v := &e.dnsViewC
	v.mu.Lock()
	defer v.mu.Unlock()
	if now := e.now(); now.Sub(v.at) > time.Second {
		v.view = e.dns.View(20)
		v.at = now
	}
	cp := v.view
	return &cp
}

// FlushDNS implements Control.
func (e *Engine) FlushDNS(domain string) (int, error) {
	if e.cluster != nil { // M4: every worker has its own cache
		return e.cluster.everyWorker(&wireControl{Op: "flush_dns", Domain: domain})
	}
	if e.dns == nil {
		return 0, fmt.Errorf("no DNS cache: a custom resolver is in use")
	}
	n := e.dns.Flush(domain)
	e.logf(LevelInfo, 0, "", "DNS cache flushed (%s): %d entries", map[bool]string{true: "all", false: domain}[domain == ""], n)
	return n, nil
}
