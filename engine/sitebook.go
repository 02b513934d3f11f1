package engine

import (
	"slices"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// siteBook is the engine's view of the declared sites (M3): which site a host
// belongs to, what a site's keywords are, and the URLs each round starts from.
//
// A book is never changed once built: live steering (steer.go) builds a new one and
// swaps it in (Engine.sites), so the lanes read it without a lock.
type siteBook struct {
	sites    []SiteOptions
	shared   []string            // the top-level keywords
	dropped  map[string][]string // site name -> shared keywords taken off it (:keyword rm)
	keywords map[string][]string // site name -> resolved keywords
	byName   map[string]*SiteOptions
	byDomain map[string]*SiteOptions // registered domain -> site
	isSource map[string]bool         // entry and search URLs (normalised)
}

// newSiteBook indexes validated site options.
func newSiteBook(o *Options) *siteBook { return buildSiteBook(o.Sites, o.Keywords, nil) }

// buildSiteBook indexes sites with the shared keywords, less those dropped per site.
func buildSiteBook(sites []SiteOptions, shared []string, dropped map[string][]string) *siteBook {
	b := &siteBook{sites: sites, shared: shared, dropped: dropped, keywords: map[string][]string{},
		byName: map[string]*SiteOptions{}, byDomain: map[string]*SiteOptions{}, isSource: map[string]bool{}}
	for i := range b.sites {
		s := &b.sites[i]
		b.byName[s.Name] = s
		b.keywords[s.Name] = slices.DeleteFunc(s.KeywordsWith(shared), func(k string) bool { return slices.Contains(dropped[s.Name], k) })
		if d := s.Domain(); d != "" {
			if _, taken := b.byDomain[d]; !taken {
				b.byDomain[d] = s
			}
		}
	}
	for _, it := range b.sources() {
		b.isSource[it.URL] = true
	}
	return b
}

// declare tells the classifier about the sites (M2/M3 classes): social sites'
// registered domains are soc, and a site's class override wins for its domain.
func (b *siteBook) declare(c *revisit.Classifier) {
	for i := range b.sites {
		s := &b.sites[i]
		d := s.Domain()
		if d == "" {
			continue
		}
		if s.Kind == SiteSocial && (s.Class == "" || s.Class == revisit.ClassSocial) {
			if c.Social == nil {
				c.Social = map[string]bool{}
			}
			c.Social[d] = true
			continue
		}
		if s.Class != "" {
			if c.Declared == nil {
				c.Declared = map[string]string{}
			}
			c.Declared[d] = s.Class
		}
	}
}

// siteOf returns the declared site host belongs to (by registered domain), or nil.
func (b *siteBook) siteOf(host string) *SiteOptions {
	if b == nil || len(b.byDomain) == 0 {
		return nil
	}
	return b.byDomain[frontier.Site(strings.ToLower(host))]
}

// sources are the URLs a round starts from (M3): every news site's entry, and every
// social site's search for each of its keywords and each result page 1..pages, with
// the site and keyword they are collected for. Unusable URLs are left out (Validate
// has named them already).
func (b *siteBook) sources() []revisit.Item { return b.sourcesOf("", "") }

// sourcesOf is sources limited to one site (name "" for all) and, for a social
// site, one keyword (kw "" for all): what a site or keyword added while the crawl
// runs queues at once.
func (b *siteBook) sourcesOf(name, kw string) []revisit.Item {
	var out []revisit.Item
	add := func(raw string, s *SiteOptions, kw string) {
		n, err := frontier.Normalize(raw)
		if err != nil {
			return
		}
		out = append(out, revisit.Item{URL: n, Host: hostOf(n), Site: s.Name, Keyword: kw})
	}
	for i := range b.sites {
		s := &b.sites[i]
		if name != "" && s.Name != name {
			continue
		}
		switch s.Kind {
		case SiteNews:
			add(s.Entry, s, "")
		case SiteSocial:
			for _, k := range b.keywords[s.Name] {
				if kw != "" && k != kw {
					continue
				}
				for p := 1; p <= s.SearchPages(); p++ {
					add(config.SearchURL(s.Search, k, p), s, k)
				}
			}
		}
	}
	return out
}

// matches returns the keywords of a news site found in a page's main text, compared
// case-folded (M3: news pages are filtered locally by keyword).
func (b *siteBook) matches(site, text string) []string {
	if text == "" {
		return nil
	}
	low := strings.ToLower(text)
	var out []string
	for _, kw := range b.keywords[site] {
		if strings.Contains(low, strings.ToLower(kw)) {
			out = append(out, kw)
		}
	}
	return out
}

// siteClass is the page class a site gives its pages when it declares one (M2/M3):
// its class override, or soc for a social site; "" leaves it to the public suffix.
func siteClass(s *SiteOptions) string {
	if s.Class != "" {
		return s.Class
	}
	if s.Kind == SiteSocial {
		return revisit.ClassSocial
	}
	return ""
}
