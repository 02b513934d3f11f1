package frontier

import (
	"fmt"
	"hash/maphash"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Reasons Scope.Allows gives for refusing a URL; the engine counts them by name.
const (
	ReasonOffSite     = "off_site"     // host outside the seeds' sites and AllowedHosts
	ReasonTooDeep     = "too_deep"     // more links away from a seed than MaxDepth
	ReasonExcluded    = "excluded"     // matched an Exclude pattern
	ReasonNotIncluded = "not_included" // Include patterns given and none matched
)

// ScopeConfig is the user-facing form of the scope rules, as read from the config file
// and flags. The zero value allows everything.
type ScopeConfig struct {
	// SameSite keeps the crawl on the registered domains (eTLD+1, e.g. example.co.uk)
	// of the seeds: news.example.com and www.example.com are one site.
	SameSite bool `yaml:"same_site"`
	// AllowedHosts are further hosts to crawl: "host.example" exactly, or
	// "*.example.com" for every subdomain of example.com (not example.com itself).
	AllowedHosts []string `yaml:"allowed_hosts"`
	// MaxDepth is how many links away from a seed the crawl may go; 0 means unlimited.
	MaxDepth int `yaml:"max_depth"`
	// Include, if not empty, keeps only URLs matching at least one of these regexps
	// (Go RE2 syntax, matched against the normalized URL, unanchored).
	Include []string `yaml:"include"`
	// Exclude drops URLs matching any of these regexps; it wins over Include.
	Exclude []string `yaml:"exclude"`
}

// Scope decides which discovered links the crawl follows. Host limits apply only when
// SameSite is set or AllowedHosts is not empty; a host passes if either rule admits it.
// Allows is safe for concurrent use, also with AddSeed.
type Scope struct {
	SameSite     bool             // stay on the seeds' registered domains
	AllowedHosts []string         // normalized: exact hosts or "*.suffix" patterns
	MaxDepth     int              // 0 = unlimited
	Include      []*regexp.Regexp // if any, a URL must match one
	Exclude      []*regexp.Regexp // a URL matching one is dropped

	mu    sync.RWMutex
	sites map[string]struct{} // registered domains of the seeds
}

// NewScope compiles cfg and records the sites of seeds (raw or normalized URLs). Seeds
// that do not parse are skipped here: the engine rejects and reports them when it
// queues them. Errors name the bad pattern or host.
func NewScope(seeds []string, cfg ScopeConfig) (*Scope, error) {
	if cfg.MaxDepth < 0 {
		return nil, fmt.Errorf("scope: max_depth %d is negative (0 means unlimited)", cfg.MaxDepth)
	}
	s := &Scope{SameSite: cfg.SameSite, MaxDepth: cfg.MaxDepth, sites: map[string]struct{}{}}
	for _, h := range cfg.AllowedHosts {
		p, err := hostPattern(h)
		if err != nil {
			return nil, err
		}
		s.AllowedHosts = append(s.AllowedHosts, p)
	}
	var err error
	if s.Include, err = compileAll("include", cfg.Include); err != nil {
		return nil, err
	}
	if s.Exclude, err = compileAll("exclude", cfg.Exclude); err != nil {
		return nil, err
	}
	for _, seed := range seeds {
		s.AddSeed(seed)
	}
	return s, nil
}

// AddSeed adds the site of a seed added while the crawl runs. It reports false if the
// seed is not a valid http(s) URL.
func (s *Scope) AddSeed(seed string) bool {
	n, err := Normalize(seed)
	if err != nil {
		return false
	}
	u, err := url.Parse(n)
	if err != nil {
		return false
	}
	s.mu.Lock()
	s.sites[Site(u.Hostname())] = struct{}{}
	s.mu.Unlock()
	return true
}

// Allows reports whether the crawl should follow u (a normalized URL, parsed) found
// depth links away from a seed. When it refuses, reason is one of the Reason* constants;
// checks run cheapest first, so a URL that fails several reports the first.
func (s *Scope) Allows(u *url.URL, depth int) (ok bool, reason string) {
	if s.MaxDepth > 0 && depth > s.MaxDepth {
		return false, ReasonTooDeep
	}
	if (s.SameSite || len(s.AllowedHosts) > 0) && !s.onSite(u.Hostname()) {
		return false, ReasonOffSite
	}
	return s.AllowsOffSite(u, depth)
}

// AllowsOffSite is Allows without the host rule: for a link the crawl takes one hop
// off its sites on purpose (a feed's item on another host). Depth and the
// include/exclude patterns still apply.
func (s *Scope) AllowsOffSite(u *url.URL, depth int) (ok bool, reason string) {
	if s.MaxDepth > 0 && depth > s.MaxDepth {
		return false, ReasonTooDeep
	}
	if len(s.Exclude) > 0 || len(s.Include) > 0 {
		str := u.String()
		for _, re := range s.Exclude {
			if re.MatchString(str) {
				return false, ReasonExcluded
			}
		}
		if len(s.Include) > 0 && !matchAny(s.Include, str) {
			return false, ReasonNotIncluded
		}
	}
	return true, ""
}

func (s *Scope) onSite(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, p := range s.AllowedHosts {
		if suffix, ok := strings.CutPrefix(p, "*"); ok {
			if strings.HasSuffix(host, suffix) && len(host) > len(suffix) {
				return true
			}
		} else if host == p {
			return true
		}
	}
	if !s.SameSite {
		return false
	}
	s.mu.RLock()
	_, ok := s.sites[Site(host)]
	s.mu.RUnlock()
	return ok
}

// Site returns the registered domain of host (eTLD+1 by the public suffix list: the
// site of "a.b.example.co.uk" is "example.co.uk"). IP addresses, single-label names such
// as "localhost" and public suffixes themselves are their own site.
//
// Every link found asks for its host's site, and the hosts of a page's links repeat,
// so answers are kept in a small direct-mapped cache: the public suffix lookup (and its
// failed IP parse of every name) runs once per host while it stays in its slot.
func Site(host string) string {
	slot := &siteCache[maphash.String(siteSeed, host)%uint64(len(siteCache))]
	if e := slot.Load(); e != nil && e.host == host {
		return e.site
	}
	site := siteOf(host)
	slot.Store(&siteEntry{host: host, site: site})
	return site
}

// siteEntry is one host's answer in siteCache.
type siteEntry struct{ host, site string }

var (
	siteCache [4096]atomic.Pointer[siteEntry]
	siteSeed  = maphash.MakeSeed()
)

// siteOf is Site without the cache.
func siteOf(host string) string {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if net.ParseIP(host) != nil {
		return host
	}
	site, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return site
}

// hostPattern normalises an AllowedHosts entry the way Normalize treats hosts (lower
// case, IDNA to punycode, no trailing dot), so it compares equal to URL hosts.
func hostPattern(h string) (string, error) {
	wild := strings.HasPrefix(h, "*.")
	name := strings.TrimSuffix(strings.TrimPrefix(h, "*."), ".")
	if ip := net.ParseIP(strings.Trim(name, "[]")); ip != nil && !wild {
		return ip.String(), nil
	}
	if name == "" || strings.ContainsAny(name, "*/:@[] ") {
		return "", fmt.Errorf("scope: allowed host %q: want a host name or *.domain", h)
	}
	ascii, err := idna.Lookup.ToASCII(name)
	if err != nil {
		return "", fmt.Errorf("scope: allowed host %q: %v", h, err)
	}
	if wild {
		return "*." + ascii, nil
	}
	return ascii, nil
}

func compileAll(field string, patterns []string) ([]*regexp.Regexp, error) {
	var res []*regexp.Regexp
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("scope: %s pattern %q: %v", field, p, err)
		}
		res = append(res, re)
	}
	return res, nil
}

func matchAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
