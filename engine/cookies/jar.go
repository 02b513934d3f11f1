// Package cookies keeps the crawler's cookie sessions: one jar per
// (egress, site), so a site sees each egress address as one returning visitor, as a
// browser on that address would be, and never sees a session move between addresses.
//
// Many anti-bot systems (Incapsula, Akamai Bot Manager, ...) hand out a cookie on
// the first visit and expect it back; a client that never returns it looks like a new
// visitor on every request, which is what a bot looks like. Cookies are accepted and
// returned by net/http/cookiejar (RFC 6265 rules: domain, path, secure, expiry),
// scoped by the public suffix list (golang.org/x/net/publicsuffix), so a cookie for
// example.co.uk's www host reaches its news host and never another site.
//
// A site is the registrable domain (eTLD+1) of a host. Every site's jar is bounded:
// a Set-Cookie flood (thousands of cookies, huge values) costs at most
// Limits.PerSite cookies and Limits.BytesPerSite bytes, the rest are dropped and
// counted; at most Limits.Sites sites are kept per egress, the least recently used
// forgotten first.
package cookies

import (
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/net/publicsuffix"
)

// Limits bound one egress's jar. RFC 6265 §6.1 asks a user agent to keep at least
// 4096 bytes per cookie and 50 cookies per domain; the defaults are those minimums.
type Limits struct {
	// PerSite is the most cookies kept for one site (default 50).
	PerSite int
	// BytesPerSite is the most bytes (names and values) kept for one site
	// (default 50 × 4096).
	BytesPerSite int
	// Sites is the most sites one egress keeps sessions for (default 10,000).
	Sites int
}

// MaxCookieBytes is the largest cookie (name and value) accepted: RFC 6265 §6.1's
// per-cookie minimum. Larger ones are dropped and counted.
const MaxCookieBytes = 4096

// DefaultLimits are RFC 6265's minimums per site, and 10,000 sites per egress.
func DefaultLimits() Limits {
	return Limits{PerSite: 50, BytesPerSite: 50 * MaxCookieBytes, Sites: 10_000}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.PerSite <= 0 {
		l.PerSite = d.PerSite
	}
	if l.BytesPerSite <= 0 {
		l.BytesPerSite = d.BytesPerSite
	}
	if l.Sites <= 0 {
		l.Sites = d.Sites
	}
	return l
}

// Jar is one egress's cookies: an http.CookieJar that keeps one bounded session per
// site. Never share a Jar between egresses. Safe for concurrent use.
type Jar struct {
	lim     Limits
	now     func() time.Time
	mu      sync.Mutex
	sites   *lru.Cache[string, *siteJar]
	dropped atomic.Int64
	// siteOf is Site of the hosts asked for, as every request asks (Cookies)
	// and Site parses the host and walks the public suffix list; it starts
	// over when it holds lim.Sites hosts. Guarded by mu.
	siteOf map[string]string
}

// siteJar is one site's session and what it holds, for the bounds.
type siteJar struct {
	jar   *cookiejar.Jar
	sizes map[string]int // cookie key (name, domain, path) -> bytes
	bytes int
}

// New returns an empty jar with the given limits (zero fields take the defaults).
// now is the clock that judges expiry for the bounds; nil is time.Now.
func New(lim Limits, now func() time.Time) *Jar {
	lim = lim.withDefaults()
	if now == nil {
		now = time.Now
	}
	c, _ := lru.New[string, *siteJar](lim.Sites) // only fails for a size <= 0
	return &Jar{lim: lim, now: now, sites: c, siteOf: map[string]string{}}
}

// Site is the registrable domain of a host (eTLD+1 by the public suffix list); an IP
// address, a single-label name or a public suffix itself is its own site.
func Site(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if net.ParseIP(strings.Trim(host, "[]")) != nil {
		return host
	}
	if s, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return s
	}
	return host
}

func (j *Jar) site(u *url.URL, create bool) *siteJar {
	host := u.Hostname()
	j.mu.Lock()
	defer j.mu.Unlock()
	s, ok := j.siteOf[host]
	if !ok {
		s = Site(host)
		if len(j.siteOf) >= j.lim.Sites {
			clear(j.siteOf)
		}
		j.siteOf[host] = s
	}
	sj, ok := j.sites.Get(s)
	if !ok && create {
		cj, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List}) // never fails
		sj = &siteJar{jar: cj, sizes: map[string]int{}}
		j.sites.Add(s, sj)
	}
	return sj
}

// SetCookies implements http.CookieJar: it keeps the cookies the response set, up to
// the site's bounds; what is over them is dropped and counted (Dropped).
func (j *Jar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	if len(cookies) == 0 {
		return
	}
	sj := j.site(u, true)
	now := j.now()
	j.mu.Lock()
	kept := cookies[:0:0]
	var dropped int64
	for _, c := range cookies {
		key := c.Name + "\x00" + strings.ToLower(c.Domain) + "\x00" + c.Path
		size := len(c.Name) + len(c.Value)
		old, had := sj.sizes[key]
		if c.MaxAge < 0 || (!c.Expires.IsZero() && !c.Expires.After(now)) {
			if had { // a deletion frees its room
				delete(sj.sizes, key)
				sj.bytes -= old
			}
			kept = append(kept, c)
			continue
		}
		if size > MaxCookieBytes || (!had && len(sj.sizes) >= j.lim.PerSite) || sj.bytes-old+size > j.lim.BytesPerSite {
			dropped++
			continue
		}
		sj.sizes[key] = size
		sj.bytes += size - old
		kept = append(kept, c)
	}
	j.mu.Unlock()
	if dropped > 0 {
		j.dropped.Add(dropped)
	}
	if len(kept) > 0 {
		sj.jar.SetCookies(u, kept)
	}
}

// Cookies implements http.CookieJar: the cookies to send with a request to u.
func (j *Jar) Cookies(u *url.URL) []*http.Cookie {
	sj := j.site(u, false)
	if sj == nil {
		return nil
	}
	return sj.jar.Cookies(u)
}

// Forget drops host's site session: the next request to the site starts a new one.
func (j *Jar) Forget(host string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.sites.Remove(Site(host))
}

// Dropped is how many cookies were refused for being over a bound since the jar was
// made.
func (j *Jar) Dropped() int64 { return j.dropped.Load() }

// Sites is how many sites the jar holds a session for.
func (j *Jar) Sites() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.sites.Len()
}
