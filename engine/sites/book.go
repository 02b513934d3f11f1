// Package sites holds the declared news and social sites of a crawl (M3): the book
// that says which site a host belongs to, what each site's keywords are, and which
// URLs a round starts from.
package sites

import (
	"net/url"
	"slices"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// Book is the crawl's view of the declared sites (M3): which site a host belongs
// to, what a site's keywords are, and the URLs each round starts from.
//
// A book is never changed once built: live steering builds a new one and swaps it
// in, so the lanes read it without a lock.
type Book struct {
	sites    []config.SiteOptions
	shared   []string            // the top-level keywords
	dropped  map[string][]string // site name -> shared keywords taken off it (:keyword rm)
	keywords map[string][]string // site name -> resolved keywords
	byName   map[string]*config.SiteOptions
	byDomain map[string]*config.SiteOptions // registered domain -> the first site declared on it
	byHost   map[string]*config.SiteOptions // host named by a site (entry, search, hosts)
	wild     []wildcard                     // *.NAME patterns, longest NAME first
	rest     map[string]*config.SiteOptions // registered domain -> the one site declared on it
	isSource map[string]bool                // entry and search URLs (normalised)
}

// wildcard is a site's *.NAME pattern: suffix is ".NAME".
type wildcard struct {
	suffix string
	site   *config.SiteOptions
}

// FromOptions indexes the validated sites and shared keywords of o.
func FromOptions(o *config.Options) *Book { return New(o.Sites, o.Keywords, nil) }

// New indexes sites with the shared keywords, less those dropped per site.
func New(sites []config.SiteOptions, shared []string, dropped map[string][]string) *Book {
	b := &Book{sites: sites, shared: shared, dropped: dropped, keywords: map[string][]string{},
		byName: map[string]*config.SiteOptions{}, byDomain: map[string]*config.SiteOptions{}, byHost: map[string]*config.SiteOptions{},
		rest: map[string]*config.SiteOptions{}, isSource: map[string]bool{}}
	common := map[string]bool{} // registered domains more than one site is declared on
	for i := range b.sites {
		s := &b.sites[i]
		b.byName[s.Name] = s
		b.keywords[s.Name] = slices.DeleteFunc(s.KeywordsWith(shared), func(k string) bool { return slices.Contains(dropped[s.Name], k) })
		if d := s.Domain(); d != "" {
			if _, taken := b.byDomain[d]; !taken {
				b.byDomain[d] = s
				b.rest[d] = s
			} else {
				common[d] = true
			}
		}
		for _, p := range s.HostPatterns() {
			if suffix, ok := strings.CutPrefix(p, "*"); ok {
				b.wild = append(b.wild, wildcard{suffix: suffix, site: s})
			} else if _, taken := b.byHost[p]; !taken { // Validate refuses a host named twice
				b.byHost[p] = s
			}
		}
	}
	for d := range common {
		delete(b.rest, d) // no one site holds the rest of a domain sites share
	}
	slices.SortStableFunc(b.wild, func(x, y wildcard) int { return len(y.suffix) - len(x.suffix) })
	for _, it := range b.Sources() {
		b.isSource[it.URL] = true
	}
	return b
}

// Sites are the declared sites, in declaration order. The caller must not change them.
func (b *Book) Sites() []config.SiteOptions { return b.sites }

// Shared are the top-level keywords every site without its own list searches for.
func (b *Book) Shared() []string { return b.shared }

// Dropped are the shared keywords taken off each site by name (:keyword rm). The
// caller must not change the map; clone it to build the next book.
func (b *Book) Dropped() map[string][]string { return b.dropped }

// Keywords are the resolved keywords of the site called name.
func (b *Book) Keywords(name string) []string { return b.keywords[name] }

// Named is the site called name, or nil.
func (b *Book) Named(name string) *config.SiteOptions { return b.byName[name] }

// OfDomain is the first site declared on registered domain d, or nil.
func (b *Book) OfDomain(d string) *config.SiteOptions { return b.byDomain[d] }

// IsSource tells whether u (normalised) is an entry or search URL of a site: a
// page a round starts from.
func (b *Book) IsSource(u string) bool { return b.isSource[u] }

// Declare tells the classifier about the sites (M2/M3 classes): a social site's
// hosts are soc, and a site's class override wins for its hosts. A site's hosts are
// those SiteOf gives it: the hosts it names, the hosts under a *.NAME it lists, and
// its registered domain when it holds the rest of it (no other site is declared
// there), so a class one site of an organisation declares is not the class of its
// other sites.
func (b *Book) Declare(c *revisit.Classifier) {
	for i := range b.sites {
		s := &b.sites[i]
		cls := s.Class
		if s.Kind == config.SiteSocial && cls == "" {
			cls = revisit.ClassSocial
		}
		if cls == "" {
			continue
		}
		var keys []string
		for _, p := range s.HostPatterns() {
			keys = append(keys, strings.TrimPrefix(p, "*.")) // the classifier matches NAME's subdomains
		}
		if d := s.Domain(); d != "" && b.rest[d] == s {
			keys = append(keys, d)
		}
		for _, k := range keys {
			if cls == revisit.ClassSocial {
				if c.Social == nil {
					c.Social = map[string]bool{}
				}
				c.Social[k] = true
				continue
			}
			if c.Declared == nil {
				c.Declared = map[string]string{}
			}
			c.Declared[k] = cls
		}
	}
}

// SiteOf returns the declared site host belongs to, or nil (the host's registered
// domain is then its site). The most specific declaration wins: a site naming the
// host (its entry's or search's host, or its hosts list), then the one with the
// longest *.NAME matching it, then the one site declared on the host's registered
// domain. Sites that share a registered domain each hold only the hosts they name,
// so nine sites under one organisation's domain stay nine sites.
func (b *Book) SiteOf(host string) *config.SiteOptions {
	if b == nil || len(b.byName) == 0 {
		return nil
	}
	host = strings.ToLower(host)
	if s := b.byHost[host]; s != nil {
		return s
	}
	for _, w := range b.wild {
		if strings.HasSuffix(host, w.suffix) {
			return w.site
		}
	}
	return b.rest[frontier.Site(host)]
}

// Sources are the URLs a round starts from (M3): every news site's entry, and every
// social site's search for each of its keywords and each result page 1..pages, with
// the site and keyword they are collected for. Unusable URLs are left out (Validate
// has named them already).
func (b *Book) Sources() []revisit.Item { return b.SourcesOf("", "") }

// SourcesOf is Sources limited to one site (name "" for all) and, for a social
// site, one keyword (kw "" for all): what a site or keyword added while the crawl
// runs queues at once.
func (b *Book) SourcesOf(name, kw string) []revisit.Item {
	var out []revisit.Item
	add := func(raw string, s *config.SiteOptions, kw string) {
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
		case config.SiteNews:
			add(s.Entry, s, "")
		case config.SiteSocial:
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

// Matches returns the keywords of a news site found in a page's main text, compared
// case-folded (M3: news pages are filtered locally by keyword).
func (b *Book) Matches(site, text string) []string {
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

// Class is the page class a site gives its pages when it declares one (M2/M3):
// its class override, or soc for a social site; "" leaves it to the public suffix.
func Class(s *config.SiteOptions) string {
	if s.Class != "" {
		return s.Class
	}
	if s.Kind == config.SiteSocial {
		return revisit.ClassSocial
	}
	return ""
}

// hostOf is the host of a normalised URL ("" when it does not parse).
func hostOf(normalized string) string {
	u, err := url.Parse(normalized)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
