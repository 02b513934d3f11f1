package page

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/htmltoken"
	"github.com/crawlconsole/crawlconsole/engine/page/meta"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A light element tree built from golang.org/x/net/html's tokenizer, the input of the
// article extractor (article.go).
//
// Why not html.Parse: the full HTML5 tree builder costs about twice the tokenizer on
// the article benchmark's pages (0.94 vs 0.48 ms a page), and the revisit fingerprint
// runs on every fetch with a CPU budget of twice the seed's path. The extractor needs
// only elements, their class/id, their parent and the text under them in document
// order, so the tree is kept flat: elements in document order (a parent always comes
// before its children) and text runs, each subtree owning a contiguous range of runs.
// The HTML5 rules that matter for text are applied by hand: a block start closes an
// open <p>, a new <li>/<dt>/<dd>/<tr>/<td>/<th>/<option> closes its open sibling,
// <body> closes an unclosed <head>, an end tag closes up to its match and an unmatched
// end tag is ignored.

// maxElems bounds the tree on hostile pages (a body that is megabytes of <b>); past
// it, text still lands in the innermost open element, so nothing is lost but
// structure.
const maxElems = 200_000

// maxDepth bounds the open-element stack (10,000 nested <div>s): deeper elements are
// folded into the element at the bound.
const maxDepth = 512

// elem is one element of the light tree.
type elem struct {
	tag    atom.Atom
	parent int32  // index of the parent, -1 for the root
	names  string // lower-cased class and id, space-separated
	// runs owned by the subtree: runs[runStart:runEnd]
	runStart, runEnd int32
	flags            uint8
	kind             uint8 // the tag's kinds (tagKind)

	// Figures summed over the subtree by the extractor.
	letters, linkLetters, paraLetters int32
	score                             float64
	scored                            bool
}

// Element flags.
const (
	flagChromeTag  uint8 = 1 << iota // nav, aside, footer, header, form-ish: chrome unless it holds the article
	flagHidden                       // hidden, aria-hidden, display:none
	flagHoldsMain                    // is or contains <article> or <main>
	flagNamedChrom                   // class/id names chrome (see chrome.Name)
)

// run is one piece of text in document order.
type run struct {
	start, end int32 // bytes in doc.text
	owner      int32 // innermost element
	block      int32 // innermost block element: runs of one block form a paragraph
	link       bool  // inside <a>
	brk        bool  // a <br> or block boundary comes before it
}

// doc is a parsed page: its light tree, its text, its <title> and og:title.
type doc struct {
	elems   []elem
	runs    []run
	text    []byte
	title   []byte
	ogTitle string
	attrs   []Attr  // the current tag's attributes (readAttrs)
	out     []byte  // scratch of joinParagraphs
	names   []byte  // scratch of an element's names (parseDoc)
	line    []byte  // scratch of paragraphBytes and headline
	lower   []byte  // scratch of notice.Paywall
	marks   []bool  // scratch of removable
	sums    []int32 // scratch of widen
	paras   []paragraph
	meta    meta.Raw  // what the pass keeps for the page's metadata (engine/page/meta)
	mt      meta.Tree // the tree as the metadata reads it (metaTree)
}

// parseDoc builds the light tree of a UTF-8 HTML document from the tokens that start
// in its first limit bytes. sink, if not nil, is handed the start tags it wants from
// the same tokenizer pass (see TagSink), to the end of src.
func parseDoc(src []byte, limit int, sink TagSink) *doc {
	passes.Add(1)
	d := newDoc()
	tz := newTokenizer(src)
	defer tz.release()
	z := &tz.z
	off := 0                         // where the current token starts in src
	treeDone := false                // past limit: the tree is closed, only the sink reads on
	stack := append(tz.stack[:0], 0) // open elements; the root is never popped
	defer func() { tz.stack = stack[:0] }()
	skipDepth := 0        // >0 while inside a rawSkip subtree
	var skipTag atom.Atom // the element that opened the skip
	rubyInner := 0        // elements open inside a skipped <rt> or <rp>
	inTitle := false
	pendingBreak := true
	linkDepth := 0 // open <a> elements
	top := func() int32 { return stack[len(stack)-1] }
	blockOf := func() int32 {
		for i := len(stack) - 1; i >= 0; i-- {
			if d.elems[stack[i]].kind&kindBlock != 0 {
				return stack[i]
			}
		}
		return 0
	}
	pop := func() {
		e := &d.elems[top()]
		e.runEnd = int32(len(d.runs))
		if e.tag == atom.A && linkDepth > 0 {
			linkDepth--
		}
		if e.kind&kindBlock != 0 {
			pendingBreak = true
		}
		stack = stack[:len(stack)-1]
	}
	// closeTo pops up to and including the open element at stack index i.
	closeTo := func(i int) {
		for len(stack) > i && len(stack) > 1 {
			pop()
		}
	}
	findOpen := func(tag atom.Atom, bounds []atom.Atom) int {
		for i := len(stack) - 1; i > 0; i-- {
			t := d.elems[stack[i]].tag
			if t == tag {
				return i
			}
			for _, b := range bounds {
				if t == b {
					return -1
				}
			}
		}
		return -1
	}
	closeTree := func() {
		for len(stack) > 1 {
			pop()
		}
		d.elems[0].runEnd = int32(len(d.runs))
	}
	for {
		tt := z.Next()
		if tt != html.ErrorToken && !treeDone {
			if off >= limit {
				closeTree()
				if sink == nil {
					return d
				}
				treeDone = true
			}
			off += len(z.Raw())
		}
		if treeDone {
			switch tt {
			case html.ErrorToken:
				return d
			case html.StartTagToken, html.SelfClosingTagToken:
				if tag := tagAtom(z.Raw()); sink.Wants(tag) {
					if attrs := d.readAttrs(z); attrs != nil {
						sink.StartTag(tag, attrs)
					}
				}
			}
			continue
		}
		switch tt {
		case html.ErrorToken:
			closeTree()
			return d
		case html.TextToken:
			t := tokenText(z)
			if d.meta.ScriptText(t) {
				continue
			}
			if inTitle {
				d.title = append(d.title, t...)
				continue
			}
			if skipDepth > 0 {
				continue
			}
			if len(bytes.TrimSpace(t)) == 0 {
				if len(t) > 0 && len(d.runs) > 0 && !pendingBreak {
					d.text = append(d.text, ' ')
					d.runs[len(d.runs)-1].end = int32(len(d.text))
				}
				continue
			}
			start := len(d.text)
			d.text = append(d.text, t...)
			d.runs = append(d.runs, run{start: int32(start), end: int32(len(d.text)), owner: top(),
				block: blockOf(), link: linkDepth > 0, brk: pendingBreak})
			pendingBreak = false
		case html.StartTagToken, html.SelfClosingTagToken:
			tag := tagAtom(z.Raw())
			// Attributes are read at most once, for the sink and the tree alike, and
			// only for tags one of them reads: each costs the tokenizer two copies.
			// (nil: not read yet, or none.)
			var attrs []Attr
			if sink != nil && sink.Wants(tag) {
				if attrs = d.readAttrs(z); attrs != nil {
					sink.StartTag(tag, attrs)
				}
			}
			switch tag {
			case atom.Html, atom.Link, atom.Script:
				if attrs == nil {
					attrs = d.readAttrs(z)
				}
				d.meta.StartTag(tag, tt == html.StartTagToken, attrs)
			}
			if tag == atom.Title && (skipDepth == 0 || skipTag == atom.Head) {
				// The document's <title>, not an <svg>'s.
				inTitle = tt == html.StartTagToken && len(d.title) == 0
				continue
			}
			if tag == atom.Meta {
				if attrs == nil {
					attrs = d.readAttrs(z)
				}
				if attrs != nil {
					d.readMeta(attrs)
					continue
				}
			}
			kind, bounds := tagKind(tag)
			if skipDepth > 0 && skipTag == atom.Head && kind&kindHead == 0 {
				skipDepth = 0 // HTML5 "in head": any other element ends an unclosed <head>
			}
			if skipDepth > 0 && (skipTag == atom.Rt || skipTag == atom.Rp) && (tag == atom.Rt || tag == atom.Rp) {
				skipDepth, rubyInner = 0, 0 // an <rt> or <rp> ends an open one (its end tag may be omitted)
			}
			if skipDepth > 0 {
				if tag == skipTag && tt == html.StartTagToken && kind&kindVoid == 0 {
					skipDepth++
				} else if (skipTag == atom.Rt || skipTag == atom.Rp) && tt == html.StartTagToken && kind&kindVoid == 0 {
					rubyInner++
				}
				continue
			}
			if tag == atom.Br || tag == atom.Hr {
				pendingBreak = true
				continue
			}
			if tag == atom.Body || tag == atom.Html {
				continue // the root stands for both
			}
			if kind&kindRawSkip != 0 {
				if tt == html.StartTagToken && kind&kindVoid == 0 {
					skipDepth, skipTag, rubyInner = 1, tag, 0
				}
				continue
			}
			if kind&kindClosesP != 0 {
				if i := findOpen(atom.P, []atom.Atom{atom.Td, atom.Th, atom.Li, atom.Blockquote, atom.Div, atom.Section, atom.Article}); i > 0 {
					closeTo(i)
				}
			}
			if bounds != nil {
				if i := findOpen(tag, bounds); i > 0 {
					closeTo(i)
				}
			}
			if kind&kindBlock != 0 {
				pendingBreak = true
			}
			if kind&kindVoid != 0 || tt == html.SelfClosingTagToken {
				continue
			}
			if len(d.elems) >= maxElems || len(stack) >= maxDepth {
				continue // folded into the innermost open element
			}
			e := elem{tag: tag, kind: kind, parent: top(), runStart: int32(len(d.runs))}
			if attrs == nil {
				attrs = d.readAttrs(z)
			}
			var itemprop, datetime, rel, title []byte
			pubdate := false
			names := d.names[:0] // class and id, lower case: one string an element
			for _, a := range attrs {
				key, val := a.Key, a.Val
				switch string(key) {
				case "itemprop":
					itemprop = val
				case "property": // RDFa: property="schema:datePublished"
					if itemprop == nil {
						itemprop = meta.RDFaProp(val)
					}
				case "title":
					title = val
				case "datetime":
					datetime = val
				case "content":
					if datetime == nil {
						datetime = val // <span itemprop=datePublished content=...>
					}
				case "rel":
					rel = val
				case "pubdate":
					pubdate = true
				case "class", "id":
					if len(val) > 0 && len(names) < 512 {
						names = appendLower(names, val)
						names = append(names, ' ')
					}
				case "hidden":
					e.flags |= flagHidden
				case "aria-hidden":
					if string(val) == "true" {
						e.flags |= flagHidden
					}
				case "style":
					if hiddenStyle(val) {
						e.flags |= flagHidden
					}
				case "role":
					switch string(val) {
					case "navigation", "banner", "contentinfo", "complementary", "menu", "menubar", "dialog", "alertdialog":
						e.flags |= flagChromeTag
					}
				}
			}
			if len(names) > 0 {
				e.names = string(names)
			}
			d.names = names
			if kind&kindChrome != 0 {
				e.flags |= flagChromeTag
			}
			if tag == atom.Article || tag == atom.Main {
				e.flags |= flagHoldsMain
			}
			if tag != atom.Time && itemprop == nil {
				datetime = nil // a content= of another element says nothing of dates
			}
			if title != nil && datetime == nil && meta.DateNamed(e.names) {
				datetime = title // <div class="news-time" title="2020-09-20T14:20:02Z">
				pubdate = true
			}
			if tag == atom.Time || itemprop != nil || rel != nil || datetime != nil {
				d.meta.Element(int32(len(d.elems)), tag, itemprop, datetime, rel,
					pubdate || strings.Contains(e.names, "publish") || strings.Contains(e.names, "pubdate"))
			}
			if tag == atom.A {
				linkDepth++
			}
			d.elems = append(d.elems, e)
			stack = append(stack, int32(len(d.elems)-1))
		case html.EndTagToken:
			tag := tagAtom(z.Raw())
			if tag == atom.Script {
				d.meta.EndScript()
			}
			if tag == atom.Title {
				inTitle = false
				continue
			}
			if skipDepth > 0 {
				ruby := skipTag == atom.Rt || skipTag == atom.Rp
				switch {
				case tag == skipTag || tag == atom.Ruby && ruby:
					skipDepth-- // </ruby> closes an <rt> left open
					continue
				case !ruby:
					continue
				case rubyInner > 0:
					rubyInner-- // an element opened inside the annotation
					continue
				case tag == 0 || findOpen(tag, nil) <= 0:
					continue
				}
				// The end tag of an element open around the annotation (the
				// paragraph's </p>) closes an <rt> or <rp> left open, as HTML5's
				// implied end tags do; it then closes its own element below.
				skipDepth, rubyInner = 0, 0
			}
			if tag == atom.Br {
				pendingBreak = true
				continue
			}
			if tag == 0 || tag == atom.Body || tag == atom.Html {
				continue // unknown elements were folded into their parent; </body> ends nothing we need
			}
			if i := findOpen(tag, nil); i > 0 {
				closeTo(i)
			} else if tag == atom.P {
				pendingBreak = true // a stray </p> is an empty paragraph (HTML5)
			}
		}
	}
}

// readAttrs reads the current tag's attributes into the document's reused buffer,
// valid until the next tag; nil when it has none (the tokenizer keeps no attribute
// with an empty name). A tag's attributes are read once: TagAttr, for the tags
// that need it (tagAttrs), gives them only once.
func (d *doc) readAttrs(z *htmltoken.Tokenizer) []Attr {
	d.attrs = tagAttrs(z, d.attrs[:0])
	if len(d.attrs) == 0 {
		return nil
	}
	return d.attrs
}

// appendLower appends strings.ToLower(string(b)) to dst, without the string when b
// is ASCII.
func appendLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return append(dst, strings.ToLower(string(b))...)
		}
	}
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// tagAtom is atom.Lookup(z.TagName()) read from the raw tag (z.Raw()): TagName
// copies every name to replace NUL bytes, a piece of garbage per tag. The name is
// what the tokenizer reads as one (golang.org/x/net/html readTagName): the bytes
// after "<" or "</" up to white space, "/" or ">", ASCII lower-cased; a name with
// a NUL (U+FFFD once replaced) or longer than any element's is no atom we know.
func tagAtom(raw []byte) atom.Atom {
	i := 1
	if len(raw) > 1 && raw[1] == '/' {
		i = 2
	}
	var buf [maxTagName]byte
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		switch c {
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			return atom.Lookup(buf[:n])
		case 0:
			return 0
		}
		if n == len(buf) {
			return 0
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return atom.Lookup(buf[:n])
}

// maxTagName is longer than any HTML element's name that atom knows.
const maxTagName = 32

// readMeta keeps og:title, the page's own name for its headline.
func (d *doc) readMeta(attrs []Attr) {
	var prop, content []byte
	for _, a := range attrs {
		switch string(a.Key) {
		case "property", "name":
			prop = a.Val
		case "content":
			content = a.Val
		}
	}
	d.meta.AddMeta(attrs)
	if string(prop) == "og:title" && d.ogTitle == "" {
		d.ogTitle = strings.TrimSpace(string(content))
	}
}

// hiddenStyle reports an inline style that hides the element.
func hiddenStyle(v []byte) bool {
	s := strings.ReplaceAll(strings.ToLower(string(v)), " ", "")
	return strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden")
}

// runText returns a run's text.
func (d *doc) runText(r run) []byte { return d.text[r.start:r.end] }

// letterCount counts letter and digit runes, the measure of how much text says.
func letterCount(b []byte) int {
	n := 0
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				n++
			}
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if isWordRune(r) || isUnspacedScript(r) {
			n++
		}
	}
	return n
}

// docs recycles the trees' buffers: a crawler parses every page it fetches.
var docs = sync.Pool{New: func() any { return new(doc) }}

// htmlKind is the root's kinds.
var htmlKind, _ = tagKind(atom.Html)

// newDoc returns an empty tree holding only its root.
func newDoc() *doc {
	d := docs.Get().(*doc)
	if d.elems == nil {
		d.elems = make([]elem, 0, 256)
	}
	d.elems = append(d.elems, elem{tag: atom.Html, kind: htmlKind, parent: -1})
	return d
}

// release gives the tree's buffers back (nothing of it may be used after), unless a
// giant page made them too big to keep.
func (d *doc) release() {
	if cap(d.elems) > 1<<14 || cap(d.runs) > 1<<15 || cap(d.mt.Elems) > 1<<14 || cap(d.mt.Runs) > 1<<15 || cap(d.paras) > 1<<15 || cap(d.text) > 1<<20 || cap(d.out) > 1<<20 || cap(d.names) > 1<<16 || cap(d.sums) > 1<<15 {
		return
	}
	clear(d.elems) // names strings
	clear(d.attrs)
	clear(d.mt.Elems)
	*d = doc{elems: d.elems[:0], runs: d.runs[:0], text: d.text[:0], title: d.title[:0], attrs: d.attrs[:0],
		out: d.out[:0], line: d.line[:0], paras: d.paras[:0], names: d.names[:0], marks: d.marks[:0], sums: d.sums[:0],
		mt: meta.Tree{Runs: d.mt.Runs[:0], Elems: d.mt.Elems[:0]}}
	docs.Put(d)
}
