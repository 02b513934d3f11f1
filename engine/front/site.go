package front

import (
	"net"

	"golang.org/x/net/publicsuffix"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// SiteOf is the site a task's host is reported under: its declared site, else its
// registered domain (the host itself for an IP address or a name with no public
// suffix).
func SiteOf(t frontier.Task) string {
	if t.Site != "" {
		return t.Site
	}
	h := t.Host
	if hp, _, err := net.SplitHostPort(h); err == nil {
		h = hp
	}
	if net.ParseIP(h) != nil {
		return h
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(h); err == nil {
		return d
	}
	return h
}

// HostOf is the host of a normalised URL ("" when it does not parse).
func HostOf(normalized string) string { return frontier.Hostname(normalized) }
