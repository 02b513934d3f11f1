package fetch

import (
	"bytes"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/crawlconsole/crawlconsole/engine/discover"
)

// startOf quotes the first bytes of a body for an error message.
func startOf(b []byte) string {
	return strconv.Quote(string(b[:min(len(b), 24)]))
}

// looksBinary sniffs the start of a body that claims to be text: NUL bytes or a
// sniffed non-text type mean it is not a page.
func looksBinary(b []byte) bool {
	head := b
	if len(head) > 512 {
		head = head[:512]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	ct := http.DetectContentType(head)
	return !strings.HasPrefix(ct, "text/") && !strings.Contains(ct, "xml") && !strings.Contains(ct, "json")
}

// discoveryType says whether a media type may carry a feed or a sitemap: XML of any
// kind, and gzip (a .xml.gz sitemap served as a file).
func discoveryType(mt string) bool {
	switch mt {
	case "application/xml", "text/xml", "application/rss+xml", "application/atom+xml", "application/rdf+xml",
		"application/feed+xml", "application/gzip", "application/x-gzip":
		return true
	}
	return false
}

// sniffType says whether a body of this media type is looked at, with Discovery on,
// before it is refused: real servers label feeds and sitemaps text/plain, text/html
// and application/octet-stream (a .gz), and XML under any +xml name.
func sniffType(mt string) bool {
	return strings.HasPrefix(mt, "text/") || mt == "application/octet-stream" ||
		(strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+xml"))
}

// sniffLen is how much of a body's start decides whether a body labelled as
// anything a feed or sitemap is also served under (sniffType) is one
// (discoveryCandidate reads its first KiB).
const sniffLen = 1024

// headerLimit is the size a Content-Length may announce before the body is seen: a
// body whose label a feed or sitemap is also served under (text/plain, text/html,
// application/octet-stream) may be one, so it is let through to the document cap,
// and the body's first bytes decide (bodyCapper, limitOf).
func (c Config) headerLimit(mt string) int {
	if c.Discovery && sniffType(mt) {
		return c.documentCap()
	}
	return c.limitFor(mt)
}

// limitOf is the decoded size a body of media type mt may have, its label and its
// start read together: a sitemap served as text/html, or a .xml.gz as
// application/octet-stream, is a sitemap (the document cap); a page keeps the page
// cap.
func (c Config) limitOf(mt string, body []byte) int {
	if c.Discovery && sniffType(mt) && discoveryCandidate(mt, body) {
		return c.documentCap()
	}
	return c.limitFor(mt)
}

// discoveryCandidate says whether a body should be tried as a feed or sitemap: its
// type says XML or gzip, or its first bytes are gzip, UTF-16, XML, a feed's or
// sitemap's root (after a comment, or a server's notice, too), or a URL line (a
// text sitemap). An HTML page is looked at no further than its first KiB (every
// page passes here: a search through a whole page cost 130 µs per 100 KB, a third
// of a page's CPU), and an XHTML page (one that starts as XML, or served as
// application/xhtml+xml) is searched for a feed inside before it is read as XML.
func discoveryCandidate(mt string, body []byte) bool {
	if discoveryType(mt) || bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		return true
	}
	if len(body) >= 2 && (body[0] == 0xFE && body[1] == 0xFF || body[0] == 0xFF && body[1] == 0xFE) {
		return true // UTF-16
	}
	head := bytes.TrimLeft(body[:min(len(body), 1024)], " \t\r\n\ufeff")
	roots := [...]string{"<rss", "<feed", "<urlset", "<sitemapindex", "<rdf:RDF"}
	if bytes.HasPrefix(head, []byte("<?xml")) {
		if strings.Contains(mt, "html") && bytes.Contains(head, []byte("<html")) {
			// An XHTML page: read as XML only when a feed is inside.
			return bytes.Contains(body, []byte("<feed")) || bytes.Contains(body, []byte("<rss"))
		}
		return true
	}
	for _, p := range roots {
		if bytes.HasPrefix(head, []byte(p)) {
			return true
		}
	}
	if bytes.HasPrefix(head, []byte("<!--")) {
		for _, p := range roots {
			if bytes.Contains(head, []byte(p)) {
				return true
			}
		}
	}
	if (len(head) > 0 && head[0] != '<' || bytes.HasPrefix(head, []byte("<br")) || bytes.HasPrefix(head, []byte("<b>"))) && discover.AfterNotice(head) > 0 {
		return true // a server's notice printed ahead of the document
	}
	if mt == "application/xhtml+xml" {
		return bytes.Contains(body, []byte("<feed")) || bytes.Contains(body, []byte("<rss"))
	}
	if strings.Contains(mt, "html") {
		return false
	}
	return bytes.HasPrefix(head, []byte("http://")) || bytes.HasPrefix(head, []byte("https://"))
}

// mediaTypes remembers the media types of the Content-Type values a fetcher met:
// a crawl meets a handful of values again and again, and parsing one
// (mime.ParseMediaType builds a parameter map) cost more than the rest of reading
// the response's header. At most maxMediaTypes values are kept, so a server that
// sends a new value with every response only costs the parse.
type mediaTypes struct {
	mu   sync.Mutex
	seen map[string]string
}

const maxMediaTypes = 64

// mediaType is v's media type, lower-case, without parameters; "" when v is empty
// or not a media type. A nil m remembers nothing.
func (m *mediaTypes) mediaType(v string) string {
	if m == nil {
		mt, _, _ := mime.ParseMediaType(v)
		return strings.ToLower(mt)
	}
	m.mu.Lock()
	mt, ok := m.seen[v]
	m.mu.Unlock()
	if ok {
		return mt
	}
	mt, _, _ = mime.ParseMediaType(v)
	mt = strings.ToLower(mt)
	m.mu.Lock()
	if m.seen == nil {
		m.seen = make(map[string]string)
	}
	if len(m.seen) < maxMediaTypes {
		m.seen[v] = mt
	}
	m.mu.Unlock()
	return mt
}
