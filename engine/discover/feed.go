package discover

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/rss"
)

// parseFeed reads an RSS 2.0, RSS 1.0 (RDF) or Atom feed with gofeed, which parses
// RSS and Atom incrementally over encoding/xml (no DTD entity expansion, no external
// entities) and normalises their many date formats. Items without a link are
// skipped with a warning; at most lim.MaxFeedItems are kept. gofeed resolves links
// against xml:base; what is still relative is resolved against base, the
// document's URL. An RSS item with no <link> is its <guid> when that is a URL, or
// when the guid says isPermaLink="true" (RSS 2.0's permalink, relative ones too).
//
// A feed cut off or broken half way (a server that stopped writing, a stray
// character XML forbids, the size cap) keeps the items before the break, as a
// sitemap does: the feed is read again up to the break with its open elements
// closed (warning "malformed", or "truncated" at the cap, whose error is returned
// with the items).
func parseFeed(r io.Reader, base *url.URL, lim Limits) (Doc, error) {
	doc := Doc{Kind: KindFeed}
	body, readErr := io.ReadAll(r)
	if readErr != nil && !errors.Is(readErr, ErrTooLarge) {
		return doc, fmt.Errorf("feed: %w", readErr)
	}
	body = directoryBases(body)
	f, err := newFeedParser().Parse(bytes.NewReader(body))
	if err != nil || readErr != nil {
		if fixed, ferr := newFeedParser().Parse(bytes.NewReader(closeOpenElements(body))); ferr == nil && len(fixed.Items) > 0 {
			f, err = fixed, nil
			if readErr == nil {
				doc.warn("malformed")
			}
		}
	}
	if readErr != nil {
		doc.warn("truncated")
		if f == nil {
			return doc, fmt.Errorf("feed: %w", readErr)
		}
	} else if err != nil {
		return doc, fmt.Errorf("feed: %w", err)
	}
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		link := strings.TrimSpace(it.Link)
		if link == "" && len(it.Links) > 0 {
			link = strings.TrimSpace(it.Links[0])
		}
		if link == "" {
			if g := strings.TrimSpace(it.GUID); strings.HasPrefix(strings.ToLower(g), "http") {
				link = g
			}
		}
		if link == "" {
			doc.warn("empty_loc")
			continue
		}
		link, ok := resolveLink(base, htmlEntities(link))
		if !ok {
			doc.warn("not_http")
			continue
		}
		if len(doc.Entries) >= lim.MaxFeedItems {
			doc.warn("too_many_urls")
			break
		}
		e := Entry{URL: link, Title: it.Title, Keywords: it.Categories}
		e.Published = feedDate(&doc, it.PublishedParsed, it.Published)
		e.Modified = feedDate(&doc, it.UpdatedParsed, it.Updated)
		doc.Entries = append(doc.Entries, e)
	}
	if readErr != nil {
		return doc, fmt.Errorf("feed after %d items: %w", len(doc.Entries), readErr)
	}
	return doc, nil
}

// newFeedParser is gofeed's parser with permalinkTranslator for RSS.
func newFeedParser() *gofeed.Parser {
	p := gofeed.NewParser()
	p.RSSTranslator = permalinkTranslator{}
	return p
}

// permalinkTranslator is gofeed's RSS translation, except that an item with no
// <link> whose guid is a relative permalink takes the guid as its link. Real feeds
// do this: the Hugging Face blog's items carry only
// <guid isPermaLink="true">/blog/intro-graphml</guid>. gofeed keeps only the guid's
// text, so the attribute is looked at here: isPermaLink="false" is an identifier.
// RSS 2.0 makes an unsaid isPermaLink true, but many feeds put bare identifiers
// there ("12345"): a relative guid counts only when it is a path (has a "/") and
// names no other scheme ("tag:", "urn:" stay identifiers) and its first segment is
// no host name written without its scheme ("www.a.test/news/1"). gofeed reads an
// unsaid isPermaLink as "true", so the two cannot be told apart here.
type permalinkTranslator struct{}

func (permalinkTranslator) Translate(feed any) (*gofeed.Feed, error) {
	f, err := (&gofeed.DefaultRSSTranslator{}).Translate(feed)
	rf, ok := feed.(*rss.Feed)
	if err != nil || !ok || f == nil || len(f.Items) != len(rf.Items) {
		return f, err
	}
	for i, it := range rf.Items {
		out := f.Items[i]
		if it == nil || out == nil || it.GUID == nil || strings.TrimSpace(out.Link) != "" || len(out.Links) > 0 {
			continue
		}
		g := strings.TrimSpace(it.GUID.Value)
		if strings.EqualFold(strings.TrimSpace(it.GUID.IsPermalink), "false") || !strings.Contains(g, "/") {
			continue
		}
		if first, _, _ := strings.Cut(g, "/"); strings.Contains(first, ".") && first != "." && first != ".." {
			continue // "www.a.test/news/1": a host written without its scheme, not a path on this one
		}
		if u, err := url.Parse(g); err == nil && u.Scheme == "" && u.Opaque == "" {
			out.Link = g
		}
	}
	return f, nil
}

// closeOpenElements cuts a broken XML document after its last whole token and
// closes the elements still open there, innermost first.
func closeOpenElements(body []byte) []byte {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	var open []string
	cut := int64(0)
	for {
		tok, err := d.RawToken()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			open = append(open, qualified(t.Name))
		case xml.EndElement:
			n := qualified(t.Name)
			for i := len(open) - 1; i >= 0; i-- {
				if open[i] == n {
					open = open[:i]
					break
				}
			}
		}
		cut = d.InputOffset()
	}
	out := append([]byte(nil), body[:cut]...)
	for i := len(open) - 1; i >= 0; i-- {
		out = append(out, "</"+open[i]+">"...)
	}
	return out
}

func qualified(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// feedDate is gofeed's parsed date, or a "bad_date" warning when the feed gave a
// date gofeed could not read.
func feedDate(doc *Doc, parsed *time.Time, raw string) time.Time {
	if parsed != nil && parsed.Year() >= 1990 {
		return *parsed
	}
	if strings.TrimSpace(raw) != "" {
		doc.warn("bad_date")
	}
	return time.Time{}
}

// xmlBase is an xml:base attribute and its value.
var xmlBase = regexp.MustCompile(`xml:base\s*=\s*("[^"<>]*"|'[^'<>]*')`)

// directoryBases rewrites each xml:base to the directory it names, so that gofeed,
// which resolves a link against its xml:base as if the base's path were a
// directory ("…/blog/atom.xml" + "post/1" = "…/blog/atom.xml/post/1"), resolves it as
// RFC 3986 and every other feed reader do ("…/blog/post/1"). A base that already
// ends in "/" is left as it is.
func directoryBases(body []byte) []byte {
	if !bytes.Contains(body, []byte("xml:base")) {
		return body
	}
	return xmlBase.ReplaceAllFunc(body, func(m []byte) []byte {
		sub := xmlBase.FindSubmatch(m)
		quote, v := sub[1][0], string(sub[1][1:len(sub[1])-1])
		u, err := url.Parse(strings.TrimSpace(v))
		if err != nil || strings.HasSuffix(u.Path, "/") && u.RawQuery == "" && u.Fragment == "" {
			return m
		}
		if i := strings.LastIndexByte(u.Path, '/'); i >= 0 {
			u.Path = u.Path[:i+1]
		} else if u.Host != "" {
			u.Path = "/"
		} else {
			u.Path = ""
		}
		u.RawPath, u.RawQuery, u.Fragment = "", "", ""
		return []byte("xml:base=" + string(quote) + u.String() + string(quote))
	})
}

// htmlEntities replaces the HTML named entities XML does not define (&eacute;,
// &nbsp;) in a link as read: a feed template that escapes as HTML writes them, and
// a reader takes each for its character. The XML parser left them as written (an
// Atom href), so "&eacute;" would otherwise stay in the path. XML's own five are
// not among them: after the parse, a "&amp;" left in a link was written
// "&amp;amp;" and is kept.
func htmlEntities(link string) string {
	if !strings.Contains(link, "&") {
		return link
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(link, '&')
		if i < 0 {
			break
		}
		j := strings.IndexByte(link[i:], ';')
		name := ""
		if j > 1 {
			name = link[i+1 : i+j]
		}
		r, ok := xml.HTMLEntity[name]
		switch name {
		case "amp", "lt", "gt", "quot", "apos":
			ok = false
		}
		if !ok {
			b.WriteString(link[:i+1])
			link = link[i+1:]
			continue
		}
		b.WriteString(link[:i])
		b.WriteString(r)
		link = link[i+j+1:]
	}
	b.WriteString(link)
	return b.String()
}
