package local

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/dnscache"
)

// dnsMetaKey is where the DNS cache's live entries are kept between runs.
const dnsMetaKey = "dnscache.v1"

// Meta is the store's meta table, where a crawl keeps what outlives a run (the DNS
// cache's entries here).
type Meta interface {
	GetMeta(key string) ([]byte, error)
	SetMeta(key string, v []byte)
}

// NewResolver builds the resolver of every egress (M5): the DNS cache in front of
// servers, under the dns options. stillNeeded says whether a host still has URLs
// waiting, so entries near expiry are refreshed only when they will be used; held,
// whether the operator holds it, so its name gets no query meanwhile. meta,
// when not nil, warms the cache with what the last run left there (a worker keeps
// nothing between runs and passes nil).
func NewResolver(d config.DNSOptions, servers []string, stillNeeded, held func(host string) bool, now func() time.Time, meta Meta) (*dnscache.Cache, error) {
	o := dnscache.DefaultOptions()
	o.Servers = servers
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
	o.StillNeeded, o.Held = stillNeeded, held
	o.Now = now
	c, err := dnscache.New(o)
	if err != nil {
		return nil, err
	}
	if meta == nil {
		return c, nil
	}
	if b, err := meta.GetMeta(dnsMetaKey); err == nil && len(b) > 0 {
		var entries []dnscache.Entry
		if json.Unmarshal(b, &entries) == nil {
			c.Import(entries)
		}
	}
	return c, nil
}

// SaveResolver keeps the cache's live entries in meta, so a restarted crawl starts
// warm.
func SaveResolver(c *dnscache.Cache, meta Meta) {
	if b, err := json.Marshal(c.Export()); err == nil {
		meta.SetMeta(dnsMetaKey, b)
	}
}

// Prefetcher collects the hosts of newly queued URLs and hands them to the cache's
// resolver pool in batches, off the caller's lock (M5: resolve the queue's hosts
// while the lanes fetch). Hosts keep the order they were queued in, which is the
// order lanes take them: the cache resolves new names first come, first served.
// The zero value is ready to use.
type Prefetcher struct {
	mu    sync.Mutex
	hosts []string
	seen  map[string]struct{} // the set of hosts
	kick  chan struct{}
	once  sync.Once
}

func (p *Prefetcher) kicks() chan struct{} {
	p.once.Do(func() { p.kick = make(chan struct{}, 1) })
	return p.kick
}

// Add queues a host for resolving; it never blocks.
func (p *Prefetcher) Add(host string) {
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
	case p.kicks() <- struct{}{}:
	default:
	}
}

func (p *Prefetcher) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.hosts
	p.hosts = nil
	clear(p.seen)
	return out
}

// Run feeds queued hosts to c until ctx ends.
func (p *Prefetcher) Run(ctx context.Context, c *dnscache.Cache) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.kicks():
			if hosts := p.take(); len(hosts) > 0 {
				c.Prefetch(hosts...)
			}
		}
	}
}

// ResolverView refreshes the DNS pane's data at most once a second: gathering the
// slowest domains walks the whole cache, too much for every console tick. The zero
// value is ready to use.
type ResolverView struct {
	mu   sync.Mutex
	at   time.Time
	view dnscache.View
}

// Get returns c's view as of at most a second before now.
func (v *ResolverView) Get(c *dnscache.Cache, now time.Time) dnscache.View {
	v.mu.Lock()
	defer v.mu.Unlock()
	if now.Sub(v.at) > time.Second {
		v.view = c.View(20)
		v.at = now
	}
	return v.view
}
