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

// cookiesDropped is how many cookies every egress's jar refused for being over its
// bounds (a Set-Cookie flood is bounded and counted).
func (e *Engine) cookiesDropped() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	var n int64
	for _, l := range e.egress {
		if l != nil && l.jar != nil {
			n += l.jar.Dropped()
		}
	}
	return n
}

// sessionFor makes sure a host's cookie session starts afresh when the host moves to
// another egress (issue 17): the site's jar on the egress it left and on the one it
// reaches are both forgotten, so no session crosses addresses. Caller holds e.mu.
func (e *Engine) sessionFor(link *egressLink, host string) {
	if link.jar == nil || e.hostEgress == nil {
		return
	}
	prev, seen := e.hostEgress.Get(host)
	if seen && prev != link.name {
		link.jar.Forget(host)
		if i := e.egressIndex(prev); i >= 0 && e.egress[i].jar != nil {
			e.egress[i].jar.Forget(host)
		}
		e.logf(LevelDebug, 0, host, "host moved %s -> %s: cookie session for %s starts afresh", prev, link.name, cookies.Site(host))
	}
	if !seen || prev != link.name {
		e.hostEgress.Add(host, link.name)
	}
}
