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
	s := e.sites.Load().siteOf(host)
	return s != nil && s.Kind == SiteNews
}

// SiteDiscovery is one site's feeds and sitemaps as the Sites pane shows them.
type SiteDiscovery struct {
	Site     string
	Feeds    []string
	Sitemaps []string
	Found    int64 // URLs its feeds and sitemaps announced (every read counted)
	// DatesTrusted says whether its lastmod/pubDate hints are followed; Why says
	// why not.
	DatesTrusted bool
	Why          string
	Hints        int64          // date moves that made a stored page due
	Ignored      int64          // date moves ignored as untrusted
	Warnings     map[string]int // problems in its documents, by kind
	// Covered is its sources that another of its sources covers (discover.Coverage:
	// nothing they list comes later there), each with the one covering it. They are
	// read at the longest poll interval only.
	Covered map[string]string
	// Problems is, per document of the site whose last read yielded nothing, why
	// (refused for its content, unreadable, no URLs, every URL off its host).
	Problems map[string]string
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
