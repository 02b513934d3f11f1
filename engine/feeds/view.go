package feeds

import (
	"maps"
	"slices"
	"sort"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// probes says whether host is asked for /sitemap.xml when robots.txt names no
// sitemap (config.DiscoveryOptions.Probe).
func (d *Discovery) probes(host string) bool {
	switch d.opts.Discovery.Probe {
	case config.ProbeAll:
		return true
	case config.ProbeOff:
		return false
	}
	return d.c.NewsSite(host)
}

// View lists the units with feeds or sitemaps (units.go: a declared site by its
// name, else a registered domain), by name. The sources of removed sites are left
// out (steer.go): they are parked, not read, whichever unit their hosts fall to
// now; a unit with only those is not listed.
func (d *Discovery) View() []view.SiteDiscovery {
	d.rekeyed()
	b := d.book()
	d.mu.Lock()
	defer d.mu.Unlock()
	read := func(srcs map[string]bool) []string {
		return slices.DeleteFunc(sortedKeys(srcs), func(u string) bool { return d.removedHost(hostOf(u), b) })
	}
	var out []view.SiteDiscovery
	for name, s := range d.sites {
		c := s.total()
		v := view.SiteDiscovery{Site: name, Feeds: read(s.feeds), Sitemaps: read(s.sitemaps), Found: c.found,
			Hints: c.hints, Ignored: c.ignored, Warnings: c.warnings}
		if len(v.Feeds)+len(v.Sitemaps) == 0 && len(s.feeds)+len(s.sitemaps) > 0 {
			continue
		}
		v.DatesTrusted, v.Why = s.trust.Trusted()
		v.Covered = maps.Clone(d.shadowed[name])
		if len(s.problems) > 0 {
			v.Problems = maps.Clone(s.problems)
			maps.DeleteFunc(v.Problems, func(u, _ string) bool { return d.removedHost(hostOf(u), b) })
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Site < out[j].Site })
	return out
}
