// Package robots is crawlconsole's robots.txt (RFC 9309) and page-level directive
// (meta robots, X-Robots-Tag) reader. It parses a robots.txt file without ever failing
// open, picks the rules that apply to our product token, matches paths by RFC 9309's
// longest-match rule, and keeps each origin's rules for at most a day (Cache).
//
// No Go library on the module proxy was conformant: temoto/robotstxt
// returns an error on one stray line, prefix-matches the whole User-Agent and ranks
// wildcard rules by regexp length; Google's own parser has a Go port
// (jimsmart/grobotstxt) that the proxy does not serve. So this package follows the
// RFC, section by section, and matches Google's reference parser
// (github.com/google/robotstxt) where it goes further; the decisions are written at
// each place (look for "Google:").
package robots

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// Limits that keep the work bounded whatever a server sends.
const (
	// MaxBytes is how much of a robots.txt is parsed. RFC 9309 §2.5: "a parsing limit
	// ... MUST be at least 500 kibibytes"; the rest of a larger file is ignored.
	MaxBytes = 512 << 10
	// MaxLineBytes cuts a line after this many bytes. Google: 8 × 2083 (its browsers'
	// longest URL) less the terminating NUL — a rule longer than that is matched on
	// its first bytes.
	MaxLineBytes = 8*2083 - 1
	// MaxSitemaps is how many Sitemap lines are kept.
	MaxSitemaps = 1000
	// maxCrawlDelay bounds a parsed Crawl-delay before the configured cap
	// (fetch.max_crawl_delay), so that Crawl-delay: 1e300 never overflows a
	// time.Duration; 10^9 s (31 years) still reads as what the site asked.
	maxCrawlDelay = 1e9 * time.Second
)

// File is a parsed robots.txt: its groups and the file-wide records.
type File struct {
	groups   []*group
	Sitemaps []string // Sitemap: lines, in file order (RFC 9309 §2.2.4 "other records")
}

// group is one record: the user-agent lines that open it and the rules under them.
type group struct {
	agents     []string // product tokens as written (lower-cased); "*" for the global group
	rules      []rule
	crawlDelay time.Duration
	hasDelay   bool
}

// Parse reads a robots.txt body. It never fails: a line it cannot read is skipped and
// the rest stands (RFC 9309 §2.2: "crawlers SHOULD ... use the parseable lines";
// before, one stray line turned a whole file into allow-all). body is read up to
// MaxBytes; when it is longer, the last, cut-off line is dropped too, so a truncated
// "Allow: /abc" never becomes a broader "Allow: /a".
func Parse(body []byte) *File {
	if len(body) > MaxBytes {
		body = body[:MaxBytes]
		if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
			body = body[:i]
		} else {
			body = nil
		}
	}
	body = skipBOM(body)
	f := &File{}
	var cur *group
	inRules := false // a rule line was seen since the last user-agent line
	for len(body) > 0 {
		var line []byte
		i := bytes.IndexAny(body, "\r\n")
		if i < 0 {
			line, body = body, nil
		} else {
			line = body[:i]
			// \r\n is one line end (RFC 9309 §2.2: EOL = %x0D / %x0A / %x0D.0A).
			if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			body = body[i+1:]
		}
		if len(line) > MaxLineBytes {
			line = line[:MaxLineBytes]
		}
		key, value, ok := splitLine(line)
		if !ok {
			continue
		}
		switch keyKind(key) {
		case keyUserAgent:
			// RFC 9309 §2.1: a group is one or more user-agent lines followed by
			// rules; a user-agent line after rules opens a new group. Lines that are
			// not rules (Sitemap, Crawl-delay, unknown) do not end the run of
			// user-agent lines (Google's ID_LineSyntax_Groups_OtherRules).
			if cur == nil || inRules {
				cur = &group{}
				f.groups = append(f.groups, cur)
				inRules = false
			}
			cur.agents = append(cur.agents, agentName(value))
		case keyAllow, keyDisallow:
			if cur == nil {
				continue // RFC 9309 §2.1: rules outside a group are ignored
			}
			inRules = true
			allow := keyKind(key) == keyAllow
			if value == "" {
				continue // an empty pattern matches nothing (Google: priority 0 is no match)
			}
			p := normalisePattern(value)
			cur.rules = append(cur.rules, rule{pattern: p, allow: allow})
			// Google: "Allow: /dir/index.html" (or index.htm...) also allows "/dir/"
			// itself, its directory page. It only widens what the site allowed for
			// the same document, so we follow it.
			if allow {
				if s := strings.LastIndexByte(p, '/'); s >= 0 && strings.HasPrefix(p[s:], "/index.htm") {
					cur.rules = append(cur.rules, rule{pattern: p[:s+1] + "$", allow: true})
				}
			}
		case keyCrawlDelay:
			// Not in RFC 9309 (§2.2.4 "other records"): read as seconds, with a
			// decimal comma accepted (Crawl-delay: 0,5). It belongs to the group it
			// is in and does not split it.
			if cur == nil {
				continue
			}
			if d, ok := parseDelay(value); ok {
				cur.crawlDelay, cur.hasDelay = max(cur.crawlDelay, d), true
			}
		case keySitemap:
			if value != "" && len(f.Sitemaps) < MaxSitemaps {
				f.Sitemaps = append(f.Sitemaps, value)
			}
		}
	}
	return f
}

// skipBOM drops a full or partial UTF-8 byte-order mark at the start (Google:
// ID_UTF8ByteOrderMarkIsSkipped; an editor's BOM must not hide the first line).
func skipBOM(b []byte) []byte {
	for _, c := range []byte{0xEF, 0xBB, 0xBF} {
		if len(b) == 0 || b[0] != c {
			break
		}
		b = b[1:]
	}
	return b
}

// splitLine returns a line's key and value: comments start at '#' anywhere (RFC 9309
// §2.2: comment = "#" *(UTF8-char-noctl / WS / "#")), whitespace around both is
// trimmed. Google: a missing colon is accepted when the line is exactly two words
// ("Disallow /x"): what the author meant is plain.
func splitLine(line []byte) (key, value string, ok bool) {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	s := strings.TrimSpace(string(line))
	if s == "" {
		return "", "", false
	}
	sep := strings.IndexByte(s, ':')
	if sep < 0 {
		sep = strings.IndexAny(s, " \t")
		if sep < 0 || strings.ContainsAny(strings.TrimLeft(s[sep:], " \t"), " \t") {
			return "", "", false
		}
	}
	key = strings.TrimSpace(s[:sep])
	if key == "" {
		return "", "", false
	}
	return key, strings.TrimSpace(s[sep+1:]), true
}

type lineKey int

const (
	keyUnknown lineKey = iota
	keyUserAgent
	keyAllow
	keyDisallow
	keyCrawlDelay
	keySitemap
)

// keyKind classifies a line's key, case-insensitively (RFC 9309 §2.2). Google reads
// keys by prefix and accepts frequent typos ("useragent", "user agent", "disalow",
// "dissallow", ...): a typo in a Disallow line is still a site forbidding something,
// so we accept the same ones.
func keyKind(key string) lineKey {
	k := strings.ToLower(key)
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("user-agent", "useragent", "user agent"):
		return keyUserAgent
	case has("allow"):
		return keyAllow
	case has("disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"):
		return keyDisallow
	case has("crawl-delay", "crawldelay", "crawl delay"):
		return keyCrawlDelay
	case has("sitemap", "site-map"):
		return keySitemap
	}
	return keyUnknown
}

// agentName is the product token a user-agent line names, lower-cased: "*" for the
// global group (Google: "* anything" too), else its leading [A-Za-z_-] characters
// (RFC 9309 §2.2.1: product tokens are letters, '_' and '-'; Google: "FooBot/1.0" and
// "Foo Bar" name FooBot and Foo).
func agentName(v string) string {
	if v == "*" || strings.HasPrefix(v, "* ") || strings.HasPrefix(v, "*\t") {
		return "*"
	}
	return strings.ToLower(ProductToken(v))
}

// ProductToken is the leading product token of a User-Agent string ("crawlconsole"
// for "crawlconsole/0.1 (+https://...)"): letters, '_' and '-' (RFC 9309 §2.2.1). It
// is what robots.txt groups and <meta name=...> are matched against.
func ProductToken(ua string) string {
	end := 0
	for end < len(ua) {
		c := ua[end]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-' {
			end++
			continue
		}
		break
	}
	return ua[:end]
}

// parseDelay reads a Crawl-delay value in seconds, bounded to [0, maxCrawlDelay].
func parseDelay(v string) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64)
	if err != nil || f != f || f < 0 { // f != f: NaN
		return 0, false
	}
	if f >= maxCrawlDelay.Seconds() {
		return maxCrawlDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}

// For returns the rules that apply to a crawler with the given product token: the
// groups naming it, merged (RFC 9309 §2.2.1: "the matching groups' rules MUST be
// combined into one group"), or else the merged "*" groups, or else none (allow all).
// Matching is case-insensitive and on the whole token: a group for "crawl" does not
// capture "crawlconsole".
func (f *File) For(token string) *Rules {
	token = strings.ToLower(token)
	r := &Rules{Sitemaps: f.Sitemaps}
	var specific, global []*group
	for _, g := range f.groups {
		named, star := false, false
		for _, a := range g.agents {
			named = named || token != "" && a == token
			star = star || a == "*"
		}
		switch {
		case named: // a group naming us and "*" is ours
			specific = append(specific, g)
		case star:
			global = append(global, g)
		}
	}
	use := specific
	if len(use) == 0 {
		use = global
	}
	for _, g := range use {
		r.rules = append(r.rules, g.rules...)
		if g.hasDelay {
			// Several merged groups each with a delay: the longest is the polite one.
			r.CrawlDelay = max(r.CrawlDelay, g.crawlDelay)
		}
	}
	r.sort()
	return r
}
