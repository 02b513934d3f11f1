package fetch

import (
	"strings"

	"golang.org/x/net/html/atom"

	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/robots"
)

// pageLinks is what one pass over an HTML body reads for the crawl.
type pageLinks struct {
	links     []string // a/area href values, in document order, without rel=nofollow ones
	nofollow  []string // hrefs of links marked rel="nofollow" (a hint; the engine decides)
	base      string   // the first <base href>
	canonical string   // the first <link rel=canonical href>
	feeds     []string // <link rel=alternate> hrefs of RSS/Atom/RDF feeds (RSS autodiscovery)
	robots    robots.Directives
}

// linkReader reads a page's links from its start tags: the part of extractLinks
// that the page model's tokenizer pass can drive as well (page.TagSink),
// so that an HTML page is tokenized once for both (engine/fetch onResponse).
type linkReader struct {
	pageLinks
	token string // our product token, for <meta name="TOKEN">
}

// Wants implements page.TagSink: the tags links and directives are read from.
func (r *linkReader) Wants(tag atom.Atom) bool {
	switch tag {
	case atom.A, atom.Area, atom.Base, atom.Link, atom.Meta:
		return true
	}
	return false
}

// StartTag implements page.TagSink: a[href] and area[href] (rel="nofollow" ones
// apart), the first <base href>, the first <link rel=canonical href>, feed links and
// the directives of <meta name="robots"> and <meta name="TOKEN">. Where a tag repeats
// an attribute, a, area, base and meta take the first (as browsers do) and link the
// last.
func (r *linkReader) StartTag(tag atom.Atom, attrs []page.Attr) {
	p := &r.pageLinks
	switch tag {
	case atom.A, atom.Area:
		href, ok, rel, _ := attr2(attrs, "href", "rel")
		if ok {
			if hasToken(rel, "nofollow") {
				p.nofollow = append(p.nofollow, href)
			} else {
				p.links = append(p.links, href)
			}
		}
	case atom.Base:
		if v, ok := firstAttr(attrs, "href"); ok && p.base == "" {
			p.base = v
		}
	case atom.Link:
		href, typ, rel := linkAttrs(attrs)
		if p.canonical == "" && href != "" && hasToken(rel, "canonical") {
			p.canonical = href
		}
		if href != "" && hasToken(rel, "alternate") && FeedType(typ) && len(p.feeds) < maxFeedLinks {
			p.feeds = append(p.feeds, href)
		}
	case atom.Meta:
		if name, ok, content, _ := attr2(attrs, "name", "content"); ok {
			p.robots.AddMeta(name, content, r.token)
		}
	}
}

// extractLinks reads a body's links in a tokenizer pass of their own (no tree:
// start tags only, page.ScanTags), for a page nothing else reads: an error page is
// not stored, so it has no text to extract. Resolution and normalisation are the
// frontier's job (frontier.Base).
func extractLinks(body []byte, token string) pageLinks {
	r := linkReader{token: token}
	page.ScanTags(body, &r)
	return r.pageLinks
}

// attr2 returns two attributes of a tag (the first of each), trimmed, without
// allocating a map per tag: a page has hundreds of links.
func attr2(attrs []page.Attr, n1, n2 string) (v1 string, ok1 bool, v2 string, ok2 bool) {
	for _, a := range attrs {
		switch {
		case !ok1 && string(a.Key) == n1:
			v1, ok1 = strings.TrimSpace(string(a.Val)), true
		case !ok2 && string(a.Key) == n2:
			v2, ok2 = strings.TrimSpace(string(a.Val)), true
		}
	}
	return
}

// firstAttr returns the first attribute of that name, trimmed.
func firstAttr(attrs []page.Attr, name string) (string, bool) {
	for _, a := range attrs {
		if string(a.Key) == name {
			return strings.TrimSpace(string(a.Val)), true
		}
	}
	return "", false
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// ExtractLinks returns what extractLinks finds in a stored HTML body: the raw a/area
// hrefs in document order (rel="nofollow" ones after the others: the page links to
// them too), <base href> and <link rel=canonical> (the JSONL export lists a page's
// links from its stored body).
func ExtractLinks(body []byte) (links []string, base, canonical string) {
	p := extractLinks(body, "")
	return append(p.links, p.nofollow...), p.base, p.canonical
}

// maxFeedLinks bounds the feed links kept from one page.
const maxFeedLinks = 16

// linkAttrs reads a <link>'s href, type and rel (the last of each, untrimmed).
func linkAttrs(attrs []page.Attr) (href, typ, rel string) {
	for _, a := range attrs {
		switch string(a.Key) {
		case "href":
			href = string(a.Val)
		case "type":
			typ = string(a.Val)
		case "rel":
			rel = string(a.Val)
		}
	}
	return
}

// FeedType says whether a media type names a feed, as RSS autodiscovery
// (https://www.rssboard.org/rss-autodiscovery) and Atom (RFC 4287 §7) use them in
// <link rel="alternate" type=...>.
func FeedType(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(mt))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	switch mt {
	case "application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/feed+xml":
		return true
	}
	return false
}

// readPage reads a successful HTML response for its links and, in the same
// tokenizer pass, for the page model (page.Parse), whose parse it returns for the
// block-page judge's main text and the engine's signature: one pass per page.
func readPage(body []byte, contentType, token string) (pageLinks, *page.Parsed) {
	r := linkReader{token: token}
	parsed := page.Parse(body, contentType, &r)
	return r.pageLinks, parsed
}
