package config

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// Site kinds (M3, seed 003: two site classes, two collection methods).
const (
	// SiteNews is crawled from its entry URL; its pages are filtered locally by
	// keyword: matches are results, the rest only feed link discovery.
	SiteNews = "news"
	// SiteSocial is queried through its site-search URL template with each keyword;
	// the result pages and the posts they list are results.
	SiteSocial = "social"
)

// DefaultSearchPages is how many search result pages a social site is asked for per
// keyword when its entry says nothing (sites[].pages).
const DefaultSearchPages = 5

// SiteOptions declares one target site (M3). YAML:
//
//	sites:
//	  - {name: harbor, kind: news, entry: "https://harbor-times.com/"}
//	  - name: chirp
//	    kind: social
//	    search: "https://chirp.example/search?q={keyword}&page={page}"
//	    pages: 5
//	    keywords: [flood, 台风]
type SiteOptions struct {
	// Name names the site in results and in the cost table; unique.
	Name string `yaml:"name"`
	// Kind is "news" or "social".
	Kind string `yaml:"kind"`
	// Entry is a news site's entry page URL (a seed of every round).
	Entry string `yaml:"entry"`
	// Search is a social site's search URL template, with {keyword} and {page}
	// ({page} may be left out when pages is 1).
	Search string `yaml:"search"`
	// Pages is the number of search result pages per keyword of a social site
	// (default 5).
	Pages int `yaml:"pages"`
	// Keywords are the site's own keywords: a social site's search terms (default:
	// the top-level keywords), added to the shared ones on a news site.
	Keywords []string `yaml:"keywords"`
	// Class overrides the page class of the site's pages (soc, web_com, web_net,
	// web_edu, web_gov); default: soc for social sites, by public suffix for news.
	Class string `yaml:"class"`
	// Budget is the site's page budget per round (0: budgets.site_round); the
	// console's :budget changes it while the crawl runs.
	Budget int `yaml:"budget"`
	// WithinDays is a news site's date window: only its pages published in the
	// last WithinDays days (the page's own date, against its fetch time) are
	// keyword results; older ones are stored and their links followed, but not
	// results. A page that gives no date is a result (it cannot be told old).
	// 0: no window. The console's :window changes it while the crawl runs.
	WithinDays int `yaml:"within_days"`
	// Hosts are the hosts the site covers besides its entry's (or search
	// template's): a host name (live.harbor-times.com), or *.NAME for every host
	// under NAME (not NAME itself). The most specific match wins: a host named,
	// then the longest *.NAME, then the rest of a registered domain that only this
	// site is declared on. No two sites may name the same host or pattern.
	Hosts []string `yaml:"hosts"`
}

// MaxWithinDays bounds a site's date window (sites[].within_days): ten years.
const MaxWithinDays = 3660

// Window is the site's date window as a duration; 0 when it has none.
func (s *SiteOptions) Window() time.Duration {
	return time.Duration(s.WithinDays) * 24 * time.Hour
}

// maxSiteHosts bounds a site's host list (a config is read in bounded memory).
const maxSiteHosts = 10_000

// RoundOptions configures crawl rounds (M3, seed 003): each round queues the sites'
// entry and search URLs again, and at its end stores its results in one batch and
// updates the cost table.
type RoundOptions struct {
	// Every is the round period (default 1h).
	Every time.Duration `yaml:"every"`
	// PagesPerIP is how many pages one egress address may fetch from one site per
	// round (its quota), for the VPN sizing estimate; 0 = unknown.
	PagesPerIP int `yaml:"pages_per_ip"`
	// ExpectTime is how long a round should take, for the workers-needed estimate
	// (seed 003's expecttime; default: Every).
	ExpectTime time.Duration `yaml:"expect_time"`
	// VPNConnect is how long one VPN connection takes to set up (seed 003's
	// vpnlinktime), for the workers-needed estimate; 0 = free (bind addresses,
	// proxies).
	VPNConnect time.Duration `yaml:"vpn_connect"`
}

// DefaultRoundEvery is the default round period.
const DefaultRoundEvery = time.Hour

// SearchPages is the number of result pages asked for per keyword.
func (s *SiteOptions) SearchPages() int {
	if s.Pages <= 0 {
		return DefaultSearchPages
	}
	return s.Pages
}

// KeywordsWith returns the site's keywords with the shared ones: a news site filters
// on both; a social site searches its own, or the shared ones if it has none.
func (s *SiteOptions) KeywordsWith(shared []string) []string {
	var out []string
	add := func(list []string) {
		for _, k := range list {
			if k = strings.TrimSpace(k); k != "" && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	add(s.Keywords)
	if s.Kind == SiteNews || len(out) == 0 {
		add(shared)
	}
	return out
}

// SearchURL expands a social site's search template for one keyword and page.
func SearchURL(template, keyword string, page int) string {
	r := strings.NewReplacer("{keyword}", url.QueryEscape(keyword), "{page}", strconv.Itoa(page))
	return r.Replace(template)
}

// Domain is the registered domain of the site: of its entry (news) or of its search
// template's host (social); "" when it has neither.
func (s *SiteOptions) Domain() string {
	raw := s.Entry
	if s.Kind == SiteSocial {
		raw = SearchURL(s.Search, "x", 1)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	return frontier.Site(u.Hostname())
}

// Host is the host of the site's entry (news) or search template (social), in
// lower case; "" when it has neither.
func (s *SiteOptions) Host() string {
	raw := s.Entry
	if s.Kind == SiteSocial {
		raw = SearchURL(s.Search, "x", 1)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// HostPatterns are the hosts and *.NAME patterns the site names: its entry's or
// search's host, then its hosts list, in lower case.
func (s *SiteOptions) HostPatterns() []string {
	var out []string
	if h := s.Host(); h != "" {
		out = append(out, h)
	}
	for _, h := range s.Hosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// checkHostPattern says why p is neither a host name nor *.NAME.
func checkHostPattern(p string) error {
	name := strings.TrimPrefix(p, "*.")
	switch {
	case strings.TrimSpace(p) == "":
		return fmt.Errorf("an empty host")
	case strings.ContainsAny(name, "*/:@?# \t"):
		return fmt.Errorf("host %q is not a host name or *.NAME (no scheme, port, path or inner *)", p)
	case strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, ".."):
		return fmt.Errorf("host %q has an empty label", p)
	case len(name) > 253:
		return fmt.Errorf("host %q is longer than a DNS name (253)", p[:40]+"...")
	}
	return nil
}

// ValidateSites reports the first unusable keyword, round or site entry, naming it
// (a site by index and name): the part of Validate a site added at run time must
// pass too.
func (o *Options) ValidateSites() error {
	for _, k := range o.Keywords {
		if strings.TrimSpace(k) == "" {
			return fmt.Errorf("keywords: an empty keyword (remove it or quote a real one)")
		}
	}
	if o.Rounds.Every <= 0 {
		return fmt.Errorf("rounds.every must be positive, got %v", o.Rounds.Every)
	}
	if o.Rounds.PagesPerIP < 0 {
		return fmt.Errorf("rounds.pages_per_ip must be >= 0 (0 = unknown), got %d", o.Rounds.PagesPerIP)
	}
	names := map[string]int{}
	hosts := map[string]int{}   // host or pattern -> the site naming it
	listed := map[string]bool{} // named in a hosts list (an entry's host may be shared, see SiteWarnings)
	for i := range o.Sites {
		s := &o.Sites[i]
		bad := func(format string, args ...any) error {
			return fmt.Errorf("sites[%d] (name %q): %s", i, s.Name, fmt.Sprintf(format, args...))
		}
		if strings.TrimSpace(s.Name) == "" {
			return bad("has no name")
		}
		if j, dup := names[s.Name]; dup {
			return bad("name already used by sites[%d]", j)
		}
		names[s.Name] = i
		if s.Class != "" && !slices.Contains(revisit.Classes, s.Class) {
			return bad("unknown class %q (classes: %s)", s.Class, strings.Join(revisit.Classes, ", "))
		}
		if s.Budget < 0 {
			return bad("budget must be >= 0 pages per round (0 = budgets.site_round), got %d", s.Budget)
		}
		if s.WithinDays < 0 || s.WithinDays > MaxWithinDays {
			return bad("within_days must be between 0 (no date window) and %d days, got %d", MaxWithinDays, s.WithinDays)
		}
		if s.WithinDays > 0 && s.Kind == SiteSocial {
			return bad("within_days is a news site's date window over its keyword matches; a social site's search results are results as the site lists them (leave it out)")
		}
		if s.Pages < 0 {
			return bad("pages must be >= 1 (default %d), got %d", DefaultSearchPages, s.Pages)
		}
		for _, k := range s.Keywords {
			if strings.TrimSpace(k) == "" {
				return bad("an empty keyword")
			}
		}
		switch s.Kind {
		case SiteNews:
			if s.Search != "" {
				return bad("a news site has an entry, not a search template (kind: social for site search)")
			}
			if err := checkSiteURL(s.Entry); err != nil {
				return bad("entry %v", err)
			}
		case SiteSocial:
			if s.Entry != "" {
				return bad("a social site is searched, not crawled from an entry (kind: news for that)")
			}
			if s.Search == "" {
				return bad("no search template (e.g. https://site/search?q={keyword}&page={page})")
			}
			if !strings.Contains(s.Search, "{keyword}") {
				return bad("search template has no {keyword}")
			}
			if s.SearchPages() > 1 && !strings.Contains(s.Search, "{page}") {
				return bad("search template has no {page} but pages is %d", s.SearchPages())
			}
			if err := checkSiteURL(SearchURL(s.Search, "x", 1)); err != nil {
				return bad("search template %v", err)
			}
			if len(s.KeywordsWith(o.Keywords)) == 0 {
				return bad("no keywords to search (sites[].keywords or top-level keywords)")
			}
		default:
			return bad("kind must be %q or %q, got %q", SiteNews, SiteSocial, s.Kind)
		}
		if len(s.Hosts) > maxSiteHosts {
			return bad("%d hosts, more than %d (use *.NAME patterns)", len(s.Hosts), maxSiteHosts)
		}
		for _, h := range s.Hosts {
			if err := checkHostPattern(strings.TrimSpace(h)); err != nil {
				return bad("hosts: %v", err)
			}
		}
		// A host listed by two sites would merge them (its pages counted, dealt and
		// budgeted as one site's): refused, not decided silently. Two sites whose
		// entries share a host (sections of one site) are warned of (SiteWarnings).
		for _, h := range s.Hosts {
			h = strings.ToLower(strings.TrimSpace(h))
			if j, taken := hosts[h]; taken && j != i {
				return bad("hosts: %q is named by sites[%d] (name %q) too: two sites cannot share a host", h, j, o.Sites[j].Name)
			}
			hosts[h], listed[h] = i, true
		}
		if h := s.Host(); h != "" {
			if j, taken := hosts[h]; taken && j != i && listed[h] {
				return bad("its entry's host %q is listed in the hosts of sites[%d] (name %q): two sites cannot share a host", h, j, o.Sites[j].Name)
			} else if !taken {
				hosts[h] = i
			}
		}
	}
	return nil
}

// SiteWarnings name the hosts two declared sites' entries (or searches) share: the
// pages of such a host count for the site declared first, the other gets none of
// them but its entry's; said at start, never decided silently.
func (o *Options) SiteWarnings() []string {
	var out []string
	first := map[string]int{}
	for i := range o.Sites {
		h := o.Sites[i].Host()
		if h == "" {
			continue
		}
		if j, taken := first[h]; taken {
			out = append(out, fmt.Sprintf("sites %q and %q are both on host %s: its pages count for %q (declared first); give each its own entry host or a hosts list to tell them apart",
				o.Sites[j].Name, o.Sites[i].Name, h, o.Sites[j].Name))
			continue
		}
		first[h] = i
	}
	return out
}

// checkSiteURL says why raw is not an absolute http(s) URL with a host.
func checkSiteURL(raw string) error {
	if raw == "" {
		return fmt.Errorf("is missing")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%q does not parse: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q is not an http(s) URL", raw)
	case u.Hostname() == "":
		return fmt.Errorf("%q has no host", raw)
	}
	return nil
}
