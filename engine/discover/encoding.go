package discover

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Source is where a document came from: what resolves its relative links and what
// its server said of its encoding.
type Source struct {
	// URL is the document's URL after redirects: relative links (an RSS item's
	// "/blog/2013/…", a sitemap's relative <loc>) are resolved against it (after
	// any xml:base). Empty: relative links are dropped as "not_http".
	URL string
	// ContentType is the response's whole Content-Type header, parameters
	// included: its charset is used when the document declares none.
	ContentType string
}

// sniffSize is how much of a document is looked at to tell its encoding and kind.
const sniffSize = 16 << 10

var (
	xmlDeclEncoding = regexp.MustCompile(`^<\?xml[^>]*?encoding\s*=\s*["']\s*([A-Za-z0-9._:\-]+)\s*["']`)
	metaCharset     = regexp.MustCompile(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)`)
)

// detectEncoding names the encoding of a document from its first bytes: a byte-order
// mark, the XML declaration's encoding, a <meta charset> (an XHTML page), the HTTP
// charset, else UTF-8. A label that the bytes contradict is overruled (warning
// "encoding_mismatch"): a body declared GB2312 that is valid UTF-8 with non-ASCII
// text is UTF-8 (no legacy multi-byte or Cyrillic text is valid UTF-8 by chance).
// The other lie, bytes that are not UTF-8 under a UTF-8 label, is decoded with
// U+FFFD in place of the bad bytes: its links, ASCII in practice, survive.
func detectEncoding(head []byte, contentType string, doc *Doc) encoding.Encoding {
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		return unicode.UTF8BOM
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}), bytes.HasPrefix(head, []byte{0x00, '<', 0x00, '?'}):
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{'<', 0x00, '?', 0x00}):
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	}
	label := ""
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if m := xmlDeclEncoding.FindSubmatch(trimmed); m != nil {
		label = string(m[1])
	}
	if label == "" {
		if _, params, err := mime.ParseMediaType(contentType); err == nil {
			label = params["charset"]
		}
	}
	if label == "" {
		if m := metaCharset.FindSubmatch(head[:min(len(head), 2048)]); m != nil {
			label = string(m[1])
		}
	}
	if label == "" {
		return unicode.UTF8
	}
	e, name := charset.Lookup(strings.TrimSpace(label))
	if e == nil {
		doc.warn("unknown_encoding")
		return unicode.UTF8
	}
	if strings.HasPrefix(name, "utf-16") {
		// A UTF-16 document starts with a BOM or "<\x00" (above); one declared
		// UTF-16 and read here as ASCII bytes is in fact 8-bit.
		doc.warn("encoding_mismatch")
		return unicode.UTF8
	}
	if name == "utf-8" {
		if !validUTF8(head) {
			doc.warn("encoding_mismatch")
		}
		return unicode.UTF8
	}
	if highBit(head) && validUTF8(head) {
		doc.warn("encoding_mismatch")
		return unicode.UTF8
	}
	return e
}

// validUTF8 is utf8.Valid, forgiving a rune cut off at the end of a sample.
func validUTF8(b []byte) bool {
	for i := len(b) - 1; i >= 0 && i > len(b)-4; i-- {
		if b[i] < 0x80 {
			break
		}
		if utf8.RuneStart(b[i]) {
			b = b[:i]
			break
		}
	}
	return utf8.Valid(b)
}

func highBit(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// utf8Stream returns br's document as UTF-8 in a buffered reader: decoded from its
// encoding (invalid sequences become U+FFFD), with the byte-order mark and the XML
// declaration removed (the declaration's encoding is no longer true of the bytes,
// and encoding/xml would act on it), and control characters XML forbids turned
// into spaces (encoding/xml stops at them; real feeds carry them in titles).
//
// Text before the document (a PHP notice a server printed ahead of its sitemap) is
// skipped when an XML declaration or a feed's or sitemap's root follows within the
// first KiB (warning "junk_before_xml").
//
// UTF-8 is checked as it streams: a byte that is not UTF-8 becomes U+FFFD and sets
// *repaired (a UTF-8 label that lies past the sample detectEncoding looked at).
func utf8Stream(br *bufio.Reader, e encoding.Encoding, doc *Doc, repaired *bool) *bufio.Reader {
	var dec io.Reader
	if e == unicode.UTF8 {
		dec = transform.NewReader(br, utf8Repair{repaired})
	} else {
		dec = e.NewDecoder().Reader(br)
	}
	out := bufio.NewReaderSize(&xmlCleaner{r: dec}, sniffSize)
	head, _ := out.Peek(sniffSize)
	i := 0
	if bytes.HasPrefix(head, []byte("\uFEFF")) {
		i = 3
	}
	for i < len(head) && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n') {
		i++
	}
	if i < len(head) && !looksLikeURLLine(head[i:]) {
		if j := AfterNotice(head[i:]); j > 0 {
			i += j
			doc.warn("junk_before_xml")
		}
	}
	if bytes.HasPrefix(head[i:], []byte("<?xml")) {
		if end := bytes.Index(head[i:], []byte("?>")); end >= 0 {
			i += end + 2
		}
	}
	_, _ = out.Discard(i)
	return out
}

// xmlCleaner replaces the C0 control characters that XML 1.0 forbids with spaces.
type xmlCleaner struct{ r io.Reader }

func (c *xmlCleaner) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' {
			p[i] = ' '
		}
	}
	return n, err
}

// AfterNotice is where a feed or sitemap starts in head when a server printed a
// notice ahead of it (PHP's "<br />\n<b>Warning</b>: …" before a sitemap's
// <?xml): the offset of the XML declaration or root element within the first KiB,
// when what comes before it is text and <br>/<b> tags only; 0 when the document
// starts at once, -1 when none follows a notice.
func AfterNotice(head []byte) int {
	head = head[:min(len(head), 1024)]
	j := -1
	for _, p := range []string{"<?xml", "<urlset", "<sitemapindex", "<rss", "<feed", "<rdf:RDF"} {
		if k := bytes.Index(head, []byte(p)); k >= 0 && (j < 0 || k < j) {
			j = k
		}
	}
	if j <= 0 {
		return j
	}
	junk := head[:j]
	for _, tag := range []string{"<br />", "<br/>", "<br>", "<b>", "</b>"} {
		junk = bytes.ReplaceAll(junk, []byte(tag), nil)
	}
	if bytes.IndexByte(junk, '<') >= 0 {
		return -1
	}
	return j
}

// utf8Repair passes UTF-8 through, replacing each byte that is not part of a valid
// sequence with U+FFFD and saying so in *bad.
type utf8Repair struct{ bad *bool }

func (utf8Repair) Reset() {}

func (t utf8Repair) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for nSrc < len(src) {
		k := min(len(src)-nSrc, len(dst)-nDst, 4096)
		if k == 0 {
			return nDst, nSrc, transform.ErrShortDst
		}
		// Fast path: a block of valid UTF-8 (a sequence cut at its end is left
		// for the next block) is copied as it is.
		cut := k
		for i := k - 1; i >= 0 && i > k-utf8.UTFMax; i-- {
			if utf8.RuneStart(src[nSrc+i]) {
				if !utf8.FullRune(src[nSrc+i : nSrc+k]) {
					cut = i
				}
				break
			}
		}
		if cut > 0 && utf8.Valid(src[nSrc:nSrc+cut]) {
			copy(dst[nDst:], src[nSrc:nSrc+cut])
			nDst, nSrc = nDst+cut, nSrc+cut
			continue
		}
		// Slow path over this block only: each byte is judged at most twice.
		for end := nSrc + k; nSrc < end; {
			r, size := utf8.DecodeRune(src[nSrc:])
			if r == utf8.RuneError && size == 1 {
				if !atEOF && !utf8.FullRune(src[nSrc:]) {
					return nDst, nSrc, transform.ErrShortSrc
				}
				if nDst+3 > len(dst) {
					return nDst, nSrc, transform.ErrShortDst
				}
				nDst += copy(dst[nDst:], "\uFFFD")
				nSrc++
				*t.bad = true
				continue
			}
			if nDst+size > len(dst) {
				return nDst, nSrc, transform.ErrShortDst
			}
			nDst += copy(dst[nDst:], src[nSrc:nSrc+size])
			nSrc += size
		}
	}
	return nDst, nSrc, nil
}
