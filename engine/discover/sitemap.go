package discover

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// maxValue bounds the text kept from one element: the protocol caps a <loc> at 2,048
// characters, so anything far longer is junk and is dropped with a warning instead of
// being accumulated.
const maxValue = 8 << 10

// parseSitemap streams a <urlset> (index=false) or <sitemapindex> token by token:
// memory is one entry at a time plus the entries kept, never the document.
//
// Only a <loc> and <lastmod> that are the <url>'s own children, in its namespace,
// are the page's: the image and video extensions carry <image:loc>,
// <video:content_loc> and the like deeper down or in their own namespace, and those
// are media (counted in Doc.Media), never the page. Google's news extension gives
// the publication date, title and keywords; an <xhtml:link rel="alternate"
// hreflang="…" href="…"> gives the page in another language (Entry.Alternates).
func parseSitemap(r io.Reader, base *url.URL, lim Limits, index bool) (Doc, error) {
	doc := Doc{Kind: KindSitemap}
	item := "url"
	if index {
		doc.Kind, item = KindIndex, "sitemap"
	}
	d := xml.NewDecoder(r)
	d.Strict = false // real sitemaps carry bare & in URLs; DOCTYPE entities stay unexpanded either way
	// HTML's named entities (&eacute;, &nbsp;), which a template escaping as HTML
	// writes and XML does not define, are their characters (feed.go's htmlEntities).
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil } // already UTF-8
	var (
		stack      []xml.Name // the open elements of the current entry, the entry first
		field      string     // what the text being collected is: "loc", "lastmod", "news:title"...
		fieldDepth int
		text       strings.Builder
		long       bool
		cur        Entry
		alternates int
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return doc, nil
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				doc.warn("truncated")
				return doc, fmt.Errorf("%s after %d entries: %w", doc.Kind, len(doc.Entries), err)
			}
			if len(doc.Entries) > 0 {
				// A document cut off or broken half way still told us its first
				// entries; keep them and say so.
				doc.warn("malformed")
				return doc, nil
			}
			return doc, fmt.Errorf("%s: malformed XML: %v", doc.Kind, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if len(stack) == 0 {
				if name == item {
					stack, cur = append(stack, t.Name), Entry{}
				}
				continue
			}
			stack = append(stack, t.Name)
			if field != "" {
				continue // markup inside a value: its text still counts
			}
			parent := strings.ToLower(stack[len(stack)-2].Local)
			own := len(stack) == 2 && t.Name.Space == stack[0].Space
			switch {
			case own && (name == "loc" || name == "lastmod"):
				field = name
			case name == "link" && len(stack) == 2 && !index:
				if alternates >= lim.MaxURLs {
					doc.warn("too_many_urls")
					continue
				}
				if u, ok := hreflangAlternate(t, base); ok {
					cur.Alternates = append(cur.Alternates, u)
					alternates++
				}
			case name == "publication_date" || name == "keywords":
				field = name
			case name == "title" && parent == "news":
				field = name
			case parent == "image" && name == "loc", parent == "video" && (name == "content_loc" || name == "player_loc"):
				doc.Media++
			}
			if field != "" {
				fieldDepth, long = len(stack), false
				text.Reset()
			}
		case xml.CharData:
			if field != "" && !long {
				if text.Len()+len(t) > maxValue {
					long = true
				} else {
					text.Write(t)
				}
			}
		case xml.EndElement:
			if len(stack) == 0 {
				continue
			}
			if field != "" && len(stack) == fieldDepth {
				if long {
					doc.warn("long_value")
				} else {
					sitemapField(&doc, &cur, base, field, strings.TrimSpace(text.String()))
				}
				field = ""
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				continue
			}
			if cur.URL == "" {
				doc.warn("empty_loc")
				continue
			}
			cur.Alternates = dropURL(cur.Alternates, cur.URL)
			if len(doc.Entries) >= lim.MaxURLs {
				doc.warn("too_many_urls")
				return doc, nil // bounded: the rest is not read
			}
			doc.Entries = append(doc.Entries, cur)
		}
	}
}

// hreflangAlternate reads an <xhtml:link rel="alternate" hreflang="…" href="…">.
func hreflangAlternate(t xml.StartElement, base *url.URL) (string, bool) {
	var rel, href, lang string
	for _, a := range t.Attr {
		switch strings.ToLower(a.Name.Local) {
		case "rel":
			rel = strings.ToLower(strings.TrimSpace(a.Value))
		case "href":
			href = a.Value
		case "hreflang":
			lang = a.Value
		}
	}
	if rel != "alternate" || lang == "" {
		return "", false
	}
	return resolveLink(base, href)
}

// dropURL removes u from list (a page listed as its own alternate).
func dropURL(list []string, u string) []string {
	out := list[:0]
	for _, v := range list {
		if v != u {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// sitemapField stores one value of an <url> or <sitemap>.
func sitemapField(doc *Doc, e *Entry, base *url.URL, field, v string) {
	switch field {
	case "loc":
		u, ok := resolveLink(base, v)
		if !ok {
			if v != "" {
				doc.warn("not_http")
			}
			return
		}
		e.URL = u
	case "lastmod":
		e.Modified = parseDate(doc, v)
	case "publication_date": // Google news sitemap
		e.Published = parseDate(doc, v)
	case "title":
		e.Title = v
	case "keywords":
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				e.Keywords = append(e.Keywords, k)
			}
		}
	}
}

// w3cLayouts are the W3C Datetime profile (https://www.w3.org/TR/NOTE-datetime) the
// sitemaps protocol names for <lastmod>, plus RFC 1123 seen in the wild.
var w3cLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02",
	"2006-01",
	"2006",
	time.RFC1123Z,
	time.RFC1123,
}

// parseDate reads a W3C datetime; an unreadable one counts a "bad_date" warning and
// gives the zero time (no hint), never a guess.
func parseDate(doc *Doc, v string) time.Time {
	if v == "" {
		return time.Time{}
	}
	for _, l := range w3cLayouts {
		if t, err := time.Parse(l, v); err == nil {
			if t.Year() < 1990 || t.Year() > 9000 {
				break
			}
			return t
		}
	}
	doc.warn("bad_date")
	return time.Time{}
}
