package discover

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// maxValue bounds the text kept from one element: the protocol caps a <loc> at 2,048
// characters, so anything far longer is junk and is dropped with a warning instead of
// being accumulated.
const maxValue = 8 << 10

// parseSitemap streams a <urlset> (index=false) or <sitemapindex> token by token:
// memory is one entry at a time plus the entries kept, never the document.
func parseSitemap(r io.Reader, lim Limits, index bool) (Doc, error) {
	doc := Doc{Kind: KindSitemap}
	item := "url"
	if index {
		doc.Kind, item = KindIndex, "sitemap"
	}
	d := xml.NewDecoder(r)
	d.Strict = false // real sitemaps carry bare & in URLs; entities stay unexpanded either way
	var (
		in    bool   // inside an <url>/<sitemap>
		field string // local name of the element whose text we collect
		text  strings.Builder
		long  bool
		cur   Entry
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
			switch {
			case name == item:
				in, cur = true, Entry{}
			case in:
				field, long = name, false
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
			name := strings.ToLower(t.Name.Local)
			if in && name == field {
				if long {
					doc.warn("long_value")
				} else {
					sitemapField(&doc, &cur, field, strings.TrimSpace(text.String()))
				}
				field = ""
				continue
			}
			if in && name == item {
				in = false
				if cur.URL == "" {
					doc.warn("empty_loc")
					continue
				}
				if len(doc.Entries) >= lim.MaxURLs {
					doc.warn("too_many_urls")
					return doc, nil // bounded: the rest is not read
				}
				doc.Entries = append(doc.Entries, cur)
			}
		}
	}
}

// sitemapField stores one child element of an <url> or <sitemap>, by local name
// (the namespace prefix of news: varies between sites).
func sitemapField(doc *Doc, e *Entry, field, v string) {
	switch field {
	case "loc":
		if !strings.HasPrefix(strings.ToLower(v), "http://") && !strings.HasPrefix(strings.ToLower(v), "https://") {
			if v != "" {
				doc.warn("not_http")
			}
			return
		}
		e.URL = v
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
