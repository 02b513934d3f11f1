package discover

import (
	"net/url"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Allowed says whether a discovery document at src may announce the page at page.
//
// Sitemaps follow the protocol's rule (https://www.sitemaps.org/protocol.html,
// "Sitemap file location" and "Sitemaps & Cross Submits"): a sitemap speaks for its
// own host (same scheme and host), or for a host whose robots.txt lists the sitemap
// — crossHosts are those hosts. Feeds have no such rule; a feed speaks for its own
// site (registered domain), as news sites publish one feed for all their section
// hosts. Anything else is refused: a sitemap must not be a way to push a crawl onto
// someone else's host.
func Allowed(kind Kind, src, page string, crossHosts []string) bool {
	s, err := url.Parse(src)
	if err != nil {
		return false
	}
	p, err := url.Parse(page)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Hostname() == "" {
		return false
	}
	sh, ph := strings.ToLower(s.Hostname()), strings.ToLower(p.Hostname())
	if kind == KindFeed {
		return frontier.Site(sh) == frontier.Site(ph)
	}
	if sh == ph && strings.EqualFold(s.Scheme, p.Scheme) {
		return true
	}
	for _, h := range crossHosts {
		if strings.EqualFold(h, ph) {
			return true
		}
	}
	return false
}
