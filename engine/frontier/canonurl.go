package frontier

import (
	"net/url"
	"strings"
)

// ParseCanonical fills u as url.Parse(raw) would, without allocating, for raw in
// the plain canonical form most links resolve to (Base.Resolve's fast path: http
// or https, a simple host and port, a path and query of plain characters). It
// reports false, leaving u as it was, for any other URL: the caller parses it with
// url.Parse. A crawl checks every link of every page against its scope and trap
// guards, which read the URL parsed; url.Parse allocates a URL each time.
func ParseCanonical(raw string, u *url.URL) bool {
	return canonicalAbsolute(raw) && ParseCanonicalChecked(raw, u)
}

// Hostname is url.Parse(raw)'s Hostname, "" when raw does not parse. A URL in the
// plain canonical form (most of a crawl's: every task's, most links') is read
// where it stands; url.Parse allocates a URL, and a page's task asks for its host
// at several steps (its class, its site's prior, the render decision).
func Hostname(raw string) string {
	var u url.URL
	if ParseCanonical(raw, &u) {
		return u.Hostname()
	}
	pu, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return pu.Hostname()
}

// ResolveCanonical is Resolve, also reporting checked when the URL it returns was
// found to be in the plain canonical form on the way (an absolute link already
// canonical, most of a crawl's): ParseCanonicalChecked then reads it without
// checking it again. The check reads the whole URL, and a crawl makes it for every
// link of every page.
func (b *Base) ResolveCanonical(ref string) (n string, checked bool, err error) {
	if b.canon != "" && len(ref) <= MaxURLLength && (strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://")) {
		// resolveSimple's case of an absolute link: the link itself, less its fragment,
		// when it is canonical.
		if r, _, _ := strings.Cut(ref, "#"); canonicalAbsolute(r) {
			return r, true, nil
		}
	}
	n, err = b.Resolve(ref)
	return n, false, err
}

// ParseCanonicalChecked is ParseCanonical of a URL known to be in the plain
// canonical form (ResolveCanonical reported it checked).
func ParseCanonicalChecked(raw string, u *url.URL) bool {
	scheme, rest, _ := strings.Cut(raw, "://")
	slash := strings.IndexByte(rest, '/')
	path, query, _ := strings.Cut(rest[slash:], "?")
	for i := 0; i < len(path); i++ {
		if !goPathByte(path[i]) {
			return false // url.Parse keeps the path's raw form in RawPath
		}
	}
	*u = url.URL{Scheme: scheme, Host: rest[:slash], Path: path, RawQuery: query}
	return true
}

// goPathByte reports a byte that net/url leaves as it is when it escapes a path:
// a path of these has no RawPath.
func goPathByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '_', '.', '~', '$', '&', '+', ',', '/', ':', ';', '=', '@':
		return true
	}
	return false
}
