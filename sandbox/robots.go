package sandbox

import (
	"strconv"
	"strings"
)

// robots.txt: every host disallows /private/ (listing pages link there, so a crawler
// that ignores robots.txt is caught in the truth log) and /admin/; a share of hosts also
// sets Crawl-delay, given in web seconds scaled to real seconds.

// appendRobots writes the host's robots.txt.
func (w *Web) appendRobots(buf []byte, h *vhost) []byte {
	buf = append(buf, "# robots.txt for "...)
	buf = append(buf, h.name...)
	buf = append(buf, "\nUser-agent: BadBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\nDisallow: /admin/\n"...)
	if h.crawlDelay && w.cfg.Robots.CrawlDelay > 0 {
		buf = append(buf, "Crawl-delay: "...)
		buf = strconv.AppendFloat(buf, w.realDur(w.cfg.Robots.CrawlDelay).Seconds(), 'f', -1, 64)
		buf = append(buf, '\n')
	}
	return buf
}

// CrawlDelay returns the Crawl-delay (real) that host's robots.txt sets, 0 if none.
func (w *Web) CrawlDelay(host string) float64 {
	h := w.hostOf(host)
	if h == nil || !h.crawlDelay {
		return 0
	}
	return w.realDur(w.cfg.Robots.CrawlDelay).Seconds()
}

// disallowedPath tells whether robots.txt forbids path to every user agent.
func disallowedPath(path string) bool {
	return strings.HasPrefix(path, "/private/") || strings.HasPrefix(path, "/admin/")
}
