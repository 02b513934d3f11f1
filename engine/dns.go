package engine

import (
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
)

// newDNSCache builds the resolver of every egress (M5), warmed with what the last
// run left in the store (a worker keeps nothing between runs).
func (e *Engine) newDNSCache() (*dnscache.Cache, error) {
	var meta lanes.Meta
	if e.st != nil {
		meta = e.st
	}
	return lanes.NewResolver(e.opts.DNS, e.opts.DNSServers, e.hostQueued, e.opts.Now, meta)
}

// hostQueued tells the DNS cache whether a host still has URLs waiting, so entries
// near expiry are refreshed only when they will be used (M5).
func (e *Engine) hostQueued(host string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.board == nil || e.board.Holds(host)
}

// dnsView is the DNS pane of this box's cache; nil with a custom resolver.
func (e *Engine) dnsView() *DNSView {
	if e.dns == nil {
		return nil
	}
	v := e.dnsViewC.Get(e.dns, e.now())
	return &v
}

// FlushDNS implements Control.
func (e *Engine) FlushDNS(domain string) (int, error) {
	if e.cluster != nil { // M4: every worker has its own cache
		return e.cluster.everyWorker(&wire.Control{Op: wire.OpFlushDNS, Domain: domain})
	}
	if e.dns == nil {
		return 0, fmt.Errorf("no DNS cache: a custom resolver is in use")
	}
	n := e.dns.Flush(domain)
	e.logf(LevelInfo, 0, "", "DNS cache flushed (%s): %d entries", map[bool]string{true: "all", false: domain}[domain == ""], n)
	return n, nil
}
