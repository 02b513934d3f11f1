package sandbox

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"time"
)

// Rendering. A page is its content — deterministic from (seed, page, content version) —
// wrapped in boilerplate that churns on every request without being a change: the
// site's clock, a rotating ad block, a view counter and a request id (M2 must not count
// those as changes). Content lives in <article>; boilerplate in <header>, <aside> and
// <footer>.

// response is a rendered answer before transport faults are applied.
type response struct {
	status     int
	ctype      string
	etag       string
	lastMod    time.Time // real (web for a model without clock); zero: none
	location   string
	retryAfter int // seconds; 0: none
	body       []byte
}

var ads = []string{
	"Subscribe today: three months for the price of one.",
	"Ferry tickets to the islands — book before Friday.",
	"New: the morning briefing, straight to your inbox.",
	"Local plumbers, rated by your neighbours.",
	"Win two tickets to the harbour festival.",
	"Mortgage rates are moving. Compare offers now.",
	"Learn a language in ten minutes a day.",
	"Support independent journalism — donate.",
}

// paragraphs per article; each change rewrites the first half and pushes the previous
// first half down, so version k differs from k-1 in at least half of its text.
const (
	articleSlots = 6
	newPerChange = 3
)

// respond renders page p as served at web time at for request number reqNo.
func (w *Web) respond(buf []byte, p page, at time.Time, reqNo int64) response {
	switch {
	case !p.valid():
		return response{status: http.StatusNotFound, ctype: "text/html; charset=utf-8",
			body: append(buf, "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n"...)}
	case p.kind == pkDead:
		return response{} // a dead host does not resolve: nothing answers
	case p.kind == pkRobots:
		return response{status: http.StatusOK, ctype: "text/plain; charset=utf-8", body: w.appendRobots(buf, p.h)}
	}
	fault := w.faultOf(p)
	key := p.key()
	switch fault {
	case FaultReset:
		return response{}
	case Fault5xx:
		st := status5xx(key)
		r := response{status: st, ctype: "text/html; charset=utf-8",
			body: append(buf, "<!DOCTYPE html><html><body><h1>"+strconv.Itoa(st)+" "+http.StatusText(st)+"</h1><p>The server is having a bad day.</p></body></html>\n"...)}
		if st == http.StatusServiceUnavailable {
			r.retryAfter = w.realSeconds(2 * time.Minute)
		}
		return r
	case FaultRedirectChain, FaultRedirectLoop:
		next := p
		next.hop = p.hop + 1
		if fault == FaultRedirectLoop && next.hop == redirectLoopLen {
			next.hop = 0
		}
		if fault == FaultRedirectLoop || p.hop < w.cfg.Faults.RedirectHops {
			return response{status: http.StatusFound, location: w.urlOf(next), ctype: "text/html; charset=utf-8",
				body: append(buf, "<html><body>Moved.</body></html>\n"...)}
		}
	case FaultBinary:
		return response{status: http.StatusOK, ctype: "text/html; charset=utf-8", body: append(buf, binaryBody(key)...)}
	}
	version, changed := w.version(p, at)
	r := response{status: http.StatusOK, ctype: "text/html; charset=utf-8",
		etag: etagOf(key, version), lastMod: w.realTime(changed).Truncate(time.Second)}
	r.body = w.appendHTML(buf, p, at, reqNo, version)
	switch fault {
	case FaultMalformed:
		r.body = mangleHTML(r.body)
	case FaultBadUTF8:
		r.body = breakUTF8(r.body)
	}
	return r
}

// etagOf is a weak validator of the content version: boilerplate differs byte for byte
// between two responses with the same ETag, content does not.
func etagOf(key uint64, version int) string {
	var b [8]byte
	v := mix(key, uint64(version), 0xe7a6)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return `W/"` + hex.EncodeToString(b[:]) + `"`
}

// Render returns url as served at web time at to request number requestNo (which
// drives the churning boilerplate). It applies content faults (5xx, redirects, binary,
// malformed, bad UTF-8) but not transport ones: a reset or a dead host gives status 0,
// a huge body is cut to its first 64 KiB, slow and trickled pages come whole. Unknown
// URLs give 404.
func (w *Web) Render(url string, at time.Time, requestNo int64) (status int, header http.Header, body []byte) {
	p := w.lookupURL(url)
	r := w.respond(nil, p, at, requestNo)
	if r.status == 0 {
		return 0, http.Header{}, nil
	}
	if w.faultOf(p) == FaultHuge {
		r.body = appendHugeBlock(r.body[:0], p, len(r.body))
	}
	return r.status, r.header(), r.body
}

func (r *response) header() http.Header {
	h := http.Header{}
	if r.ctype != "" {
		h.Set("Content-Type", r.ctype)
	}
	if r.etag != "" {
		h.Set("ETag", r.etag)
	}
	if !r.lastMod.IsZero() {
		h.Set("Last-Modified", r.lastMod.UTC().Format(http.TimeFormat))
	}
	if r.location != "" {
		h.Set("Location", r.location)
	}
	if r.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(r.retryAfter))
	}
	h.Set("Content-Length", strconv.Itoa(len(r.body)))
	return h
}

// appendHTML writes the whole document: boilerplate around the content.
func (w *Web) appendHTML(buf []byte, p page, at time.Time, reqNo int64, version int) []byte {
	s := p.h.site
	c := corpora[s.lang]
	titleRNG := newPRNG(p.key() ^ 0x7171e)
	titleStart := len(buf)
	buf = w.appendTitleOf(buf, p, &titleRNG)
	titleText := string(buf[titleStart:])
	buf = buf[:titleStart]

	buf = append(buf, "<!DOCTYPE html>\n<html lang=\""...)
	buf = append(buf, s.Lang...)
	buf = append(buf, "\"><head><meta charset=\"utf-8\"><title>"...)
	buf = append(buf, titleText...)
	buf = append(buf, " — "...)
	buf = append(buf, s.Name...)
	buf = append(buf, "</title></head>\n<body>\n<header><a href=\""...)
	buf = w.appendURL(buf, page{h: s.hosts[0], kind: pkEntry})
	buf = append(buf, "\">"...)
	buf = append(buf, s.Name...)
	buf = append(buf, "</a> · <time>"...)
	buf = w.date(at).UTC().AppendFormat(buf, time.RFC3339)
	buf = append(buf, "</time></header>\n<aside class=\"ad\">"...)
	buf = append(buf, ads[uint64(reqNo)%uint64(len(ads))]...)
	buf = append(buf, " <small>ad "...)
	buf = strconv.AppendUint(buf, mix(uint64(reqNo), 0xad)%100000, 10)
	buf = append(buf, "</small></aside>\n<main>\n<article>\n<h1>"...)
	buf = append(buf, titleText...)
	buf = append(buf, "</h1>\n"...)
	if w.cfg.RealDates && p.leaf() {
		// Every page exists from the web's start (Epoch). Under real dates an article
		// or post says when, below its headline as a news page does: otherwise the
		// only date on it is the header's, the serving time, which a crawler reads as
		// published, and the demo's publish-to-store delay reads the fetch's own second.
		pub := w.date(w.cfg.Epoch).UTC()
		buf = append(buf, "<p class=\"dateline\">Published <time datetime=\""...)
		buf = pub.AppendFormat(buf, time.RFC3339)
		buf = append(buf, "\">"...)
		buf = pub.AppendFormat(buf, time.RFC3339)
		buf = append(buf, "</time></p>\n"...)
	}
	buf = w.appendBody(buf, p, c, version)
	buf = append(buf, "</article>\n<nav>\n"...)
	buf = w.appendLinks(buf, p)
	buf = append(buf, "</nav>\n</main>\n<footer>Views: "...)
	buf = strconv.AppendInt(buf, reqNo, 10)
	buf = append(buf, " · Request "...)
	buf = strconv.AppendUint(buf, mix(uint64(reqNo), 0x4e9), 16)
	buf = append(buf, "</footer>\n</body></html>\n"...)
	return buf
}

func (w *Web) appendTitleOf(buf []byte, p page, rng *prng) []byte {
	s := p.h.site
	switch p.kind {
	case pkEntry:
		return append(buf, s.Name...)
	case pkListing:
		buf = append(buf, sectionOf(p.h)...)
		buf = append(buf, " — page "...)
		return strconv.AppendInt(buf, int64(p.a), 10)
	case pkPrivate:
		return append(buf, "Members area"...)
	case pkSearch:
		buf = append(buf, "Search results — page "...)
		return strconv.AppendInt(buf, int64(p.a), 10)
	}
	return corpora[s.lang].appendTitle(buf, rng, s.keywords, p.key()^0x7ca57)
}

func sectionOf(h *vhost) string {
	for i := 0; i < len(h.name); i++ {
		if h.name[i] == '.' {
			return h.name[:i]
		}
	}
	return h.name
}

// appendBody writes the content paragraphs of a page at a content version.
func (w *Web) appendBody(buf []byte, p page, c *corpus, version int) []byte {
	s := p.h.site
	key := p.key()
	switch p.kind {
	case pkArticle, pkTop, pkSearchPost:
		for slot := 0; slot < articleSlots; slot++ {
			v := uint64(int64(version - slot/newPerChange))
			rng := newPRNG(mix(key, v, uint64(slot%newPerChange), 0xb0d7))
			buf = c.appendParagraph(buf, &rng, s.keywords, mix(key, v, 0xca57))
		}
	case pkEntry, pkListing:
		rng := newPRNG(key ^ 0x1e7)
		buf = c.appendParagraph(buf, &rng, s.keywords, key^0xca57)
	case pkPrivate:
		buf = append(buf, "<p>This area is for members only.</p>\n"...)
	case pkSearch:
		buf = append(buf, "<p>Results for <q>"...)
		if p.kw >= 0 {
			buf = append(buf, s.keywords[p.kw]...)
		}
		buf = append(buf, "</q>.</p>\n"...)
	}
	return buf
}

// appendLink writes one link with the target's title as text.
func (w *Web) appendLink(buf []byte, to page, text string) []byte {
	forms := 1
	if w.cfg.Layout.URLVariants && to.leaf() {
		forms = variantForms
	}
	for i := range forms {
		buf = append(buf, "<a href=\""...)
		buf = w.appendURL(buf, to)
		if forms > 1 {
			buf = appendVariant(buf, to, i)
		}
		buf = append(buf, "\">"...)
		if text == "" {
			rng := newPRNG(to.key() ^ 0x7171e)
			buf = w.appendTitleOf(buf, to, &rng)
		} else {
			buf = append(buf, text...)
		}
		buf = append(buf, "</a><br>\n"...)
	}
	return buf
}

// appendLinks writes the page's outgoing links (see the link tree in pages.go).
func (w *Web) appendLinks(buf []byte, p page) []byte {
	s := p.h.site
	home := page{h: s.hosts[0], kind: pkEntry}
	switch p.kind {
	case pkEntry:
		for _, h := range s.hosts[1:] {
			buf = w.appendLink(buf, page{h: h, kind: pkListing, a: 1}, "Section: "+sectionOf(h))
		}
		if len(s.hosts) > 1 {
			for i := 0; i < w.cfg.Layout.TopStories; i++ {
				buf = w.appendLink(buf, page{h: topHost(s, i), kind: pkTop, b: i}, "")
			}
		}
		for _, d := range s.dead {
			buf = w.appendLink(buf, page{d: d, kind: pkDead}, "Archive")
		}
	case pkListing:
		for i := 1; i <= w.cfg.Layout.ArticlesPerListing; i++ {
			buf = w.appendLink(buf, page{h: p.h, kind: pkArticle, a: p.a, b: i}, "")
		}
		if p.a < w.cfg.Layout.ListingPages {
			buf = w.appendLink(buf, page{h: p.h, kind: pkListing, a: p.a + 1}, "Next page")
		}
		buf = w.appendLink(buf, page{h: p.h, kind: pkPrivate, a: p.a}, "Members area")
		buf = w.appendLink(buf, home, "Home")
		return buf
	case pkArticle, pkPrivate:
		buf = w.appendLink(buf, page{h: p.h, kind: pkListing, a: p.a}, "Back to the list")
		buf = w.appendLink(buf, home, "Home")
	case pkTop:
		buf = w.appendLink(buf, home, "Home")
	case pkSearch:
		if p.kw >= 0 && p.a <= w.cfg.Search.PagesPerKeyword {
			for i := 1; i <= w.cfg.Search.ResultsPerPage; i++ {
				buf = w.appendLink(buf, page{h: searchPostHost(s, p.kw, p.a, i), kind: pkSearchPost, a: p.a, b: i, kw: p.kw}, "")
			}
			if p.a < w.cfg.Search.PagesPerKeyword {
				buf = w.appendLink(buf, page{h: p.h, kind: pkSearch, a: p.a + 1, kw: p.kw}, "Next page")
			}
		}
		return buf
	case pkSearchPost:
		buf = w.appendLink(buf, page{h: s.hosts[0], kind: pkSearch, a: p.a, kw: p.kw}, "Back to the results")
		buf = w.appendLink(buf, home, "Home")
	}
	for _, j := range s.cross {
		o := w.sites[j]
		buf = w.appendLink(buf, page{h: o.hosts[0], kind: pkEntry}, o.Name)
	}
	return buf
}
