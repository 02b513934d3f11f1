package meta

import (
	"bytes"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
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

// Raw is what a page's parse collected for its metadata; Build makes Metadata of
// it. The parse (engine/page) hands it the tags and script text of its tokenizer
// pass (StartTag, AddMeta, Element, ScriptText, EndScript), then the tree it
// built (FromTree).
type Raw struct {
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
	title     string       // the document's <title>
	h1        string       // the first visible <h1>
	h1Lines   [2]string    // the <h1>'s first line and the rest, when a break splits it
	dateLines []dateLine   // dates in elements whose class or id speaks of dates
	bylines   []string     // text of elements whose class or id speaks of authors
	textDates []dateLine   // dates in the page's visible text, in order
	yearless  yearlessDate // the first date line without a year, when no date line has one
	headAt    int          // where the headline is in the visible text (-1: none)
	scripts   scriptCounts
}

// dateLine is a date read from the visible text.
type dateLine struct {
	hit dateHit
	pos int // byte offset in the page's visible text
}

// StartTag reads the tags the tree does not keep: <html lang>, <link rel=canonical>,
// and a <script> that opens a JSON-LD block (start: a start tag, not self-closing).
func (m *Raw) StartTag(tag atom.Atom, start bool, attrs []textutil.Attr) {
	switch tag {
	case atom.Html:
		if v, ok := textutil.FirstAttr(attrs, "lang"); ok && m.htmlLang == "" {
			m.htmlLang = textutil.ClipBytes(v, 64)
		}
	case atom.Link:
		href, _, rel := textutil.LinkAttrs(attrs)
		if m.canonical == "" && href != "" && textutil.HasToken(rel, "canonical") {
			m.canonical = textutil.ClipBytes(strings.TrimSpace(href), 2048)
		}
	case atom.Script:
		if v, _ := textutil.FirstAttr(attrs, "type"); start && strings.Contains(strings.ToLower(v), "ld+json") {
			m.inLD, m.ld, m.ldOver = true, m.ld[:0], false
		} else if start {
			m.inScript = true
		}
	}
}

// ldText adds the text of a JSON-LD block being read.
func (m *Raw) ldText(b []byte) {
	if m.ldOver || len(m.ld)+len(b) > maxJSONLDBlock {
		m.ldOver = true
		return
	}
	m.ld = append(m.ld, b...)
}

// ScriptText reads the text of a script: JSON-LD, or a script searched for dates.
// It is false, and reads nothing, outside scripts.
func (m *Raw) ScriptText(b []byte) bool {
	switch {
	case m.inLD:
		m.ldText(b)
	case m.inScript:
		m.scriptText(b)
	default:
		return false
	}
	return true
}

// EndScript closes the script being read, at its end tag.
func (m *Raw) EndScript() {
	if m.inLD {
		m.endLD()
	}
	m.inScript = false
}

// scriptKeys are the JSON keys of a publication date in a page's own scripts (a
// React or Vue page's state, a CMS's data layer), best first.
var scriptKeys = []string{"datePublished", "publishedDate", "published_at", "publishDate", "publishedAt",
	"date_published", "pubDate", "createdAt", "created_at", "dateCreated"}

// maxScriptSearch bounds the script text searched for dates on one page.
const maxScriptSearch = 64 << 10

// scriptText searches a script's text for the keys of a publication date.
func (m *Raw) scriptText(b []byte) {
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

func (m *Raw) hasScriptKey(k string) bool {
	for _, p := range m.scriptDates {
		if p.key == k {
			return true
		}
	}
	return false
}

// endLD closes the JSON-LD block being read.
func (m *Raw) endLD() {
	m.inLD = false
	if m.ldOver || len(m.jsonld) >= maxJSONLDBlocks || m.ldBytes+len(m.ld) > maxJSONLDTotal {
		return
	}
	if b := unwrapLD(m.ld); len(b) > 0 {
		m.jsonld = append(m.jsonld, string(b))
		m.ldBytes += len(b)
	}
}

// ldWrappers are what pages put around a JSON-LD block for old XHTML or script
// parsers (Libération's `<![CDATA[ {...} ]]>`): JSON.parse in a browser would
// fail on them, but search engines read through them, so the pages keep them.
var ldWrappers = [][2]string{{"//<![CDATA[", "//]]>"}, {"<![CDATA[", "]]>"}, {"<!--", "-->"}}

// unwrapLD is a JSON-LD block's text without white space or a wrapper around it.
func unwrapLD(b []byte) []byte {
	b = bytes.TrimSpace(b)
	for _, w := range ldWrappers {
		if bytes.HasPrefix(b, []byte(w[0])) {
			b = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(b[len(w[0]):]), []byte(w[1])))
			break
		}
	}
	return b
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

// AddMeta keeps a <meta> tag whose name the metadata reads.
func (m *Raw) AddMeta(attrs []textutil.Attr) {
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
	k := string(bytes.TrimSpace(textutil.LowerASCII(buf[:0], key)))
	if !metaKeys[k] {
		return
	}
	v := strings.TrimSpace(textutil.ClipBytes(string(content), maxMetaVal))
	if v != "" {
		m.metas = append(m.metas, metaPair{key: k, val: v})
	}
}

// Element keeps an element of the tree that carries metadata: idx is its index in
// the tree (for FromTree), itemprop its itemprop (or RDFa property, RDFaProp),
// datetime its datetime or content, rel its rel; pubdate marks it as the
// publication's.
func (m *Raw) Element(idx int32, tag atom.Atom, itemprop, datetime, rel []byte, pubdate bool) {
	if len(m.elems) >= maxMetaElems {
		return
	}
	e := metaElem{elem: idx, tag: tag, pubdate: pubdate}
	if len(itemprop) > 0 {
		var buf [64]byte
		if len(itemprop) <= len(buf) {
			e.prop = string(textutil.LowerASCII(buf[:0], bytes.TrimSpace(itemprop)))
		}
		switch e.prop {
		case "datepublished", "datecreated", "datemodified", "headline", "author", "creator", "inlanguage":
		default:
			if tag != atom.Time && !textutil.HasToken(string(rel), "author") {
				return
			}
			e.prop = ""
		}
	}
	if len(datetime) > 0 {
		e.datetime = textutil.ClipBytes(strings.TrimSpace(string(datetime)), 128)
	}
	e.author = textutil.HasToken(string(rel), "author")
	if e.prop == "" && e.datetime == "" && !e.author {
		return
	}
	m.elems = append(m.elems, e)
}

// RDFaProp is the schema.org name of an RDFa property ("schema:datePublished",
// "http://schema.org/datePublished" → "datePublished"); other vocabularies' names
// are kept whole, and match no itemprop.
func RDFaProp(v []byte) []byte {
	for _, prefix := range []string{"schema:", "http://schema.org/", "https://schema.org/"} {
		if bytes.HasPrefix(v, []byte(prefix)) {
			return v[len(prefix):]
		}
	}
	return v
}

// Kept is how much of a page its parse kept for the metadata: the dates of its
// visible text, JSON-LD blocks, bytes of script searched for dates, <meta> tags
// and elements. Each is bounded (Bounds), whatever the page holds.
type Kept struct{ TextDates, JSONLD, ScriptBytes, Metas, Elems int }

// Kept is what the parse kept (see the type).
func (m *Raw) Kept() Kept {
	return Kept{len(m.textDates), len(m.jsonld), m.scripted, len(m.metas), len(m.elems)}
}

// Bounds are the most a parse keeps (Kept).
var Bounds = Kept{maxTextDates, maxJSONLDBlocks, maxScriptSearch, maxMetaPairs, maxMetaElems}
