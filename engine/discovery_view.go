package engine

import (
	"maps"
	"sort"
)

// probes says whether host is asked for /sitemap.xml when robots.txt names no
// sitemap (DiscoveryOptions.Probe).
func (e *Engine) probes(host string) bool {
	switch e.opts.Discovery.Probe {
	case ProbeAll:
		return true
	case ProbeOff:
		return false
	}
	s := e.sites.Load().SiteOf(host)
	return s != nil && s.Kind == SiteNews
}

// view lists the sites with feeds or sitemaps, by name.
func (d *discovery) view() []SiteDiscovery {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []SiteDiscovery
	for name, s := range d.sites {
		v := SiteDiscovery{Site: name, Feeds: sortedKeys(s.feeds), Sitemaps: sortedKeys(s.sitemaps), Found: s.found,
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
