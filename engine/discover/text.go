package discover

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// baseURL parses a document's URL for resolving its relative links; nil when it
// has none that is http(s).
func baseURL(s string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	return u
}

// resolveLink turns a link as a document gives it into an absolute http(s) URL:
// an absolute one is kept as written, a relative one is resolved against base.
// ok is false for another scheme (javascript:, mailto:, ftp:) or a relative link
// with no base.
//
// An IRI (a link with raw non-ASCII characters, as Korean or Chinese feeds write
// them) is returned as its URI: the characters percent-encoded as UTF-8 (RFC 3987
// §3.1), the URL a browser requests for it; so are spaces inside a link. An empty
// fragment ("index.php#") is dropped: it names the page itself, which is how a
// relative link with one resolves too.
func resolveLink(base *url.URL, v string) (string, bool) {
	v = iriToURI(strings.TrimSpace(v))
	if i := strings.IndexByte(v, '#'); i > 0 && i == len(v)-1 {
		v = v[:i]
	}
	lv := strings.ToLower(v)
	if strings.HasPrefix(lv, "http://") || strings.HasPrefix(lv, "https://") {
		return v, true
	}
	if base == nil || v == "" {
		return "", false
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	abs := base.ResolveReference(u)
	if abs.Host == "" {
		return "", false
	}
	return abs.String(), true
}

// looksLikeURLLine says whether a document starts with an http(s) URL on its first
// line: a text sitemap.
func looksLikeURLLine(b []byte) bool {
	line := b
	if i := bytes.IndexAny(line, "\r\n"); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimSpace(line)
	if bytes.ContainsAny(line, " \t<>\x00") {
		return false
	}
	lv := bytes.ToLower(line[:min(len(line), 8)])
	if !bytes.HasPrefix(lv, []byte("http://")) && !bytes.HasPrefix(lv, []byte("https://")) {
		return false
	}
	u, err := url.Parse(string(line))
	return err == nil && u.Host != ""
}

// parseText reads a text sitemap (sitemaps.org: one URL a line, UTF-8, at most
// 50,000 URLs): line by line, a line longer than maxValue skipped with a warning
// without being held, at most lim.MaxURLs kept (the rest is not read).
func parseText(br *bufio.Reader, base *url.URL, lim Limits) (Doc, error) {
	doc := Doc{Kind: KindSitemap}
	long := false
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			long = true
			continue
		case long:
			long = false
			doc.warn("long_value")
		case len(line)+len(chunk) > 0:
			line = append(line[:0], chunk...)
			if v := strings.TrimSpace(string(line)); v != "" && !strings.HasPrefix(v, "#") {
				u, ok := resolveLink(base, v)
				switch {
				case !ok || strings.ContainsAny(v, " \t"):
					doc.warn("not_http")
				case len(doc.Entries) >= lim.MaxURLs:
					doc.warn("too_many_urls")
					return doc, nil // bounded: the rest is not read
				default:
					doc.Entries = append(doc.Entries, Entry{URL: u})
				}
			}
		}
		if err == io.EOF {
			return doc, nil
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				doc.warn("truncated")
				return doc, fmt.Errorf("text sitemap after %d entries: %w", len(doc.Entries), err)
			}
			return doc, fmt.Errorf("text sitemap: %w", err)
		}
	}
}

// iriToURI percent-encodes the bytes of s that a URI may not hold: non-ASCII (UTF-8,
// as the document was decoded to), controls, space and "<>\^`{|}.
func iriToURI(s string) string {
	i := 0
	for i < len(s) && !notInURI(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		if c := s[i]; notInURI(c) {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

func notInURI(c byte) bool {
	return c <= ' ' || c >= 0x7f || strings.IndexByte(`"<>\^`+"`{|}", c) >= 0
}
