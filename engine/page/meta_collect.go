package page

import (
	"bytes"
	"strings"

	"golang.org/x/net/html/atom"
)

// What a page's one tokenizer pass keeps for its metadata (Metadata): the <html
// lang>, <link rel=canonical>, the <meta> tags that name dates, headlines, authors and
// languages, the JSON-LD blocks, and the elements that carry microdata or a
// machine-readable date (<time datetime>, itemprop, rel=author). Everything is
// bounded: a page with ten thousand <meta> tags or 10 MB of JSON-LD costs the
// tokenizer's pass and no more.

// Bounds on what a page's parse keeps for its metadata.
const (
	maxMetaPairs    = 128       // <meta> tags kept
	maxMetaVal      = 1024      // bytes of a kept value
	maxJSONLDBlock  = 256 << 10 // a bigger JSON-LD block is dropped whole
	maxJSONLDTotal  = 512 << 10 // JSON-LD kept from one page
	maxJSONLDBlocks = 16
	maxMetaElems    = 256 // elements with itemprop, <time datetime> or rel=author
)

// metaPair is one <meta> tag: its name, property, itemprop or http-equiv (lower
// case) and its content.
type metaPair struct{ key, val string }

// metaElem is an element of the tree that carries metadata.
type metaElem struct {
	elem     int32     // index in the tree
	tag      atom.Atom // its tag
	prop     string    // itemprop, lower case
	datetime string    // its datetime (or content) attribute
	author   bool      // rel=author
	pubdate  bool      // <time pubdate>, or a class naming publication
	text     string    // its text, read from the tree before it is released (bounded)
	pos      int       // where it is in the page's visible text
}

// metaRaw is what the parse collected; Parsed.Meta makes Metadata of it.
type metaRaw struct {
	htmlLang    string
	canonical   string
	metas       []metaPair
	jsonld      []string
	ldBytes     int
	inLD        bool       // inside a <script type=application/ld+json>
	ld          []byte     // the block being read
	ldOver      bool       // it passed maxJSONLDBlock: dropped
	inScript    bool       // inside another <script>
	scripted    int        // bytes of scripts searched for dates (maxScriptSearch)
	scriptDates []metaPair // "key": "date" pairs found in scripts, first of each key
	elems       []metaElem

	// Read from the tree once the parse is done (fromTree).
	title     string     // the document's <title>
	h1        string     // the first visible <h1>
	dateLines []dateLine // dates in elements whose class or id speaks of dates
	bylines   []string   // text of elements whose class or id speaks of authors
	textDates []dateLine // dates in the page's visible text, in order
	headAt    int        // where the headline is in the visible text (-1: none)
	scripts   scriptCounts
}

// dateLine is a date read from the visible text.
type dateLine struct {
	hit dateHit
	pos int // byte offset in the page's visible text
}

// startTag reads the tags the tree does not keep: <html lang>, <link rel=canonical>,
// and a <script> that opens a JSON-LD block.
func (m *metaRaw) startTag(tag atom.Atom, start bool, attrs []Attr) {
	switch tag {
	case atom.Html:
		if v, ok := firstAttr(attrs, "lang"); ok && m.htmlLang == "" {
			m.htmlLang = clipBytes(v, 64)
		}
	case atom.Link:
		href, _, rel := linkAttrs(attrs)
		if m.canonical == "" && href != "" && hasToken(rel, "canonical") {
			m.canonical = clipBytes(strings.TrimSpace(href), 2048)
		}
	case atom.Script:
		if v, _ := firstAttr(attrs, "type"); start && strings.Contains(strings.ToLower(v), "ld+json") {
			m.inLD, m.ld, m.ldOver = true, m.ld[:0], false
		} else if start {
			m.inScript = true
		}
	}
}

// ldText adds the text of a JSON-LD block being read.
func (m *metaRaw) ldText(b []byte) {
	if m.ldOver || len(m.ld)+len(b) > maxJSONLDBlock {
		m.ldOver = true
		return
	}
	m.ld = append(m.ld, b...)
}

// scriptKeys are the JSON keys of a publication date in a page's own scripts (a
// React or Vue page's state, a CMS's data layer), best first.
var scriptKeys = []string{"datePublished", "publishedDate", "published_at", "publishDate", "publishedAt",
	"date_published", "pubDate", "createdAt", "created_at", "dateCreated"}

// maxScriptSearch bounds the script text searched for dates on one page.
const maxScriptSearch = 64 << 10

// scriptText searches a script's text for the keys of a publication date.
func (m *metaRaw) scriptText(b []byte) {
	if m.scripted >= maxScriptSearch {
		return
	}
	if len(b) > maxScriptSearch-m.scripted {
		b = b[:maxScriptSearch-m.scripted]
	}
	m.scripted += len(b)
	if bytes.IndexByte(b, '"') < 0 {
		return
	}
	for _, k := range scriptKeys {
		if len(m.scriptDates) >= len(scriptKeys) {
			return
		}
		i := bytes.Index(b, []byte(`"`+k+`"`))
		if i < 0 || m.hasScriptKey(k) {
			continue
		}
		end := min(len(b), i+len(k)+2+64)
		if v := jsonTextValue(string(b[i:end]), k); v != "" {
			m.scriptDates = append(m.scriptDates, metaPair{key: k, val: v})
		}
	}
}

func (m *metaRaw) hasScriptKey(k string) bool {
	for _, p := range m.scriptDates {
		if p.key == k {
			return true
		}
	}
	return false
}

// endLD closes the JSON-LD block being read.
func (m *metaRaw) endLD() {
	m.inLD = false
	if m.ldOver || len(m.jsonld) >= maxJSONLDBlocks || m.ldBytes+len(m.ld) > maxJSONLDTotal {
		return
	}
	if b := bytes.TrimSpace(m.ld); len(b) > 0 {
		m.jsonld = append(m.jsonld, string(b))
		m.ldBytes += len(b)
	}
}

// metaKeys are the <meta> names kept for the metadata.
var metaKeys = map[string]bool{}

func init() {
	for _, list := range [][]string{publishedKeys, modifiedKeys, headlineKeys, authorKeys, langKeys,
		{"og:url", "og:site_name", "application-name", "og:type", "og:image", "twitter:image"}} {
		for _, k := range list {
			metaKeys[k] = true
		}
	}
}

// addMeta keeps a <meta> tag whose name the metadata reads.
func (m *metaRaw) addMeta(attrs []Attr) {
	if len(m.metas) >= maxMetaPairs {
		return
	}
	var key, content []byte
	hasContent := false
	for _, a := range attrs {
		switch string(a.Key) {
		case "property", "name", "itemprop", "http-equiv":
			if key == nil {
				key = a.Val
			}
		case "content", "datetime":
			if !hasContent {
				content, hasContent = a.Val, true
			}
		}
	}
	if len(key) == 0 || len(key) > 64 || !hasContent {
		return
	}
	var buf [64]byte
	k := string(bytes.TrimSpace(lowerASCII(buf[:0], key)))
	if !metaKeys[k] {
		return
	}
	v := strings.TrimSpace(clipBytes(string(content), maxMetaVal))
	if v != "" {
		m.metas = append(m.metas, metaPair{key: k, val: v})
	}
}

// element keeps an element of the tree that carries metadata.
func (m *metaRaw) element(idx int32, tag atom.Atom, itemprop, datetime, rel []byte, pubdate bool) {
	if len(m.elems) >= maxMetaElems {
		return
	}
	e := metaElem{elem: idx, tag: tag, pubdate: pubdate}
	if len(itemprop) > 0 {
		var buf [64]byte
		if len(itemprop) <= len(buf) {
			e.prop = string(lowerASCII(buf[:0], bytes.TrimSpace(itemprop)))
		}
		switch e.prop {
		case "datepublished", "datecreated", "datemodified", "headline", "author", "creator", "inlanguage":
		default:
			if tag != atom.Time && !hasToken(string(rel), "author") {
				return
			}
			e.prop = ""
		}
	}
	if len(datetime) > 0 {
		e.datetime = clipBytes(strings.TrimSpace(string(datetime)), 128)
	}
	e.author = hasToken(string(rel), "author")
	if e.prop == "" && e.datetime == "" && !e.author {
		return
	}
	m.elems = append(m.elems, e)
}

// rdfaProp is the schema.org name of an RDFa property ("schema:datePublished",
// "http://schema.org/datePublished" → "datePublished"); other vocabularies' names
// are kept whole, and match no itemprop.
func rdfaProp(v []byte) []byte {
	for _, prefix := range []string{"schema:", "http://schema.org/", "https://schema.org/"} {
		if bytes.HasPrefix(v, []byte(prefix)) {
			return v[len(prefix):]
		}
	}
	return v
}

// lowerASCII appends b lower-cased (ASCII letters) to dst.
func lowerASCII(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// clip cuts s to at most n bytes, at a character boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// Bounds on what is read from the tree for the metadata.
const (
	maxDateElems  = 64       // date-named elements read
	maxBylines    = 8        // author-named elements read
	maxElemText   = 256      // bytes of one element's text
	maxTextDates  = 256      // dates read from the visible text
	maxScriptText = 16 << 10 // bytes of main text counted for its scripts
)

// dateNameParts are class/id parts of elements that hold a page's date line.
var dateNameParts = []string{"date", "datum", "time", "publish", "posted", "submitted", "byline", "meta",
	"subline", "fecha", "parution", "created", "info", "post-detail", "post_detail", "dateline", "timestamp"}

// bylineNameParts are class/id parts of elements that hold a page's author line.
var bylineNameParts = []string{"author", "byline", "autor", "writer", "creator", "auteur", "reporter"}

// fromTree reads what the metadata needs from the tree before it goes back to the
// pool: the text of the elements the parse kept, date and author lines, the dates of
// the visible text, and the scripts the main text is written in.
func (m *metaRaw) fromTree(d *doc, t Text) {
	for i := range m.elems {
		m.elems[i].text = d.elemText(m.elems[i].elem, maxElemText)
		m.elems[i].pos = d.elemPos(m.elems[i].elem)
	}
	m.headAt = -1
	for i := range d.elems {
		e := &d.elems[i]
		if e.tag == atom.H1 && e.letters > 0 && e.flags&flagHidden == 0 && m.h1 == "" && e.runStart < e.runEnd {
			m.h1 = d.elemText(int32(i), 512)
			m.headAt = int(d.runs[e.runStart].start)
		}
	}
	var sc dateScanner
	for i := range d.elems {
		e := &d.elems[i]
		if e.runStart >= e.runEnd || e.names == "" {
			continue
		}
		if len(m.dateLines) < maxDateElems && hasAnyPart(e.names, dateNameParts) && !hasAnyPart(e.names, commentParts) {
			txt := d.elemText(int32(i), maxElemText)
			if h, ok := sc.first(txt); ok {
				pos := int(d.runs[e.runStart].start)
				m.dateLines = append(m.dateLines, dateLine{hit: h, pos: pos})
			}
		}
		if len(m.bylines) < maxBylines && hasAnyPart(e.names, bylineNameParts) && !hasAnyPart(e.names, commentParts) {
			if txt := d.elemText(int32(i), maxElemText); txt != "" {
				m.bylines = append(m.bylines, txt)
			}
		}
	}
	sc.scanYears(string(d.text), maxTextDates, func(h dateHit) bool {
		m.textDates = append(m.textDates, dateLine{hit: h, pos: h.start})
		return true
	})
	m.scripts = countScripts(t.Title, clipBytes(t.Body, maxScriptText))
}

// commentParts name reader comments, whose dates and authors are not the article's.
var commentParts = []string{"comment", "reply", "respond", "disqus", "related", "sidebar", "widget", "footer"}

// hasAnyPart reports whether names contains any of parts.
func hasAnyPart(names string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(names, p) {
			return true
		}
	}
	return false
}

// elemText is an element's text, spaces collapsed, at most max bytes.
func (d *doc) elemText(i int32, max int) string {
	if i < 0 || int(i) >= len(d.elems) {
		return ""
	}
	e := &d.elems[i]
	var b []byte
	for _, r := range d.runs[e.runStart:e.runEnd] {
		b = append(b, d.runText(r)...)
		b = append(b, ' ')
		if len(b) > 4*max {
			break
		}
	}
	return clipBytes(collapseSpace(string(b)), max)
}

// elemPos is where an element stands in the page's visible text: its first text, or
// the text after it when it has none.
func (d *doc) elemPos(i int32) int {
	if i < 0 || int(i) >= len(d.elems) {
		return len(d.text)
	}
	if r := d.elems[i].runStart; int(r) < len(d.runs) {
		return int(d.runs[r].start)
	}
	return len(d.text)
}
