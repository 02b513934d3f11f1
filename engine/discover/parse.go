package discover

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Kind tells what a discovery document turned out to be.
type Kind string

// Kinds of discovery documents.
const (
	KindSitemap Kind = "sitemap"       // <urlset>: pages
	KindIndex   Kind = "sitemap_index" // <sitemapindex>: more sitemaps
	KindFeed    Kind = "feed"          // RSS 2.0, RSS 1.0 (RDF) or Atom
)

// Defaults of Limits.
const (
	// DefaultMaxURLs is the sitemaps protocol's own cap on URLs per sitemap
	// (https://www.sitemaps.org/protocol.html#index).
	DefaultMaxURLs = 50_000
	// DefaultMaxBytes is the protocol's 50 MiB uncompressed cap.
	DefaultMaxBytes = 50 << 20
	// DefaultMaxFeedItems bounds the items kept from one feed.
	DefaultMaxFeedItems = 5_000
)

// Limits bound the work one document may cost.
type Limits struct {
	MaxBytes     int64 // decoded bytes read (after gzip); the engine passes its page cap
	MaxURLs      int   // entries kept from one sitemap or index
	MaxFeedItems int   // entries kept from one feed
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxURLs <= 0 {
		l.MaxURLs = DefaultMaxURLs
	}
	if l.MaxFeedItems <= 0 {
		l.MaxFeedItems = DefaultMaxFeedItems
	}
	return l
}

// Entry is one URL a sitemap or feed announces, with the dates it gives.
type Entry struct {
	URL string
	// Modified is the sitemap's <lastmod> or the feed item's updated date; zero when
	// absent or unparseable.
	Modified time.Time
	// Published is news:publication_date or the feed item's pubDate/published.
	Published time.Time
	// Keywords are news:keywords (comma-separated in the sitemap) or item categories.
	Keywords []string
	// Title is news:title or the item title, for logs.
	Title string
	// Alternates are the page in other languages, as a sitemap's
	// <xhtml:link rel="alternate" hreflang="…"> gives them: pages of the site too.
	Alternates []string
}

// Latest is the newest of the entry's dates (zero when it has none): the moment the
// site claims the page last changed.
func (e Entry) Latest() time.Time {
	if e.Published.After(e.Modified) {
		return e.Published
	}
	return e.Modified
}

// Doc is a parsed discovery document.
type Doc struct {
	Kind    Kind
	Entries []Entry // pages (sitemap, feed) or child sitemaps (index)
	// Media counts the image and video URLs a sitemap's extensions gave: not pages.
	Media int
	// Warnings counts problems that did not stop the document, by kind: "bad_date",
	// "too_many_urls", "empty_loc", "not_http", "truncated", "encoding_mismatch"
	// (the declared encoding is not what the bytes are), "unknown_encoding",
	// "entities_ignored" (a DOCTYPE declares entities, which are not expanded).
	Warnings map[string]int
}

func (d *Doc) warn(kind string) {
	if d.Warnings == nil {
		d.Warnings = map[string]int{}
	}
	d.Warnings[kind]++
}

// ErrNotDiscovery is returned for a body that is neither a sitemap nor a feed (an
// HTML page served where a feed was announced, say).
var ErrNotDiscovery = errors.New("neither a sitemap nor a feed")

// ErrTooLarge is returned when the decoded body passes Limits.MaxBytes.
var ErrTooLarge = errors.New("decoded body exceeds the size cap")

// gzipMagic starts every gzip member (RFC 1952 §2.3.1).
var gzipMagic = []byte{0x1f, 0x8b}

// Open returns a reader over r's decoded bytes: r itself, or its gzip inflation
// when it is a gzip file (a .xml.gz sitemap is a gzip file, not a gzip
// Content-Encoding, so the fetcher hands it over as received). Reading past max
// decoded bytes fails with ErrTooLarge: a small gzip cannot inflate past the cap.
func Open(r io.Reader, max int64) (io.Reader, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, gzipMagic) {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip sitemap: %w", err)
		}
		return &capReader{r: z, left: max}, nil
	}
	return &capReader{r: br, left: max}, nil
}

// capReader fails with ErrTooLarge once more than left bytes were read.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a body of exactly the cap from a longer one.
		var b [1]byte
		if n, _ := c.r.Read(b[:]); n > 0 {
			return 0, ErrTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// Parse reads a sitemap, sitemap index or feed from body (gzip or not) whose URL and
// Content-Type are unknown: ParseFrom with an empty Source.
func Parse(body []byte, lim Limits) (Doc, error) {
	return ParseFrom(body, Source{}, lim)
}

// ParseFrom reads a sitemap (XML or text), sitemap index or feed (RSS, RDF, Atom, or
// one inside an XHTML page) from body, gzip or not, by its content whatever its
// Content-Type says: servers label feeds text/html and sitemaps text/plain often
// enough. src gives the encoding when the document declares none, and the URL that
// relative links are resolved against.
func ParseFrom(body []byte, src Source, lim Limits) (Doc, error) {
	return ParseReaderFrom(bytes.NewReader(body), src, lim)
}

// ParseReader is ParseReaderFrom with an empty Source.
func ParseReader(r io.Reader, lim Limits) (Doc, error) {
	return ParseReaderFrom(r, Source{}, lim)
}

// ParseReaderFrom is ParseFrom over a stream: a sitemap is read token by token (a
// text sitemap line by line) as it arrives, so memory holds the entries kept, not
// the document.
func ParseReaderFrom(in io.Reader, src Source, lim Limits) (Doc, error) {
	lim = lim.withDefaults()
	var doc Doc
	r, err := Open(in, lim.MaxBytes)
	if err != nil {
		return doc, err
	}
	raw := bufio.NewReaderSize(r, sniffSize)
	head, err := raw.Peek(sniffSize)
	if err != nil && len(head) == 0 && !errors.Is(err, io.EOF) {
		if errors.Is(err, ErrTooLarge) {
			return doc, err
		}
		return doc, fmt.Errorf("reading: %w", err)
	}
	enc := detectEncoding(head, src.ContentType, &doc)
	if declaresEntities(head) {
		doc.warn("entities_ignored")
	}
	var repaired bool // invalid UTF-8 met past the sample detectEncoding judged by
	br := utf8Stream(raw, enc, &doc, &repaired)
	base := baseURL(src.URL)
	root, err := rootElement(br)
	var parsed Doc
	switch {
	case err != nil:
		return doc, err
	case root == "":
		parsed, err = parseText(br, base, lim)
	case root == "urlset":
		parsed, err = parseSitemap(br, base, lim, false)
	case root == "sitemapindex":
		parsed, err = parseSitemap(br, base, lim, true)
	case root == "rss", root == "rdf", root == "feed":
		parsed, err = parseFeed(br, base, lim)
	case root == "html":
		parsed, err = parseEmbedded(br, base, lim)
	default:
		return doc, fmt.Errorf("%w: root element <%s>", ErrNotDiscovery, root)
	}
	if repaired && doc.Warnings["encoding_mismatch"] == 0 {
		doc.warn("encoding_mismatch")
	}
	for k, n := range doc.Warnings {
		parsed.Warnings = addWarning(parsed.Warnings, k, n)
	}
	return parsed, err
}

// declaresEntities says whether the document's head has a DOCTYPE that declares
// entities (<!DOCTYPE x [<!ENTITY ...>]>). They are never expanded (encoding/xml
// reads no DTD; an unknown &name; stays as written), which is what keeps billion
// laughs and external entities harmless, but the document is then not read as its
// author meant: a warning says so.
func declaresEntities(head []byte) bool {
	i := bytes.Index(head, []byte("<!DOCTYPE"))
	return i >= 0 && bytes.Contains(head[i:], []byte("<!ENTITY"))
}

func addWarning(w map[string]int, kind string, n int) map[string]int {
	if w == nil {
		w = map[string]int{}
	}
	w[kind] += n
	return w
}

// rootElement peeks at the start of the (UTF-8) document for its root element's
// local name, lower-case, without consuming it. It returns "" for a document that
// starts with an http(s) URL (a text sitemap), and ErrNotDiscovery for anything
// else that is not XML.
func rootElement(br *bufio.Reader) (string, error) {
	head, err := br.Peek(sniffSize)
	if err != nil && len(head) == 0 && !errors.Is(err, io.EOF) {
		if errors.Is(err, ErrTooLarge) {
			return "", err
		}
		return "", fmt.Errorf("reading: %w", err)
	}
	start := bytes.TrimLeft(head, " \t\r\n")
	if len(start) == 0 {
		return "", fmt.Errorf("%w: the document is empty", ErrNotDiscovery)
	}
	if start[0] != '<' {
		if looksLikeURLLine(start) {
			return "", nil
		}
		return "", fmt.Errorf("%w: starts with %q", ErrNotDiscovery, start[:min(len(start), 32)])
	}
	d := xml.NewDecoder(bytes.NewReader(head))
	d.Strict = false
	for {
		tok, err := d.RawToken()
		if err != nil {
			return "", fmt.Errorf("%w: no root element in the first %d bytes", ErrNotDiscovery, len(head))
		}
		if se, ok := tok.(xml.StartElement); ok {
			return strings.ToLower(se.Name.Local), nil
		}
	}
}
