package discover

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"regexp"
	"strings"
)

// parseEmbedded finds an Atom <feed> or an <rss>/<rdf:RDF> inside an XHTML page
// (root <html>) and reads it as a feed. The page is read whole (it is capped like
// any page: Limits.MaxBytes) and scanned leniently (HTML entities and unclosed
// elements as HTML has them); the feed's own bytes go to the feed parser. A page
// with none is ErrNotDiscovery: an HTML page.
func parseEmbedded(br *bufio.Reader, base *url.URL, lim Limits) (Doc, error) {
	page, err := io.ReadAll(br)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return Doc{Kind: KindFeed, Warnings: map[string]int{"truncated": 1}}, fmt.Errorf("xhtml page: %w", err)
		}
		return Doc{}, fmt.Errorf("xhtml page: %w", err)
	}
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil } // already UTF-8
	for {
		at := d.InputOffset()
		tok, err := d.Token()
		if err != nil {
			return Doc{}, fmt.Errorf("%w: an HTML page with no feed inside", ErrNotDiscovery)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch strings.ToLower(se.Name.Local) {
		case "feed", "rss", "rdf":
		default:
			continue
		}
		d.AutoClose = nil // an RSS <link> has content, unlike HTML's
		if err := d.Skip(); err != nil {
			return Doc{}, fmt.Errorf("%w: the feed inside the page is cut off: %v", ErrNotDiscovery, err)
		}
		inner := page[at:d.InputOffset()]
		if !strings.EqualFold(se.Name.Local, "rss") {
			return parseFeed(bytes.NewReader(withNamespaces(inner, se)), base, lim)
		}
		doc, err := parseFeed(bytes.NewReader(closeVoidLinks(inner)), base, lim)
		if len(doc.Entries) == 0 {
			if scanned := scanItemLinks(inner, base, lim); len(scanned.Entries) > 0 {
				return scanned, nil
			}
		}
		return doc, err
	}
}

const atomNS = "http://www.w3.org/2005/Atom"

// rssLink is an RSS <link> with its text, closed or not.
var rssLink = regexp.MustCompile(`(?i)<link>([^<]*)(</link>)?`)

// itemStart finds an RSS <item>.
var itemStart = regexp.MustCompile(`(?i)<item[\s>]`)

// scanItemLinks reads the item links of an RSS feed an HTML serialiser mangled past
// what a feed parser reads (void <link>s, <image> become <img>, an unclosed
// <atom:link> swallowing the items): the text after each <item>'s first <link>.
// The items are counted as "html_serialised".
func scanItemLinks(rss []byte, base *url.URL, lim Limits) Doc {
	doc := Doc{Kind: KindFeed}
	starts := itemStart.FindAllIndex(rss, lim.MaxFeedItems+1)
	for i, st := range starts {
		end := len(rss)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		m := rssLink.FindSubmatch(rss[st[0]:end])
		if m == nil {
			doc.warn("empty_loc")
			continue
		}
		u, ok := resolveLink(base, html.UnescapeString(string(m[1])))
		switch {
		case !ok:
			doc.warn("not_http")
		case len(doc.Entries) >= lim.MaxFeedItems:
			doc.warn("too_many_urls")
			return doc
		default:
			doc.Entries = append(doc.Entries, Entry{URL: u})
			doc.warn("html_serialised")
		}
	}
	return doc
}

// closeVoidLinks closes the RSS <link> elements of a feed that an HTML serialiser
// wrote out (a browser's "save page" of a feed, served as text/html): HTML's <link>
// is void, so "<link>https://…/" comes with no </link> and the URL is the text
// after it.
func closeVoidLinks(rss []byte) []byte {
	return rssLink.ReplaceAll(rss, []byte("<link>$1</link>"))
}

// withNamespaces writes the feed element's namespace back onto its start tag when
// the page declared it above (<html xmlns:atom="…"> … <atom:feed>), so the feed
// parser, which sees only the feed's bytes, still knows it.
func withNamespaces(inner []byte, se xml.StartElement) []byte {
	if se.Name.Space == "" || bytes.Contains(inner[:min(len(inner), 512)], []byte("xmlns")) {
		return inner
	}
	end := bytes.IndexAny(inner, " \t\r\n/>")
	if end < 0 {
		return inner
	}
	tag := string(inner[1:end])
	var decl string
	switch i := strings.IndexByte(tag, ':'); {
	case i >= 0:
		decl = ` xmlns:` + tag[:i] + `="` + se.Name.Space + `"`
	case se.Name.Space == atomNS:
		decl = ` xmlns="` + atomNS + `"`
	default:
		return inner // an <rss> in the page's XHTML namespace: RSS has none
	}
	out := make([]byte, 0, len(inner)+len(decl))
	out = append(out, inner[:end]...)
	out = append(out, decl...)
	return append(out, inner[end:]...)
}
