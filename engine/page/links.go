package page

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/html/atom"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
	"github.com/crawlconsole/crawlconsole/engine/robots"
)

// Links is what a page's tokenizer pass reads for the crawl.
type Links struct {
	Links     []string // a/area href values, in document order, without rel=nofollow ones
	Nofollow  []string // hrefs of links marked rel="nofollow" (a hint; the engine decides)
	Base      string   // the first <base href>
	Canonical string   // the first <link rel=canonical href>
	Feeds     []string // <link rel=alternate> hrefs of RSS/Atom/RDF feeds (RSS autodiscovery), for discovery
	// FeedsDropped counts the feed links past MaxFeedLinks, left out of Feeds.
	FeedsDropped int
	Robots       robots.Directives
}

// LinkReader is the TagSink that reads a page's Links from its start tags during the
// page's one tokenizer pass (Read, Parse, ScanTags).
type LinkReader struct {
	Links
	Token string // our product token, for <meta name="TOKEN">

	// The a/area hrefs, end to end, until the pass is done (Done): a page's links
	// are then one string and one slice or two, not a string and a slice growth
	// each (a crawler reads every page's links).
	hrefs *hrefScratch
}

// hrefScratch holds the hrefs of a pass.
type hrefScratch struct {
	buf  []byte
	ends []hrefEnd
}

// hrefEnd is where an href ends in hrefScratch.buf, and whether it was rel=nofollow.
type hrefEnd struct {
	end      int
	nofollow bool
}

// hrefScratches recycles the scratch of finished passes.
var hrefScratches = sync.Pool{New: func() any { return new(hrefScratch) }}

// addHref keeps a link's trimmed href.
func (r *LinkReader) addHref(href []byte, nofollow bool) {
	if r.hrefs == nil {
		r.hrefs = hrefScratches.Get().(*hrefScratch)
	}
	h := r.hrefs
	h.buf = append(h.buf, href...)
	h.ends = append(h.ends, hrefEnd{end: len(h.buf), nofollow: nofollow})
}

// Done ends the pass: the hrefs kept become Links and Nofollow, in document order.
// A pass that hands its tags to a LinkReader calls it before reading Links.
func (r *LinkReader) Done() {
	h := r.hrefs
	if h == nil {
		return
	}
	r.hrefs = nil
	all := string(h.buf)
	nofollow := 0
	for _, e := range h.ends {
		if e.nofollow {
			nofollow++
		}
	}
	if n := len(h.ends) - nofollow; n > 0 {
		r.Links.Links = slices.Grow(r.Links.Links, n)
	}
	if nofollow > 0 {
		r.Nofollow = slices.Grow(r.Nofollow, nofollow)
	}
	start := 0
	for _, e := range h.ends {
		if e.nofollow {
			r.Nofollow = append(r.Nofollow, all[start:e.end])
		} else {
			r.Links.Links = append(r.Links.Links, all[start:e.end])
		}
		start = e.end
	}
	if cap(h.buf) <= 1<<16 && cap(h.ends) <= 1<<12 {
		h.buf, h.ends = h.buf[:0], h.ends[:0]
		hrefScratches.Put(h)
	}
}

// Wants implements TagSink: the tags links and directives are read from.
func (r *LinkReader) Wants(tag atom.Atom) bool {
	switch tag {
	case atom.A, atom.Area, atom.Base, atom.Link, atom.Meta:
		return true
	}
	return false
}

// StartTag implements TagSink: a[href] and area[href] (rel="nofollow" ones
// apart), the first <base href>, the first <link rel=canonical href>, feed links and
// the directives of <meta name="robots"> and <meta name="TOKEN">. Where a tag repeats
// an attribute, a, area, base and meta take the first (as browsers do) and link the
// last.
func (r *LinkReader) StartTag(tag atom.Atom, attrs []Attr) {
	p := &r.Links
	switch tag {
	case atom.A, atom.Area:
		if href, ok, rel, _ := attr2(attrs, "href", "rel"); ok {
			r.addHref(href, textutil.HasToken(string(rel), "nofollow"))
		}
	case atom.Base:
		if v, ok := textutil.FirstAttr(attrs, "href"); ok && p.Base == "" {
			p.Base = v
		}
	case atom.Link:
		href, typ, rel := textutil.LinkAttrs(attrs)
		if p.Canonical == "" && href != "" && textutil.HasToken(rel, "canonical") {
			p.Canonical = href
		}
		if href != "" && textutil.HasToken(rel, "alternate") && FeedType(typ) {
			if len(p.Feeds) < MaxFeedLinks {
				p.Feeds = append(p.Feeds, href)
			} else {
				p.FeedsDropped++
			}
		}
	case atom.Meta:
		if name, ok, content, _ := attr2(attrs, "name", "content"); ok && r.robotsMeta(name) {
			p.Robots.AddMeta(string(name), string(content), r.Token)
		}
	}
}

// ScanLinks reads a body's links in a tokenizer pass of their own (no tree: start
// tags only, ScanTags), for a page nothing else reads. Resolution and normalisation
// are the frontier's job (frontier.Base). token is the product token that
// <meta name="TOKEN"> addresses.
func ScanLinks(body []byte, token string) Links {
	r := LinkReader{Token: token}
	ScanTags(body, &r)
	r.Done()
	return r.Links
}

// robotsMeta reports whether a <meta name> is one whose directives Robots.AddMeta
// reads: "robots" or our token, in any case. The others (a page has a dozen
// metas) are not copied.
func (r *LinkReader) robotsMeta(name []byte) bool {
	n := bytes.TrimSpace(name)
	return strings.EqualFold(string(n), "robots") || r.Token != "" && strings.EqualFold(string(n), r.Token)
}

// attr2 returns two attributes of a tag (the first of each), trimmed, without
// allocating a map per tag: a page has hundreds of links. The values are the
// tag's (valid while the tokenizer is on it).
func attr2(attrs []Attr, n1, n2 string) (v1 []byte, ok1 bool, v2 []byte, ok2 bool) {
	for _, a := range attrs {
		switch {
		case !ok1 && string(a.Key) == n1:
			v1, ok1 = bytes.TrimSpace(a.Val), true
		case !ok2 && string(a.Key) == n2:
			v2, ok2 = bytes.TrimSpace(a.Val), true
		}
	}
	return
}

// MaxFeedLinks bounds the feed links kept from one page. A blog engine's home
// page announces one feed per category, tag or language (a Hugo or WordPress site:
// dozens); each kept link is a document polled for as long as the crawl runs, so a
// page of thousands (generated, or a trap) must not make as many sources. Those
// past it are counted (FeedsDropped) and said once per page.
const MaxFeedLinks = 64

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

// Read reads an HTML response for its links and, in the same tokenizer pass, for
// the page model (Parse), whose parse it returns for the block-page judge's main
// text and the engine's signature: one pass per page.
func Read(body []byte, contentType, token string) (Links, *Parsed) {
	r := LinkReader{Token: token}
	parsed := Parse(body, contentType, &r)
	r.Done()
	return r.Links, parsed
}
