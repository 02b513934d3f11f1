package sandbox

// The catalog answers questions about the model by URL: which pages exist, who their
// parent is, whether two pages are adjacent in the sense of seed 000.

// PageInfo describes one crawlable page of the model.
type PageInfo struct {
	// URL is the page's canonical URL, with the port.
	URL string `json:"url"`
	// Host is the page's host name.
	Host string `json:"host"`
	// Kind is entry, listing, article, post, search, private or dead.
	Kind string `json:"kind"`
	// Parent is the URL of the page whose links introduce this one ("" for roots).
	Parent string `json:"parent"`
	// Depth is the number of parent links up to a root.
	Depth int `json:"depth"`
	// ChangeRate is the Poisson change rate in changes per web day (0: never changes).
	ChangeRate float64 `json:"change_rate"`
	// Fault is the page's fault kind ("" if none).
	Fault string `json:"fault"`
	// Disallowed tells that robots.txt forbids the page.
	Disallowed bool `json:"disallowed"`
	// Class is the class of the page's site ("web_com", ..., "soc").
	Class string `json:"class"`
}

// Pages lists every crawlable page, site by site, parents before their children. It
// builds the whole list, so with very many hosts it is for offline simulations.
func (w *Web) Pages() []PageInfo {
	var out []PageInfo
	add := func(p page) {
		out = append(out, w.info(p))
	}
	for _, s := range w.sites {
		www := s.hosts[0]
		add(page{h: www, kind: pkEntry})
		for _, h := range s.hosts[1:] {
			for n := 1; n <= w.cfg.Layout.ListingPages; n++ {
				add(page{h: h, kind: pkListing, a: n})
				for i := 1; i <= w.cfg.Layout.ArticlesPerListing; i++ {
					add(page{h: h, kind: pkArticle, a: n, b: i})
				}
				add(page{h: h, kind: pkPrivate, a: n})
			}
		}
		if len(s.hosts) > 1 {
			for i := 0; i < w.cfg.Layout.TopStories; i++ {
				add(page{h: topHost(s, i), kind: pkTop, b: i})
			}
		}
		for _, d := range s.dead {
			add(page{d: d, kind: pkDead})
		}
		if s.social {
			for kw := range s.keywords {
				for n := 1; n <= w.cfg.Search.PagesPerKeyword; n++ {
					add(page{h: www, kind: pkSearch, a: n, kw: kw})
					for i := 1; i <= w.cfg.Search.ResultsPerPage; i++ {
						add(page{h: searchPostHost(s, kw, n, i), kind: pkSearchPost, a: n, b: i, kw: kw})
					}
				}
			}
		}
	}
	return out
}

func (w *Web) info(p page) PageInfo {
	pi := PageInfo{
		URL:        w.urlOf(p),
		Host:       p.hostName(),
		Kind:       p.kindName(),
		ChangeRate: w.rateOf(p),
		Fault:      w.faultOf(p),
		Disallowed: p.kind == pkPrivate,
	}
	if p.d != nil {
		pi.Kind, pi.Class = KindDead, p.d.site.Class
	} else {
		pi.Class = p.h.site.Class
	}
	if par, ok := w.parent(p); ok {
		pi.Parent = w.urlOf(par)
		for ok {
			pi.Depth++
			par, ok = w.parent(par)
		}
	}
	return pi
}

// Page describes one URL of the model; ok is false for URLs the model does not serve.
func (w *Web) Page(url string) (PageInfo, bool) {
	p := w.lookupURL(url)
	if !p.valid() || p.kind == pkRobots {
		return PageInfo{}, false
	}
	p.hop = 0
	return w.info(p), true
}

// Parent returns the URL of url's parent page in the sandbox's link tree, "" for roots
// (entry and search pages) and unknown URLs. Redirect hops share their page's parent.
func (w *Web) Parent(url string) string {
	if par, ok := w.parent(w.lookupURL(url)); ok {
		return w.urlOf(par)
	}
	return ""
}

// parentKey identifies the parent page of p for adjacency; 0 for roots.
func (w *Web) parentKey(p page) uint64 {
	if par, ok := w.parent(p); ok {
		return par.key() | 1 // never 0
	}
	return 0
}

// Adjacent is the ground truth of seed 000 (M1): two pages are adjacent when they are on
// the same host, or when they have the same (non-root) parent page.
func (w *Web) Adjacent(a, b string) bool {
	ha, hb := urlHost(a), urlHost(b)
	if ha != "" && ha == hb {
		return true
	}
	pa := w.Parent(a)
	return pa != "" && pa == w.Parent(b)
}

// urlHost extracts the normalised host of an absolute URL.
func urlHost(raw string) string {
	i := 0
	for ; i+2 < len(raw); i++ {
		if raw[i] == ':' && raw[i+1] == '/' && raw[i+2] == '/' {
			break
		}
	}
	if i+2 >= len(raw) {
		return ""
	}
	rest := raw[i+3:]
	for j := 0; j < len(rest); j++ {
		if c := rest[j]; c == '/' || c == '?' || c == '#' {
			rest = rest[:j]
			break
		}
	}
	return normalizeHost(rest)
}

// SmallPages returns up to n URLs of articles and posts without faults (a few KB each),
// taken round-robin over the section hosts, without listing the whole web: the load
// of throughput benchmarks.
func (w *Web) SmallPages(n int) []string {
	var out []string
	per := w.cfg.Layout.ListingPages * w.cfg.Layout.ArticlesPerListing
	for k := 0; k < per && len(out) < n; k++ {
		for _, s := range w.sites {
			for _, h := range s.hosts[1:] {
				if len(out) >= n {
					return out
				}
				p := page{h: h, kind: pkArticle, a: 1 + k/w.cfg.Layout.ArticlesPerListing, b: 1 + k%w.cfg.Layout.ArticlesPerListing}
				if w.faultOf(p) == "" {
					out = append(out, w.urlOf(p))
				}
			}
		}
	}
	return out
}
