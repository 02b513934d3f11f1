package engine

import (
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/cookies"
)

// CookieOptions configures the cookie sessions (issue 17): one jar per (egress,
// site), never shared between egresses, started afresh when a host moves to another
// egress, bounded, and never written to a log, the store or an export (cookie
// headers are redacted: fetch.RedactHeaders).
type CookieOptions struct {
	// Enabled accepts and returns cookies as a browser would (default true): many
	// anti-bot systems ban a client that never returns the cookie they gave it.
	Enabled bool `yaml:"enabled"`
	// PerSite is the most cookies kept per (egress, site) (default 50, RFC 6265 §6.1).
	PerSite int `yaml:"per_site"`
	// BytesPerSite is the most cookie bytes kept per (egress, site) (default 200 KiB).
	BytesPerSite int `yaml:"bytes_per_site"`
	// Sites is the most sites one egress keeps a session for, least recently used
	// forgotten first (default 10,000).
	Sites int `yaml:"sites"`
}

// DefaultCookies is cookies on, with cookies.DefaultLimits.
func DefaultCookies() CookieOptions {
	l := cookies.DefaultLimits()
	return CookieOptions{Enabled: true, PerSite: l.PerSite, BytesPerSite: l.BytesPerSite, Sites: l.Sites}
}

func (c CookieOptions) validate() error {
	if c.PerSite < 0 || c.BytesPerSite < 0 || c.Sites < 0 {
		return fmt.Errorf("cookies.per_site, bytes_per_site and sites must be >= 0 (0 = default), got %d, %d, %d", c.PerSite, c.BytesPerSite, c.Sites)
	}
	return nil
}

// newJar is one egress's cookie jar, or nil with cookies off.
func (e *Engine) newJar() *cookies.Jar {
	if !e.opts.Cookies.Enabled {
		return nil
	}
	c := e.opts.Cookies
	return cookies.New(cookies.Limits{PerSite: c.PerSite, BytesPerSite: c.BytesPerSite, Sites: c.Sites}, e.opts.Now)
}

// CookieStats is the --stats-json "cookies" object: the sessions held and the
// cookies refused for being over a jar's bounds (a Set-Cookie flood is bounded and
// counted, issue 17).
type CookieStats struct {
	Sessions int   `json:"sessions"` // (egress, site) sessions held now
	Dropped  int64 `json:"dropped"`  // cookies refused: over cookies.per_site, bytes_per_site or 4096 bytes
}

// cookieStats sums every egress's jar; nil with cookies off.
func (e *Engine) cookieStats() *CookieStats {
	if !e.opts.Cookies.Enabled || e.role == roleMaster { // a master fetches nothing
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var cs CookieStats
	for _, l := range e.egress {
		if l != nil && l.jar != nil {
			cs.Sessions += l.jar.Sites()
			cs.Dropped += l.jar.Dropped()
		}
	}
	return &cs
}

// dropSession forgets a host's site session on the egress the host leaves after a
// refusal (M3 reroute): that session belongs to an address the site refused. The
// host goes on from another egress with that egress's own jar, never this one's, so
// no session crosses addresses (issue 17).
func (e *Engine) dropSession(link *egressLink, host string) {
	if link.jar == nil {
		return
	}
	link.jar.Forget(host)
	e.logf(LevelDebug, 0, host, "cookie session for %s on %s dropped: the host moves to another egress", cookies.Site(host), link.name)
}
