package feeds

import (
	"maps"
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
// name, else a registered domain), by name.
func (d *Discovery) View() []view.SiteDiscovery {
	d.rekeyed()
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []view.SiteDiscovery
	for name, s := range d.sites {
		v := view.SiteDiscovery{Site: name, Feeds: sortedKeys(s.feeds), Sitemaps: sortedKeys(s.sitemaps), Found: s.found,
			Hints: s.hints, Ignored: s.ignored, Warnings: map[string]int{}}
		v.DatesTrusted, v.Why = s.trust.Trusted()
		for k, n := range s.warnings {
			v.Warnings[k] = n
		}
		v.Covered = maps.Clone(d.shadowed[name])
		if len(s.problems) > 0 {
			v.Problems = maps.Clone(s.problems)
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Site < out[j].Site })
	return out
}
