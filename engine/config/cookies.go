package config

import (
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/cookies"
)

// CookieOptions configures the cookie sessions: one jar per (egress,
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
