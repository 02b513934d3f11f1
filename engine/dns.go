package engine

import (
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// dnsView is the DNS pane of this box's cache; nil with a custom resolver.
func (e *Engine) dnsView() *view.DNSView {
	if e.dns == nil {
		return nil
	}
	v := e.dnsViewC.Get(e.dns, e.now())
	return &v
}

// FlushDNS implements Control.
func (e *Engine) FlushDNS(domain string) (int, error) { return e.crew.FlushDNS(domain) }

// FlushDNS empties this process's DNS cache of domain (all of it for "").
func (c localCrew) FlushDNS(domain string) (int, error) {
	e := c.e
	if e.dns == nil {
		return 0, fmt.Errorf("no DNS cache: a custom resolver is in use")
	}
	n := e.dns.Flush(domain)
	e.logf(view.LevelInfo, 0, "", "DNS cache flushed (%s): %d entries", map[bool]string{true: "all", false: domain}[domain == ""], n)
	return n, nil
}
