package sandbox

import (
	"net/url"
	"strconv"
	"strings"
)

// The link tree (M1). Every page has exactly one parent: the page whose links introduce
// it. Entry pages and search result pages are roots.
//
//	www.D/                         entry        → list?p=1 of every section, top stories
//	                                              (on the section hosts), other sites'
//	                                              entries, the site's dead hosts
//	SEC.D/list?p=N                 listing      parent: entry (N=1) or list?p=N-1
//	SEC.D/article/N/I-slug.html    article      parent: list?p=N  ("post" on social sites)
//	SEC.D/top/I-slug.html          article      parent: entry     (top story)
//	SEC.D/private/N/               private      parent: list?p=N  (robots.txt disallows it)
//	www.D/search?q=KW&page=N       search       root (social sites)
//	ANY.D/s/KW/N-I.html            post         parent: search?q=KW&page=N
//	DEAD.D/                        dead         parent: entry     (fails in DNS)
//
// Links that point back up (article → listing, anything → entry) or across sites (to
// entries, which are roots) never introduce a page, so a crawler's parent_hash matches
// Web.Parent whatever order it crawls in.

type pageKind uint8

const (
	pkNone pageKind = iota
	pkEntry
	pkListing
	pkArticle
	pkTop
	pkPrivate
	pkSearch
	pkSearchPost
	pkDead
	pkRobots
)

// Page kinds as reported in PageInfo.Kind and Request.Kind.
const (
	KindEntry   = "entry"
	KindListing = "listing"
	KindArticle = "article"
	KindPost    = "post"
	KindSearch  = "search"
	KindPrivate = "private"
	KindDead    = "dead"
	KindRobots  = "robots"
	// KindDiscovery is a feed or sitemap of the publishing model (Config.Publishing).
	KindDiscovery = "discovery"
	KindUnknown   = "unknown"
)

// page identifies one page (or redirect hop) of the model.
type page struct {
	h    *vhost
	d    *deadHost
	kind pageKind
	a, b int // listing/article page number, item index; search page number, result index
	kw   int // keyword index (search kinds); -1: a keyword the site does not know
	hop  int // redirect hop of a redirect fault; 0 is the page itself
}

func (p page) valid() bool { return p.kind != pkNone }

// key identifies the page's content (not the hop) for the change model and rendering.
func (p page) key() uint64 {
	if p.d != nil {
		return strKey(p.d.name)
	}
	if p.h == nil {
		return 0
	}
	return mix(p.h.key, uint64(p.kind), uint64(p.a), uint64(p.b), uint64(p.kw+1))
}

// leaf pages carry content that changes, and faults.
func (p page) leaf() bool {
	return p.kind == pkArticle || p.kind == pkTop || p.kind == pkSearchPost
}

func (p page) kindName() string {
	switch p.kind {
	case pkEntry:
		return KindEntry
	case pkListing:
		return KindListing
	case pkArticle, pkTop:
		if p.h.site.social {
			return KindPost
		}
		return KindArticle
	case pkSearchPost:
		return KindPost
	case pkPrivate:
		return KindPrivate
	case pkSearch:
		return KindSearch
	case pkDead:
		return KindDead
	case pkRobots:
		return KindRobots
	}
	return KindUnknown
}

func (p page) hostName() string {
	if p.d != nil {
		return p.d.name
	}
	if p.h != nil {
		return p.h.name
	}
	return ""
}

// parent returns the page's parent in the link tree.
func (w *Web) parent(p page) (page, bool) {
	switch p.kind {
	case pkListing:
		if p.a > 1 {
			return page{h: p.h, kind: pkListing, a: p.a - 1}, true
		}
		return page{h: p.h.site.hosts[0], kind: pkEntry}, true
	case pkArticle, pkPrivate:
		return page{h: p.h, kind: pkListing, a: p.a}, true
	case pkTop:
		return page{h: p.h.site.hosts[0], kind: pkEntry}, true
	case pkSearchPost:
		return page{h: p.h.site.hosts[0], kind: pkSearch, a: p.a, kw: p.kw}, true
	case pkDead:
		return page{h: p.d.site.hosts[0], kind: pkEntry}, true
	}
	return page{}, false
}

// topHost is the section host a top story lives on: spread over the sections so the
// entry's children span hosts.
func topHost(s *website, i int) *vhost { return s.hosts[1+i%(len(s.hosts)-1)] }

// searchPostHost spreads search results over all of a social site's hosts.
func searchPostHost(s *website, kw, n, i int) *vhost {
	return s.hosts[int(mix(s.key, 0x5ea, uint64(kw), uint64(n), uint64(i))%uint64(len(s.hosts)))]
}

// slug is the deterministic ASCII slug in article URLs.
func slug(buf []byte, key uint64) []byte {
	rng := newPRNG(key ^ 0x51a6)
	for i := 0; i < 3; i++ {
		if i > 0 {
			buf = append(buf, '-')
		}
		buf = append(buf, keywordPool[rng.intn(len(keywordPool))]...)
	}
	return buf
}

// appendPath appends the page's path and query.
func (w *Web) appendPath(buf []byte, p page) []byte {
	switch p.kind {
	case pkEntry, pkDead:
		buf = append(buf, '/')
	case pkRobots:
		buf = append(buf, "/robots.txt"...)
	case pkListing:
		buf = append(buf, "/list?p="...)
		buf = strconv.AppendInt(buf, int64(p.a), 10)
	case pkArticle:
		if p.h.site.social {
			buf = append(buf, "/post/"...)
		} else {
			buf = append(buf, "/article/"...)
		}
		buf = strconv.AppendInt(buf, int64(p.a), 10)
		buf = append(buf, '/')
		buf = strconv.AppendInt(buf, int64(p.b), 10)
		buf = append(buf, '-')
		buf = slug(buf, p.key())
		buf = append(buf, ".html"...)
	case pkTop:
		buf = append(buf, "/top/"...)
		buf = strconv.AppendInt(buf, int64(p.b), 10)
		buf = append(buf, '-')
		buf = slug(buf, p.key())
		buf = append(buf, ".html"...)
	case pkPrivate:
		buf = append(buf, "/private/"...)
		buf = strconv.AppendInt(buf, int64(p.a), 10)
		buf = append(buf, '/')
	case pkSearch:
		buf = append(buf, "/search?q="...)
		if p.kw >= 0 {
			buf = append(buf, p.h.site.keywords[p.kw]...)
		}
		buf = append(buf, "&page="...)
		buf = strconv.AppendInt(buf, int64(p.a), 10)
	case pkSearchPost:
		buf = append(buf, "/s/"...)
		buf = append(buf, p.h.site.keywords[p.kw]...)
		buf = append(buf, '/')
		buf = strconv.AppendInt(buf, int64(p.a), 10)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, int64(p.b), 10)
		buf = append(buf, ".html"...)
	}
	if p.hop > 0 {
		buf = append(buf, "?hop="...)
		buf = strconv.AppendInt(buf, int64(p.hop), 10)
	}
	return buf
}

// appendURL appends the page's absolute URL, with the port.
func (w *Web) appendURL(buf []byte, p page) []byte {
	buf = append(buf, "http://"...)
	buf = append(buf, p.hostName()...)
	buf = append(buf, w.portSuffix...)
	return w.appendPath(buf, p)
}

func (w *Web) urlOf(p page) string { return string(w.appendURL(nil, p)) }

// lookupURL parses an absolute URL into a page.
func (w *Web) lookupURL(raw string) page {
	rest, ok := strings.CutPrefix(raw, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(raw, "HTTP://"); !ok {
			return page{}
		}
	}
	host, path := rest, "/"
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	if path == "" || path[0] == '?' {
		path = "/" + path
	}
	query := ""
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path, query = path[:i], path[i+1:]
	}
	return w.lookup(host, path, query)
}

// lookup finds the page a request for host, path and raw query asks for. It accepts
// only canonical URLs (plus the hop parameter of redirect faults), so every page has
// exactly one URL.
func (w *Web) lookup(hostport, path, query string) page {
	if w.cfg.Layout.URLVariants && (query != "" || strings.Contains(path, ";")) {
		path, query, _ = strings.Cut(StripVariants(path+"?"+query), "?")
	}
	h := w.hostOf(hostport)
	if h == nil {
		if d := w.dead[normalizeHost(hostport)]; d != nil && path == "/" && query == "" {
			return page{d: d, kind: pkDead}
		}
		return page{}
	}
	if path == "/robots.txt" && query == "" {
		return page{h: h, kind: pkRobots}
	}
	hop := 0
	if q, ok := strings.CutPrefix(query, "hop="); ok {
		n, ok := atoiStrict(q)
		if !ok || n < 1 {
			return page{}
		}
		hop, query = n, ""
	}
	var p page
	switch {
	case path == "/" && query == "" && h.idx == 0:
		p = page{h: h, kind: pkEntry}
	case path == "/list" && h.idx > 0:
		n, ok := atoiStrict(strings.TrimPrefix(query, "p="))
		if !ok || !strings.HasPrefix(query, "p=") || n < 1 || n > w.cfg.Layout.ListingPages {
			return page{}
		}
		return page{h: h, kind: pkListing, a: n}
	case path == "/search" && h.site.social && h.idx == 0:
		return w.lookupSearch(h, query)
	case strings.HasPrefix(path, "/private/") && h.idx > 0 && query == "":
		n, ok := atoiStrict(strings.TrimSuffix(strings.TrimPrefix(path, "/private/"), "/"))
		if !ok || n < 1 || n > w.cfg.Layout.ListingPages {
			return page{}
		}
		p = page{h: h, kind: pkPrivate, a: n}
	case query == "":
		p = w.lookupLeaf(h, path)
	}
	if !p.valid() {
		return page{}
	}
	if hop > 0 {
		f := ""
		if p.leaf() {
			f = w.faultOf(p)
		}
		switch {
		case f == FaultRedirectChain && hop <= w.cfg.Faults.RedirectHops:
		case f == FaultRedirectLoop && hop < redirectLoopLen:
		default:
			return page{}
		}
		p.hop = hop
	}
	// The canonical URL must round-trip (slugs, no leading zeros).
	var buf [128]byte
	q := p
	q.hop = 0
	got := w.appendPath(buf[:0], q)
	want := path
	if query != "" {
		want += "?" + query
	}
	if string(got) != want {
		return page{}
	}
	return p
}

// lookupLeaf parses article, top-story and search-result paths.
func (w *Web) lookupLeaf(h *vhost, path string) page {
	s := h.site
	switch {
	case strings.HasPrefix(path, "/article/") && !s.social, strings.HasPrefix(path, "/post/") && s.social:
		if h.idx == 0 {
			return page{}
		}
		rest := path[strings.IndexByte(path[1:], '/')+2:]
		a, rest, ok1 := cutInt(rest, '/')
		b, _, ok2 := cutInt(rest, '-')
		if !ok1 || !ok2 || a < 1 || a > w.cfg.Layout.ListingPages || b < 1 || b > w.cfg.Layout.ArticlesPerListing {
			return page{}
		}
		return page{h: h, kind: pkArticle, a: a, b: b}
	case strings.HasPrefix(path, "/top/"):
		b, _, ok := cutInt(path[len("/top/"):], '-')
		if !ok || b < 0 || b >= w.cfg.Layout.TopStories || len(s.hosts) < 2 || topHost(s, b) != h {
			return page{}
		}
		return page{h: h, kind: pkTop, b: b}
	case strings.HasPrefix(path, "/s/") && s.social:
		rest := path[len("/s/"):]
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return page{}
		}
		kw := keywordIndex(s, rest[:i])
		a, rest, ok1 := cutInt(rest[i+1:], '-')
		b, _, ok2 := cutInt(rest, '.')
		if kw < 0 || !ok1 || !ok2 || a < 1 || a > w.cfg.Search.PagesPerKeyword || b < 1 || b > w.cfg.Search.ResultsPerPage {
			return page{}
		}
		if searchPostHost(s, kw, a, b) != h {
			return page{}
		}
		return page{h: h, kind: pkSearchPost, a: a, b: b, kw: kw}
	}
	return page{}
}

// lookupSearch parses /search?q=KW&page=N in any parameter order. Unknown keywords
// and pages past the last give valid, empty result pages.
func (w *Web) lookupSearch(h *vhost, query string) page {
	vals, err := url.ParseQuery(query)
	if err != nil || len(vals["q"]) != 1 {
		return page{}
	}
	n := 1
	if ps, ok := vals["page"]; ok {
		var good bool
		if n, good = atoiStrict(ps[0]); !good || n < 1 || len(ps) != 1 {
			return page{}
		}
	}
	if len(vals) > 2 || (len(vals) == 2 && vals["page"] == nil) {
		return page{}
	}
	return page{h: h, kind: pkSearch, a: n, kw: keywordIndex(h.site, strings.ToLower(strings.TrimSpace(vals["q"][0])))}
}

func keywordIndex(s *website, kw string) int {
	for i, k := range s.keywords {
		if k == kw {
			return i
		}
	}
	return -1
}

// cutInt parses a decimal prefix of s ending at sep (no sign, no leading zeros).
func cutInt(s string, sep byte) (int, string, bool) {
	i := strings.IndexByte(s, sep)
	if i < 0 {
		return 0, "", false
	}
	n, ok := atoiStrict(s[:i])
	return n, s[i+1:], ok
}

func atoiStrict(s string) (int, bool) {
	if s == "" || len(s) > 9 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
