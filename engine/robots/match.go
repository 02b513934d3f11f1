package robots

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Rules are one origin's robots.txt rules for our product token, with what the
// fetch policy (FromResponse) made of the answer.
type Rules struct {
	rules []rule // sorted: longest pattern first, Allow before Disallow on equal length
	// CrawlDelay is the Crawl-delay of our group (0 if none), before any configured cap.
	CrawlDelay time.Duration
	// Sitemaps are the file's Sitemap lines (for discovery).
	Sitemaps []string
	// Unreachable: robots.txt answered 429 or 5xx, or not at all. Everything is
	// disallowed for now (RFC 9309 §2.3.1.3-4); the cache tries again with backoff.
	Unreachable bool
	// Status is the HTTP status robots.txt answered with (0: no answer).
	Status int
	// RetryAfter is the wait an unreachable answer (429, 503) asked for in its
	// Retry-After header; the cache waits at least that long (capped) before trying
	// again.
	RetryAfter time.Duration
	// Note says briefly where the rules came from, for the log.
	Note string
	// Err is why robots.txt got no answer at all (the request's error: a refused
	// connection, a timeout, the SSRF guard's refusal), nil when it answered.
	Err error
}

// rule is one Allow or Disallow line, its pattern percent-encoding normalised.
type rule struct {
	pattern string
	allow   bool
}

// AllowAll is the rules of a site without robots.txt (RFC 9309 §2.3.1.3: 4xx "MAY
// access any resources").
func AllowAll(note string) *Rules { return &Rules{Note: note} }

// DisallowAll is the rules of a site whose robots.txt is unreachable (RFC 9309
// §2.3.1.4: "MUST assume complete disallow").
func DisallowAll(status int, note string) *Rules {
	return &Rules{Unreachable: true, Status: status, Note: note}
}

func (r *Rules) sort() {
	sort.SliceStable(r.rules, func(i, j int) bool {
		a, b := r.rules[i], r.rules[j]
		if len(a.pattern) != len(b.pattern) {
			return len(a.pattern) > len(b.pattern)
		}
		return a.allow && !b.allow
	})
}

// Allowed reports whether a path (with its query: "/a/b?c=d", as url.URL.RequestURI
// gives it) may be fetched. RFC 9309 §2.2.2: the most specific match wins — the one
// whose pattern has the most octets — and on a tie Allow wins; no match allows.
// Rules are sorted that way, so the first match decides.
func (r *Rules) Allowed(path string) bool {
	if r == nil {
		return true
	}
	if r.Unreachable {
		return false
	}
	if len(r.rules) == 0 || path == "/robots.txt" { // §2.2.2: "/robots.txt" is implicitly allowed
		return true
	}
	p := normalisePath(path)
	for _, ru := range r.rules {
		if match(p, ru.pattern) {
			return ru.allow
		}
	}
	return true
}

// String describes the rules briefly for the log.
func (r *Rules) String() string {
	switch {
	case r.Unreachable:
		return fmt.Sprintf("unreachable (all disallowed): %s", r.Note)
	case r.CrawlDelay > 0:
		return fmt.Sprintf("%d rules, crawl-delay %v, %d sitemaps (%s)", len(r.rules), r.CrawlDelay, len(r.Sitemaps), r.Note)
	}
	return fmt.Sprintf("%d rules, %d sitemaps (%s)", len(r.rules), len(r.Sitemaps), r.Note)
}

// match reports whether path matches pattern, anchored at the start of the path
// (RFC 9309 §2.2.2: "the path ... starts with" the rule's path). '*' matches any run
// of octets and '$' at the very end anchors the end of the path (§2.2.3); a '$'
// elsewhere is a literal. Segments between '*' are found leftmost-first, which is
// exact for '*'-only globs and costs O(len(path) × segments) at worst, so a 16 KiB
// rule of stars against a long URL stays cheap.
func match(path, pattern string) bool {
	end := false
	if strings.HasSuffix(pattern, "$") {
		pattern, end = pattern[:len(pattern)-1], true
	}
	// Segments are cut from the pattern in place: every URL is matched against
	// every rule of its group, and a split would allocate each time.
	first, stars, ok := strings.Cut(pattern, "*")
	if !strings.HasPrefix(path, first) {
		return false
	}
	if !ok {
		return !end || len(path) == len(first)
	}
	rest := path[len(first):]
	last := stars
	if i := strings.LastIndexByte(stars, '*'); i >= 0 {
		last = stars[i+1:]
		for s := range strings.SplitSeq(stars[:i], "*") {
			j := strings.Index(rest, s)
			if j < 0 {
				return false
			}
			rest = rest[j+len(s):]
		}
	}
	if end {
		// The last segment must end the path; it may start anywhere after what the
		// middle segments consumed.
		return len(rest) >= len(last) && strings.HasSuffix(rest, last)
	}
	return strings.Contains(rest, last)
}

const hexDigits = "0123456789ABCDEF"

// normalisePattern brings a rule's path to the form paths are compared in (RFC 9309
// §2.2.2: octets outside US-ASCII "MUST be percent-encoded ... prior to comparison"):
// non-ASCII octets percent-encoded, escapes upper-cased (%c3 = %C3), escapes of
// unreserved characters decoded (RFC 3986 §6.2.2.2: %7E is ~). '*' and '$' stay as
// they are.
//
// Google leaves %62%61%7A encoded and so does not match "/baz" against it; we decode
// unreserved escapes on both sides because our frontier normalises every URL that
// way (RFC 3986 §6.2.2.2), so "Disallow: /%7Euser/" must catch "/~user/" — the site
// meant to forbid it.
//
// A '$' that does not end the pattern is a literal and is encoded as %24, the way
// normalisePath encodes a literal '$' of the URL (§2.2.3).
func normalisePattern(p string) string {
	end := strings.HasSuffix(p, "$")
	if end {
		p = p[:len(p)-1]
	}
	p = normalise(p, false)
	if end {
		p += "$"
	}
	return p
}

// normalisePath brings a URL's path and query to the same form. '*' and '$' in a
// URL are literal characters: they are encoded as %2A and %24, so that they match a
// rule that percent-encodes them (RFC 9309 §2.2.3: "/path/file-with-a-%2A.html")
// and a rule's own '*' still matches them as "any characters".
func normalisePath(p string) string {
	if p == "" {
		return "/"
	}
	return normalise(p, true)
}

// normalise percent-encodes s; stars also encodes '*' (a URL's, not a pattern's).
func normalise(s string, stars bool) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c == '%' || c == '$' || stars && c == '*' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upper(s[i+1]))
				b.WriteByte(upper(s[i+2]))
			}
			i += 2
		case c == '%':
			b.WriteString("%25") // a stray '%' (RFC 3986 §2.4): encoded, so normalising twice changes nothing
		case c == '$':
			b.WriteString("%24")
		case c == '*' && stars:
			b.WriteString("%2A")
		case c >= 0x80:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

// unreserved is RFC 3986 §2.3's unreserved set: ALPHA / DIGIT / "-" / "." / "_" / "~".
func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
