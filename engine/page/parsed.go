package page

import (
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/bodytext"
	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
	"github.com/crawlconsole/crawlconsole/engine/page/meta"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// One tokenizer pass per page. Every reader of a fetched page takes what it needs
// from one pass over its bytes: the fetcher's links and directives (a TagSink fed
// during the pass), the main text and the change signature (Parsed.Sign, from the
// tree the pass built), the block-page judge (Parsed.PageText) and discovery's feed
// links (the sink again). Parse runs that pass (parseDoc); ScanTags is the pass for a
// page nothing else reads (an error page, for its links).

// Attr is one attribute of a start tag as golang.org/x/net/html's tokenizer gives
// it: the key lower-cased, the value unescaped. Both are valid only during the
// TagSink.StartTag call.
type Attr = textutil.Attr

// TagSink reads start tags during a page's tokenizer pass (Parse, ScanTags), so that
// a caller that needs them, the fetcher's link extraction, does not tokenize the page
// a second time.
type TagSink interface {
	// Wants says whether StartTag should be called for tags of this kind; the
	// attributes of other tags are not read for the sink (reading costs copies).
	Wants(tag atom.Atom) bool
	// StartTag is called, in document order, for each start or self-closing tag
	// of a wanted kind that has attributes, with all of them in source order.
	StartTag(tag atom.Atom, attrs []Attr)
}

// passes counts tokenizer passes over page bodies (TokenizerPasses).
var passes atomic.Uint64

// TokenizerPasses is how many times this process has tokenized a page body: one per
// page read through Parse or ScanTags, the figure that shows no reader of a page
// tokenizes it again.
func TokenizerPasses() uint64 { return passes.Load() }

// Parsed is a body decoded and tokenized once (Parse): its tree until the main text
// is extracted, then that text.
type Parsed struct {
	body        []byte // the body parsed: Sign checks it is handed the same one
	contentType string
	decoded     []byte
	isHTML, ok  bool
	valid       bool // decoded is valid UTF-8
	doc         *doc // nil until parsed, and again once the text is extracted
	text        Text // the main text, once extracted (textDone)
	textOK      bool
	textDone    bool
	title       string    // the document's <title>, spaces collapsed (DocTitle)
	meta        *meta.Raw // what the parse kept for Meta, once the text is extracted
	noMeta      bool      // ParseTextOnly: the tree is not read for metadata
}

// Parse decodes a body as Sign does and, for HTML, builds the extractor's tree in one
// tokenizer pass; sink (may be nil) gets its start tags from the same pass. Every
// start tag of the body reaches the sink: a UTF-8 page's own bytes are tokenized to
// their end (the tree stops at MaxFingerprintBody), a page in another encoding is
// tokenized as decoded (its links come as UTF-8, as a browser reads them; past
// MaxFingerprintBody its tags are not read), and a body with no tree to build (plain
// text, no usable text) is scanned for the sink alone (ScanTags).
func Parse(body []byte, contentType string, sink TagSink) *Parsed {
	p := &Parsed{body: body, contentType: contentType}
	p.decoded, p.isHTML, p.valid, p.ok = decodeText(body, contentType)
	switch {
	case p.ok && p.isHTML:
		src := p.decoded
		if prefixOf(p.decoded, body) {
			src = body // UTF-8, perhaps cut: the sink reads on past the cut
		}
		p.doc = parseDoc(src, len(p.decoded), sink)
	case sink != nil:
		ScanTags(body, sink)
	}
	return p
}

// ParseTextOnly is Parse (no sink) without the metadata's reading of the tree: its
// Meta is empty. It is the baseline that shows what Meta costs on top of the parse
// (go run ./bench metadata).
func ParseTextOnly(body []byte, contentType string) *Parsed {
	p := &Parsed{body: body, contentType: contentType, noMeta: true}
	p.decoded, p.isHTML, p.valid, p.ok = decodeText(body, contentType)
	if p.ok && p.isHTML {
		src := p.decoded
		if prefixOf(p.decoded, body) {
			src = body
		}
		p.doc = parseDoc(src, len(p.decoded), nil)
	}
	return p
}

// prefixOf reports whether a is b or a prefix of b in the same memory (decodeText
// hands back the body itself, perhaps cut, when it is UTF-8).
func prefixOf(a, b []byte) bool {
	return len(a) <= len(b) && len(a) > 0 && &a[0] == &b[0]
}

// sameBytes reports whether a and b are the same slice of memory.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// ScanTags tokenizes a body for a sink's start tags alone, building nothing: the
// pass for a page whose text nobody reads. The tokenizer is as lenient as browsers:
// broken markup and invalid UTF-8 yield what can be read.
func ScanTags(body []byte, sink TagSink) {
	passes.Add(1)
	tz := newTokenizer(body)
	defer tz.release()
	z := &tz.z
	var attrs []Attr
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.StartTagToken, html.SelfClosingTagToken:
			tag := tagAtom(z.Raw())
			if !sink.Wants(tag) {
				continue
			}
			attrs = tagAttrs(z, attrs[:0])
			if len(attrs) > 0 {
				sink.StartTag(tag, attrs)
			}
		}
	}
}

// Sign returns Sign(body, contentType), from the parse when it was a parse of that
// body and type, else (p nil, or another body) by reading body afresh.
func (p *Parsed) Sign(body []byte, contentType string) (sig Signature, t Text, ok bool) {
	if p == nil || p.contentType != contentType || !sameBytes(p.body, body) {
		p = Parse(body, contentType, nil)
	}
	return p.sign()
}

// PageTextOf returns PageText(body, contentType), from the parse when it was a parse
// of that body and type (nothing is tokenized again), else (p nil, or another body)
// by reading body afresh.
func (p *Parsed) PageTextOf(body []byte, contentType string) (text string, ok bool) {
	if p == nil || p.contentType != contentType || !sameBytes(p.body, body) {
		p = Parse(body, contentType, nil)
	}
	return p.PageText()
}

// PageText is PageText of the parsed body: the headline, then one paragraph a line.
// The tree goes back to a pool once the text is out; the text is kept for Sign.
func (p *Parsed) PageText() (text string, ok bool) {
	t, ok := p.mainText()
	if !ok {
		return "", false
	}
	return t.joined(), true
}

// PageTextLen is len of PageText's text, without building it: what a reader that
// weighs how much text a page has (the render decision) needs.
func (p *Parsed) PageTextLen() (n int, ok bool) {
	t, ok := p.mainText()
	switch {
	case !ok:
		return 0, false
	case t.Title == "":
		return len(t.Body), true
	}
	return len(t.Title) + 1 + len(t.Body), true
}

// DocTitle is the document's <title> (not an <svg>'s), spaces collapsed, as the
// parse read it; ok is false when there was no tree to read it from (not HTML, or
// no usable text), for the caller to read the title its own way.
func (p *Parsed) DocTitle() (title string, ok bool) {
	if !p.ok || !p.isHTML {
		return "", false
	}
	p.mainText()
	return p.title, true
}

// mainText is MainText of the parsed body, extracted once.
func (p *Parsed) mainText() (t Text, ok bool) {
	if !p.textDone {
		p.text, p.textOK = p.extractText()
		p.textDone = true
	}
	return p.text, p.textOK
}

// extractText extracts the main text from the tree (and releases it).
func (p *Parsed) extractText() (t Text, ok bool) {
	if !p.ok {
		return Text{}, false
	}
	if !p.isHTML {
		t = Text{Body: collapseLines(string(p.decoded))}
	} else {
		d := p.doc
		if d == nil {
			d = parseDoc(p.decoded, len(p.decoded), nil)
		}
		p.doc = nil
		p.title = collapseTitle(d.title)
		t = extract(d)
		if !p.noMeta {
			m := d.meta
			m.FromTree(d.metaTree(), p.title, t.Title, t.Body)
			p.meta = &m
		}
		d.release()
	}
	if t.Title == "" && t.Body == "" || !p.valid && !bodytext.Usable(t.Title+"\n"+t.Body) {
		// Valid UTF-8 was checked for letters by the extractor (a paragraph has
		// some); text with invalid bytes must not be mostly replacement characters.
		return Text{}, false
	}
	return t, true
}

// collapseTitle is strings.Join(strings.Fields(string(b)), " "): the fields between
// white space (unicode.IsSpace, the runes textutil.AppendCollapsed folds) joined by
// one space, built once for valid UTF-8 (AppendCollapsed would write U+FFFD for an
// invalid byte that Fields keeps).
func collapseTitle(b []byte) string {
	if !utf8.Valid(b) {
		return strings.Join(strings.Fields(string(b)), " ")
	}
	return textutil.CollapseBytes(b)
}
