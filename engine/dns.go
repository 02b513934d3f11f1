package engine

import (
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
)

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
