package frontier

import (
	"fmt"
	"net/url"
	"strings"
	"sync"

	whatwgerrors "github.com/nlnwa/whatwg-url/errors"
	whatwg "github.com/nlnwa/whatwg-url/url"
)

// Why WHATWG and not net/url: the links we follow come from HTML, and the page a link
// leads to is the one a browser would open. The WHATWG URL Standard is how browsers read
// an href: tabs and newlines inside it are dropped, "\" counts as "/" in http(s) URLs,
// hosts go through IDNA (UTS #46) to punycode with golang.org/x/net/idna, "0x7f.1" is the
// IPv4 address 127.0.0.1, default ports and dot segments (also "%2e") disappear. net/url
// does none of that: it keeps ":80", keeps "/a/../b" in absolute URLs, lets "a b" through
// as a host and does no IDNA. github.com/nlnwa/whatwg-url passes the web-platform-tests
// URL suite and is already in the build through colly.
//
// WHATWG alone is not canonical enough to be a dedupe key, so finish adds the RFC 3986
// §6.2.2 steps it leaves out: percent-escapes of unreserved characters are decoded, the
// others get upper-case hex, and every byte RFC 3986 does not allow raw (a lone "%", "|",
// "^", "[", ...) is percent-encoded. The result is plain RFC 3986 that net/url parses and
// prints back unchanged, so the fetcher and the store see the same string we hashed.
//
// Userinfo ("http://user:pass@host/") is stripped, not rejected: a browser following such
// a link fetches the same host and path, and credentials must never reach the store, the
// console or the logs. The query is kept byte for byte in its order (only its escapes are
// normalized as above): reordering parameters changes the page on many sites.

// MaxURLLength is the longest URL, in bytes, the frontier accepts, before and after
// normalisation. Longer URLs are almost always crawler traps (session ids, loops).
const MaxURLLength = 2048

// Error kinds of URLError; the engine counts rejected URLs by these names.
const (
	KindScheme    = "scheme"        // not http or https: mailto:, javascript:, data:, ftp:, ...
	KindMalformed = "malformed_url" // not an absolute URL, or no parser would accept it
	KindTooLong   = "url_too_long"  // more than MaxURLLength bytes
)

// URLError says why a URL or link was rejected. Kind is one of the Kind* constants.
type URLError struct {
	Kind   string // KindScheme, KindMalformed or KindTooLong
	URL    string // the offending URL, shortened for display, userinfo hidden
	Reason string // what was wrong, in a few words
}

// Error implements error: kind, reason and the URL, e.g.
// `scheme: "mailto" is not http or https: "mailto:bob@example.com"`.
func (e *URLError) Error() string {
	return fmt.Sprintf("%s: %s: %q", e.Kind, e.Reason, e.URL)
}

// errorURLLength is how much of a bad URL an error keeps: enough to recognise it.
const errorURLLength = 120

func urlError(kind, raw, reason string) *URLError {
	return &URLError{Kind: kind, URL: displayURL(raw), Reason: reason}
}

// displayURL shortens raw to errorURLLength bytes (on a UTF-8 boundary) and hides any
// userinfo, so error messages can be logged and shown safely.
func displayURL(raw string) string {
	if i := strings.Index(raw, "://"); i >= 0 {
		rest := raw[i+3:]
		end := strings.IndexAny(rest, "/?#\\")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			raw = raw[:i+3] + "***@" + rest[at+1:]
		}
	}
	if len(raw) <= errorURLLength {
		return raw
	}
	cut := errorURLLength
	for cut > 0 && raw[cut]&0xC0 == 0x80 { // do not split a multi-byte character
		cut--
	}
	return raw[:cut] + "…"
}

// parser follows the WHATWG URL Standard with no extra options. Parsers are stateless
// and safe for concurrent use; parsing against a base clones the base first.
var parser = whatwg.NewParser()

// Normalize returns the canonical form of an absolute http(s) URL: the string the
// frontier hashes, dedupes, stores and fetches. Errors are *URLError.
func Normalize(raw string) (string, error) {
	if len(raw) > MaxURLLength {
		return "", urlError(KindTooLong, raw, fmt.Sprintf("%d bytes, limit %d", len(raw), MaxURLLength))
	}
	if canonicalAbsolute(raw) {
		return raw, nil
	}
	return normalizeFull(raw)
}

// normalizeFull is Normalize without the fast path.
func normalizeFull(raw string) (string, error) {
	scheme, ok := leadingScheme(raw)
	if !ok {
		return "", urlError(KindMalformed, raw, "not an absolute URL (no scheme)")
	}
	if scheme != "http" && scheme != "https" {
		return "", schemeError(raw, scheme)
	}
	u, err := parser.Parse(raw)
	if err != nil {
		return "", urlError(KindMalformed, raw, parseReason(err))
	}
	return finish(u, raw)
}

// Base is a parsed page URL that many links are resolved against. Parse it once per
// page and call Resolve for each link; it is safe for concurrent use.
type Base struct {
	raw  string // the page URL as given
	once sync.Once
	u    *whatwg.Url // parsed on first use (parsed): a canonical base rarely needs it
	uErr error
	// For the fast path: the base in canonical form, its scheme ("http" or "https"),
	// origin ("https://host:port") and directory (path up to its last "/"). canon is
	// empty when the base cannot serve as one (not http(s), too long).
	canon, scheme, origin, dir string
}

// ParseBase parses the URL of a fetched page for link resolution. Errors are *URLError.
func ParseBase(pageURL string) (*Base, error) {
	if len(pageURL) > MaxURLLength {
		return nil, urlError(KindTooLong, pageURL, fmt.Sprintf("base is %d bytes, limit %d", len(pageURL), MaxURLLength))
	}
	b := &Base{raw: pageURL}
	if canonicalAbsolute(pageURL) {
		// A page URL the frontier handed out is canonical already (Normalize's fast
		// path): what the WHATWG parser would give is known without running it.
		b.setCanon(pageURL)
		return b, nil
	}
	u, err := b.parsed()
	if err != nil {
		return nil, err
	}
	if canon, err := finish(u.Clone(), pageURL); err == nil {
		b.setCanon(canon)
	}
	return b, nil
}

// setCanon records the base's canonical form and the parts the fast path joins.
func (b *Base) setCanon(canon string) {
	b.canon = canon
	b.scheme = canon[:strings.IndexByte(canon, ':')]
	pathAt := len(b.scheme) + 3 + strings.IndexByte(canon[len(b.scheme)+3:], '/')
	b.origin = canon[:pathAt]
	path, _, _ := strings.Cut(canon[pathAt:], "?")
	b.dir = path[:strings.LastIndexByte(path, '/')+1]
}

// parsed is the base as the WHATWG parser reads it, parsed once.
func (b *Base) parsed() (*whatwg.Url, error) {
	b.once.Do(func() {
		u, err := parser.Parse(b.raw)
		if err != nil {
			b.uErr = urlError(KindMalformed, b.raw, "base: "+parseReason(err))
			return
		}
		b.u = u
	})
	return b.u, b.uErr
}

// Resolve resolves a link found on the page (an href as written: relative, absolute or
// scheme-relative) the way a browser would, then normalises it like Normalize.
func (b *Base) Resolve(ref string) (string, error) {
	if len(ref) > MaxURLLength {
		return "", urlError(KindTooLong, ref, fmt.Sprintf("%d bytes, limit %d", len(ref), MaxURLLength))
	}
	if out, ok := b.resolveSimple(ref); ok {
		return out, nil
	}
	return b.resolveFull(ref)
}

// resolveFull is Resolve without the fast path.
func (b *Base) resolveFull(ref string) (string, error) {
	if scheme, ok := leadingScheme(ref); ok && scheme != "http" && scheme != "https" {
		return "", schemeError(ref, scheme)
	}
	bu, err := b.parsed()
	if err != nil {
		return "", err
	}
	u, err := bu.Parse(ref)
	if err != nil {
		return "", urlError(KindMalformed, ref, parseReason(err))
	}
	return finish(u, ref)
}

// Resolve resolves a link found on the page at base, then normalises it (see Base for
// resolving many links of one page).
func Resolve(base *url.URL, ref string) (string, error) {
	if base == nil {
		return Normalize(ref)
	}
	b, err := ParseBase(base.String())
	if err != nil {
		return "", err
	}
	return b.Resolve(ref)
}

func schemeError(raw, scheme string) *URLError {
	return urlError(KindScheme, raw, fmt.Sprintf("%q is not http or https", scheme))
}

// parseReason turns a whatwg-url failure into a short lower-case reason.
func parseReason(err error) string {
	reason := string(whatwgerrors.Type(err))
	if reason == "" {
		reason = err.Error()
	}
	if d := whatwgerrors.Description(err); d != "" {
		reason += " (" + d + ")"
	}
	return strings.ToLower(reason[:1]) + reason[1:]
}

// leadingScheme returns the lower-cased RFC 3986 scheme (ALPHA *( ALPHA / DIGIT / "+" /
// "-" / "." ) ":") that raw starts with, after the C0-control-or-space the WHATWG parser
// trims, ignoring the tabs and newlines it removes. ok is false for relative references.
func leadingScheme(raw string) (scheme string, ok bool) {
	i := 0
	for i < len(raw) && raw[i] <= ' ' {
		i++
	}
	var b strings.Builder
	for ; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r':
			continue
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			b.WriteByte(c | 0x20)
		case b.Len() > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
			b.WriteByte(c)
		case c == ':' && b.Len() > 0:
			return b.String(), true
		default:
			return "", false
		}
	}
	return "", false
}

// finish serialises a parsed URL in canonical form; raw is only for error messages.
func finish(u *whatwg.Url, raw string) (string, error) {
	scheme := u.Scheme()
	if scheme != "http" && scheme != "https" {
		return "", schemeError(raw, scheme)
	}
	// The WHATWG host parser has already lower-cased, IDNA-mapped and percent-decoded the
	// host; it keeps trailing dots: one is DNS's root, the same name; more are an empty
	// label no resolver accepts. Trimming all keeps Normalize idempotent.
	host := strings.TrimRight(u.Hostname(), ".")
	trimmed := len(host) < len(u.Hostname())
	if host == "" {
		return "", urlError(KindMalformed, raw, "empty host")
	}
	// WHATWG lets through host characters such as "{" or "*" that no DNS name has and
	// net/url refuses; after IDNA a name is letters, digits, "-", "." and (seen in the
	// wild) "_". IPv6 literals keep their brackets and colons; the WHATWG host parser
	// only lets a "[" through as the start of one. (Not u.IsIPv6: whatwg-url does not
	// carry that flag over when it resolves a link against a base.)
	if host[0] != '[' {
		for i := 0; i < len(host); i++ {
			if c := host[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
				return "", urlError(KindMalformed, raw, fmt.Sprintf("host %q has %q, which no DNS name can have", displayURL(host), c))
			}
		}
	}
	var b strings.Builder
	b.Grow(len(raw) + 16)
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	if port := u.Port(); port != "" { // WHATWG already dropped :80 for http, :443 for https
		b.WriteByte(':')
		b.WriteString(port)
	}
	path := u.Pathname()
	if path == "" {
		path = "/"
	}
	writeEscaped(&b, path, pathByte)
	if q := u.Query(); q != "" { // an empty "?" is dropped
		b.WriteByte('?')
		writeEscaped(&b, q, queryByte)
	}
	out := b.String()
	if trimmed {
		// What is left may read differently to the host parser ("0.." is a name, "0" the
		// address 0.0.0.0): parse once more so the result is a fixed point.
		again, err := parser.Parse(out)
		if err != nil {
			return "", urlError(KindMalformed, raw, parseReason(err))
		}
		return finish(again, raw)
	}
	if len(out) > MaxURLLength {
		return "", urlError(KindTooLong, raw, fmt.Sprintf("normalized form is %d bytes, limit %d", len(out), MaxURLLength))
	}
	return out, nil
}

// Byte classes from RFC 3986 §2.2-2.3 and §3.3-3.4.
const (
	unreservedByte = 1 << iota // ALPHA DIGIT - . _ ~
	pathByte                   // allowed raw in a path: pchar and "/"
	queryByte                  // allowed raw in a query: pchar, "/" and "?"
)

var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("-._~", b) >= 0 {
			t[c] = unreservedByte | pathByte | queryByte
		}
		if strings.IndexByte("!$&'()*+,;=:@/", b) >= 0 { // sub-delims, ":", "@", "/"
			t[c] = pathByte | queryByte
		}
	}
	t['?'] = queryByte
	return t
}()

const upperHex = "0123456789ABCDEF"

// writeEscaped writes s with RFC 3986 §6.2.2 percent-encoding normalisation: escapes of
// unreserved characters decoded, other escapes in upper-case hex, bytes not allowed raw
// in this component (class) encoded, including a "%" that does not start an escape.
func writeEscaped(b *strings.Builder, s string, class uint8) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			if byteClass[d]&unreservedByte != 0 {
				b.WriteByte(d)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex[d>>4])
				b.WriteByte(upperHex[d&15])
			}
			i += 2
		case byteClass[c]&class != 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

// The fast path. Parsing with whatwg-url costs microseconds and dozens of allocations
// per link; most links are plain ("/news/a.html", "page2?id=3", "#top") and most
// URLs the frontier sees again are already canonical. For those, the result is computed
// directly, after strict checks that leave the WHATWG parser and finish nothing to
// change: only characters RFC 3986 allows raw, no "%" escapes, no dot segments, no
// userinfo, lower-case LDH hosts that cannot be IPv4 or punycode, no default or
// zero-padded port. Anything else takes the full path. FuzzFastPath checks that both
// agree on every input the fast path takes.

// simplePath and simpleQuery report whether a path or query needs nothing from the
// WHATWG parser or writeEscaped: pchar without "%" (and, in a query, "/" and "?" but not
// "'", which WHATWG escapes in http(s) queries), and no "." or ".." segment.
func simplePath(p string) bool {
	seg := 0 // start of the current segment
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if s := p[seg:i]; s == "." || s == ".." {
				return false
			}
			seg = i + 1
			continue
		}
		if c := p[i]; byteClass[c]&pathByte == 0 || c == '%' {
			return false
		}
	}
	return true
}

func simpleQuery(q string) bool {
	for i := 0; i < len(q); i++ {
		if c := q[i]; byteClass[c]&queryByte == 0 || c == '%' || c == '\'' {
			return false
		}
	}
	return true
}

// canonicalAbsolute reports whether raw is an http(s) URL already in the form Normalize
// returns, so Normalize(raw) == raw.
func canonicalAbsolute(raw string) bool {
	if len(raw) > MaxURLLength {
		return false
	}
	var rest string
	var defaultPort string
	switch {
	case strings.HasPrefix(raw, "http://"):
		rest, defaultPort = raw[len("http://"):], "80"
	case strings.HasPrefix(raw, "https://"):
		rest, defaultPort = raw[len("https://"):], "443"
	default:
		return false
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return false
	}
	host, port, hasPort := strings.Cut(rest[:slash], ":")
	if !simpleHost(host) || hasPort && !simplePort(port, defaultPort) {
		return false
	}
	path, query, hasQuery := strings.Cut(rest[slash:], "?")
	return simplePath(path) && (!hasQuery || query != "" && simpleQuery(query))
}

// simpleHost: lower-case letters, digits, "-", "_" in non-empty labels; the last label
// not starting with a digit (WHATWG would read the host as an IPv4 address) and no "xn--"
// (IDNA would validate it). One pass: every link of every page crawled comes here.
func simpleHost(h string) bool {
	if h == "" || h[0] == '.' || h[len(h)-1] == '.' {
		return false
	}
	last := 0 // where the last label starts
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_':
		case c == '-':
			if i >= 3 && h[i-1] == '-' && h[i-2] == 'n' && h[i-3] == 'x' {
				return false // "xn--"
			}
		case c == '.':
			if h[i-1] == '.' { // (h[0] is no '.')
				return false // an empty label
			}
			last = i + 1
		default:
			return false
		}
	}
	return !('0' <= h[last] && h[last] <= '9')
}

// simplePort: 1 to 65535 in canonical decimal, not the scheme's default.
func simplePort(p, defaultPort string) bool {
	if p == "" || len(p) > 5 || p[0] == '0' || p == defaultPort {
		return false
	}
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
		n = n*10 + int(p[i]-'0')
	}
	return n <= 65535
}

// resolveSimple resolves ref against b without the WHATWG parser when ref is plain:
// a fragment, a query, an absolute path or a relative path of simple characters, or a
// canonical absolute or scheme-relative URL. ok is false when the full path is needed.
func (b *Base) resolveSimple(ref string) (string, bool) {
	if b.canon == "" {
		return "", false
	}
	ref, _, _ = strings.Cut(ref, "#") // fragments are dropped
	var out string
	switch {
	case ref == "":
		return b.canon, true
	case strings.HasPrefix(ref, "//"):
		out = b.scheme + ":" + ref
		return out, canonicalAbsolute(out)
	case strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"):
		return ref, canonicalAbsolute(ref)
	case ref[0] == '?':
		if ref == "?" || !simpleQuery(ref[1:]) {
			return "", false
		}
		path, _, _ := strings.Cut(b.canon[len(b.origin):], "?")
		out = b.origin + path + ref
	default:
		path, query, hasQuery := strings.Cut(ref, "?")
		if hasQuery && (query == "" || !simpleQuery(query)) || !simplePath(path) {
			return "", false
		}
		if path[0] != '/' {
			// A relative path; a ":" before any "/" would make it a scheme.
			if strings.IndexByte(path, ':') >= 0 && (strings.IndexByte(path, '/') < 0 || strings.IndexByte(path, ':') < strings.IndexByte(path, '/')) {
				return "", false
			}
			ref = b.dir + ref
		}
		out = b.origin + ref
	}
	return out, len(out) <= MaxURLLength
}
