package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/robots"
)

// EtiquetteOptions configures what the crawler obeys besides robots.txt itself
// (Options.Robots): how long robots.txt rules are kept, the page-level directives
// (meta robots, X-Robots-Tag), rel="nofollow" hints, and per-site overrides.
type EtiquetteOptions struct {
	// RobotsCacheFor is how long a site's robots.txt rules stand before they are
	// fetched again during a long crawl: at most 24h (RFC 9309 §2.4). Default 24h.
	RobotsCacheFor time.Duration `yaml:"robots_cache_for"`
	// RobotsRetry is the first wait before an unreachable robots.txt (429, 5xx, no
	// answer) is tried again; it doubles on each failure, up to an hour. The site's
	// URLs wait meanwhile (deferred, never dropped). Default 1m.
	RobotsRetry time.Duration `yaml:"robots_retry"`
	// PageDirectives obeys <meta name="robots">, <meta name="crawlconsole"> (our
	// product token) and X-Robots-Tag: noindex pages are not stored (counted as
	// skipped, kind "noindex"), nofollow pages' links are not queued. Default true.
	PageDirectives bool `yaml:"page_directives"`
	// RelNofollow leaves links marked rel="nofollow" unqueued (a hint). Default true.
	RelNofollow bool `yaml:"rel_nofollow"`
	// Sites override the above per site; each is announced as a warning at start.
	Sites []EtiquetteSite `yaml:"sites"`
}

// EtiquetteSite overrides what the crawler obeys on one site: a host or registered
// domain, with its subdomains (the longest matching entry wins). An unset field keeps
// the crawl's setting.
type EtiquetteSite struct {
	Site           string `yaml:"site"`
	Robots         *bool  `yaml:"robots"`          // obey robots.txt
	PageDirectives *bool  `yaml:"page_directives"` // obey meta robots / X-Robots-Tag
	RelNofollow    *bool  `yaml:"rel_nofollow"`    // skip rel="nofollow" links
}

// DefaultEtiquette is the documented defaults.
func DefaultEtiquette() EtiquetteOptions {
	return EtiquetteOptions{RobotsCacheFor: robots.DefaultTTL, RobotsRetry: robots.DefaultRetry, PageDirectives: true, RelNofollow: true}
}

// Scaled is o for a web whose clock runs k times faster than real time (the
// sandbox's, in the demo and the tests): the first wait before an unreachable
// robots.txt is read again. At its real-time default a robots.txt that timed out
// once on a loaded box deferred its site for k of the web's minutes. Never below a
// millisecond, which validation would refuse as zero.
func (o EtiquetteOptions) Scaled(k float64) EtiquetteOptions {
	o.RobotsRetry = max(time.Duration(float64(o.RobotsRetry)/k), time.Millisecond)
	return o
}

// Etiquette is what the crawler obeys on one host.
type Etiquette struct {
	Robots         bool // robots.txt
	PageDirectives bool // meta robots / X-Robots-Tag
	RelNofollow    bool // rel="nofollow" links are left unqueued
}

// EtiquetteFor resolves the per-site overrides for host (lower-case, no port).
func (o *Options) EtiquetteFor(host string) Etiquette {
	et := Etiquette{Robots: o.Robots, PageDirectives: o.Etiquette.PageDirectives, RelNofollow: o.Etiquette.RelNofollow}
	best := -1
	var pick *EtiquetteSite
	for i := range o.Etiquette.Sites {
		s := &o.Etiquette.Sites[i]
		site := strings.ToLower(strings.TrimSuffix(s.Site, "."))
		if (host == site || strings.HasSuffix(host, "."+site)) && len(site) > best {
			best, pick = len(site), s
		}
	}
	if pick != nil {
		if pick.Robots != nil {
			et.Robots = *pick.Robots
		}
		if pick.PageDirectives != nil {
			et.PageDirectives = *pick.PageDirectives
		}
		if pick.RelNofollow != nil {
			et.RelNofollow = *pick.RelNofollow
		}
	}
	return et
}

// validate names the first unusable etiquette setting.
func (o *EtiquetteOptions) validate() error {
	switch {
	case o.RobotsCacheFor <= 0 || o.RobotsCacheFor > robots.DefaultTTL:
		return fmt.Errorf("etiquette.robots_cache_for must be in (0, 24h] (RFC 9309 §2.4: robots.txt is cached at most a day), got %v", o.RobotsCacheFor)
	case o.RobotsRetry <= 0:
		return fmt.Errorf("etiquette.robots_retry must be positive, got %v", o.RobotsRetry)
	}
	seen := map[string]bool{}
	for i, s := range o.Sites {
		site := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(s.Site), "."))
		switch {
		case site == "" || strings.ContainsAny(site, "/:* "):
			return fmt.Errorf("etiquette.sites[%d].site %q: give a host or domain name, like example.com", i, s.Site)
		case seen[site]:
			return fmt.Errorf("etiquette.sites[%d]: %s is listed twice", i, site)
		case s.Robots == nil && s.PageDirectives == nil && s.RelNofollow == nil:
			return fmt.Errorf("etiquette.sites[%d] (%s) overrides nothing: set robots, page_directives or rel_nofollow", i, site)
		}
		seen[site] = true
		o.Sites[i].Site = site
	}
	return nil
}

// EtiquetteWarnings describes each per-site override, for a warning at start: an
// operator who ignores a site's wishes should see it said.
func (o *Options) EtiquetteWarnings() []string {
	var out []string
	for _, s := range o.Etiquette.Sites {
		var parts []string
		say := func(name string, v *bool, ignored string) {
			if v == nil {
				return
			}
			if *v {
				parts = append(parts, name+" obeyed")
			} else {
				parts = append(parts, ignored)
			}
		}
		say("robots.txt", s.Robots, "robots.txt IGNORED")
		say("meta robots/X-Robots-Tag", s.PageDirectives, "meta robots/X-Robots-Tag IGNORED")
		say("rel=nofollow", s.RelNofollow, "rel=nofollow links followed")
		out = append(out, fmt.Sprintf("etiquette override for %s and its subdomains: %s", s.Site, strings.Join(parts, ", ")))
	}
	return out
}
