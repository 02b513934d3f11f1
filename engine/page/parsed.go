package page

import (
	"sync"

	"golang.org/x/net/html/atom"
)

// One tokenizer pass per page. The fetcher reads every HTML page for its links
// (engine/fetch) and the engine reads it again for its change signature (Sign); the
// two reads were two tokenizer passes over the same bytes, the larger part of what a
// page costs once fetched. Parse runs the extractor's pass (parseDoc) and hands the
// start tags a TagSink asks for to it on the way, then keeps the tree until Sign
// finishes the work.

// Attr is one attribute of a start tag as golang.org/x/net/html's tokenizer gives
// it: the key lower-cased, the value unescaped. Both are valid only during the
// TagSink.StartTag call.
type Attr struct{ Key, Val []byte }

// TagSink reads start tags during the extractor's tokenizer pass (Parse), so that a
// caller that needs them, the fetcher's link extraction, does not tokenize the page
// a second time.
type TagSink interface {
	// Wants says whether StartTag should be called for tags of this kind; the
	// attributes of other tags are not read for the sink (reading costs copies).
	Wants(tag atom.Atom) bool
	// StartTag is called, in document order, for each start or self-closing tag
	// of a wanted kind that has attributes, with all of them in source order.
	StartTag(tag atom.Atom, attrs []Attr)
}

// Parsed is a body decoded and tokenized once (Parse), waiting for Sign.
type Parsed struct {
	body        []byte // the body parsed: Sign checks it is handed the same one
	contentType string
	decoded     []byte
	isHTML, ok  bool
	valid       bool // decoded is valid UTF-8
	doc         *doc // nil until parsed, and again once used
}

// Parse decodes a body as Sign does and, for HTML, builds the extractor's tree; sink
// (may be nil) gets its start tags from the same pass. shared reports that the pass
// ran over the body's own bytes, so that the sink saw every start tag of the body as
// a tokenizer over it would: true for a UTF-8 HTML page (the common case), false for
// other encodings (the tree is built from the decoded text), plain text and bodies
// with no usable text, which the caller must then read itself.
func Parse(body []byte, contentType string, sink TagSink) (p *Parsed, shared bool) {
	p = &Parsed{body: body, contentType: contentType}
	p.decoded, p.isHTML, p.valid, p.ok = decodeText(body, contentType)
	if !p.ok || !p.isHTML {
		return p, false
	}
	shared = sink != nil && sameBytes(p.decoded, body)
	if !shared {
		sink = nil
	}
	p.doc = parseDoc(p.decoded, sink)
	return p, shared
}

// sameBytes reports whether a and b are the same slice of memory (decodePage hands
// back the body itself when it is UTF-8 and not cut).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Sign returns Sign(body, contentType), from the parse when it was a parse of that
// body and type, else (p nil, or another body) by reading body afresh. The tree goes
// back to a pool: a second call reads the body again.
func (p *Parsed) Sign(body []byte, contentType string) (sig Signature, t Text, ok bool) {
	if p == nil || p.contentType != contentType || !sameBytes(p.body, body) {
		p, _ = Parse(body, contentType, nil)
	}
	return p.sign()
}

// mainText is MainText of the parsed body.
func (p *Parsed) mainText() (t Text, ok bool) {
	if !p.ok {
		return Text{}, false
	}
	if !p.isHTML {
		t = Text{Body: collapseLines(string(p.decoded))}
	} else {
		d := p.doc
		if d == nil {
			d = parseDoc(p.decoded, nil)
		}
		p.doc = nil
		t = extract(d)
		d.release()
	}
	if t.Title == "" && t.Body == "" || !p.valid && !usableText(t.Title+"\n"+t.Body) {
		// Valid UTF-8 was checked for letters by the extractor (a paragraph has
		// some); text with invalid bytes must not be mostly replacement characters.
		return Text{}, false
	}
	return t, true
}

// docs recycles the trees' buffers: a crawler parses every page it fetches.
var docs = sync.Pool{New: func() any { return new(doc) }}

// newDoc returns an empty tree holding only its root.
func newDoc() *doc {
	d := docs.Get().(*doc)
	if d.elems == nil {
		d.elems = make([]elem, 0, 256)
	}
	d.elems = append(d.elems, elem{tag: atom.Html, parent: -1})
	return d
}

// release gives the tree's buffers back (nothing of it may be used after), unless a
// giant page made them too big to keep.
func (d *doc) release() {
	if cap(d.elems) > 1<<14 || cap(d.runs) > 1<<15 || cap(d.paras) > 1<<15 || cap(d.text) > 1<<20 || cap(d.out) > 1<<20 {
		return
	}
	clear(d.elems) // names strings
	clear(d.attrs)
	*d = doc{elems: d.elems[:0], runs: d.runs[:0], text: d.text[:0], title: d.title[:0], attrs: d.attrs[:0],
		out: d.out[:0], line: d.line[:0], paras: d.paras[:0]}
	docs.Put(d)
}
