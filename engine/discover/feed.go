package discover

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
)

// parseFeed reads an RSS 2.0, RSS 1.0 (RDF) or Atom feed with gofeed, which parses
// RSS and Atom incrementally over encoding/xml (no DTD entity expansion, no external
// entities) and normalises their many date formats. Items without a link are
// skipped with a warning; at most lim.MaxFeedItems are kept. gofeed resolves links
// against xml:base; what is still relative is resolved against base, the
// document's URL. An RSS item with no <link> is its <guid> when that is a URL (a
// permalink, as RSS 2.0 defines it).
func parseFeed(r io.Reader, base *url.URL, lim Limits) (Doc, error) {
	doc := Doc{Kind: KindFeed}
	f, err := gofeed.NewParser().Parse(r)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			doc.warn("truncated")
		}
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
		link, ok := resolveLink(base, link)
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
	return doc, nil
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
