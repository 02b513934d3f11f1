// Copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package htmltoken is golang.org/x/net/html's Tokenizer (v0.62.0, token.go) over
// a body held whole in memory, for the one tokenizer pass a crawler makes over
// every page it fetches. It yields the same tokens with the same raw bytes
// (TestSameTokens, FuzzSameTokens compare the two); what differs is the cost:
//   - the upstream tokenizer reads through an io.Reader into a buffer of its own,
//     one function call a byte (readByte, a tenth of a page's CPU); here the body
//     is the buffer and readByte is an index that inlines;
//   - the runs that only look for one byte (text up to '<', a quoted attribute
//     value up to its quote, raw text up to "</") jump to it with bytes.IndexByte;
//   - a start tag's duplicate attributes are told by comparing its keys, not by
//     a copy of each key kept in a map (two allocations an attribute upstream).
//
// The body is never written: Text copies a token's bytes before folding newlines
// or unescaping them, and TagAttr reads the tag with the upstream tokenizer (the
// tags whose attributes need unescaping are few; page reads the others from Raw).
package htmltoken

import (
	"bytes"
	"io"

	"golang.org/x/net/html"
)

// The token types are the upstream tokenizer's.
const (
	ErrorToken          = html.ErrorToken
	TextToken           = html.TextToken
	StartTagToken       = html.StartTagToken
	EndTagToken         = html.EndTagToken
	SelfClosingTagToken = html.SelfClosingTagToken
	CommentToken        = html.CommentToken
	DoctypeToken        = html.DoctypeToken
)

// span is a range of bytes in a Tokenizer's buffer. The start is inclusive,
// the end is exclusive.
type span struct {
	start, end int
}

// A Tokenizer returns the HTML tokens of one body, as html.Tokenizer does; Reset
// starts it on the next. The zero value is a tokenizer at the end of an empty body.
type Tokenizer struct {
	// tt is the TokenType of the current token.
	tt html.TokenType
	// err is the first error encountered during tokenization (io.EOF at the end
	// of the body); it is never reset. It is possible for tt != Error && err !=
	// nil to hold: Next returned a valid token but the next call returns an
	// error token.
	err error
	// buf[raw.start:raw.end] holds the raw bytes of the current token.
	// buf[raw.end:] is the input that will yield future tokens.
	raw span
	buf []byte
	// buf[data.start:data.end] holds the raw bytes of the current token's data:
	// a text token's text, a tag token's tag name, etc.
	data span
	// pendingAttr is the attribute key and value currently being tokenized;
	// attr are the start tag's attributes kept (the first of each key).
	pendingAttr [2]span
	attr        [][2]span
	// rawTag is the "script" in "</script>" that closes the next token. If
	// non-empty, the subsequent call to Next will return a raw or RCDATA text
	// token: one that treats "<p>" as text instead of an element.
	// rawTag's contents are lower-cased.
	rawTag string
	// textIsRaw is whether the current text token's data is not escaped.
	textIsRaw bool
	// convertNUL is whether NUL bytes in the current token's data should
	// be converted into \ufffd replacement characters.
	convertNUL bool
	// text holds what Text returns when it is not the body's own bytes.
	text []byte
	// up reads the current tag's attributes for TagAttr (upRead: it has).
	up     *upstream
	upRead bool
}

// upstream is an html.Tokenizer reused over one tag at a time: NewTokenizer
// allocates a buffer and a map, a copy of the one it made starts afresh on
// whatever the reader holds next.
type upstream struct {
	z     html.Tokenizer
	r     bytes.Reader
	fresh *html.Tokenizer
}

// Reset starts the tokenizer at the beginning of src, which it reads and never
// writes; nothing of the previous body is kept.
func (z *Tokenizer) Reset(src []byte) {
	*z = Tokenizer{buf: src, attr: z.attr[:0], text: z.text[:0], up: z.up}
	if z.up != nil {
		z.up.r.Reset(nil)
	}
}

// Release drops the body, so that a pooled tokenizer does not keep it alive.
func (z *Tokenizer) Release() { z.Reset(nil) }

// readByte returns the next byte of the body, or sets z.err to io.EOF at its end.
// z.buf[z.raw.start:z.raw.end] holds all the bytes read so far for the current
// token.
// Pre-condition: z.err == nil.
func (z *Tokenizer) readByte() byte {
	if z.raw.end >= len(z.buf) {
		z.err = io.EOF
		return 0
	}
	x := z.buf[z.raw.end]
	z.raw.end++
	return x
}

// skipTo reads up to and including the next byte c, as a loop of readByte that
// stops at c would; at the end of the body without one, it sets z.err.
func (z *Tokenizer) skipTo(c byte) {
	if i := bytes.IndexByte(z.buf[z.raw.end:], c); i >= 0 {
		z.raw.end += i + 1
		return
	}
	z.raw.end = len(z.buf)
	z.err = io.EOF
}

// skipWhiteSpace skips past any white space.
func (z *Tokenizer) skipWhiteSpace() {
	if z.err != nil {
		return
	}
	for {
		c := z.readByte()
		if z.err != nil {
			return
		}
		switch c {
		case ' ', '\n', '\r', '\t', '\f':
			// No-op.
		default:
			z.raw.end--
			return
		}
	}
}

// readRawOrRCDATA reads until the next "</foo>", where "foo" is z.rawTag and
// is typically something like "script" or "textarea".
func (z *Tokenizer) readRawOrRCDATA() {
	if z.rawTag == "script" {
		z.readScript()
		z.textIsRaw = true
		z.rawTag = ""
		return
	}
loop:
	for {
		if z.skipTo('<'); z.err != nil {
			break loop
		}
		c := z.readByte()
		if z.err != nil {
			break loop
		}
		if c != '/' {
			z.raw.end--
			continue loop
		}
		if z.readRawEndTag() || z.err != nil {
			break loop
		}
	}
	z.data.end = z.raw.end
	// A textarea's or title's RCDATA can contain escaped entities.
	z.textIsRaw = z.rawTag != "textarea" && z.rawTag != "title"
	z.rawTag = ""
}

// readRawEndTag attempts to read a tag like "</foo>", where "foo" is z.rawTag.
// If it succeeds, it backs up the input position to reconsume the tag and
// returns true. Otherwise it returns false. The opening "</" has already been
// consumed.
func (z *Tokenizer) readRawEndTag() bool {
	for i := 0; i < len(z.rawTag); i++ {
		c := z.readByte()
		if z.err != nil {
			return false
		}
		if c != z.rawTag[i] && c != z.rawTag[i]-('a'-'A') {
			z.raw.end--
			return false
		}
	}
	c := z.readByte()
	if z.err != nil {
		return false
	}
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		// The 3 is 2 for the leading "</" plus 1 for the trailing character c.
		z.raw.end -= 3 + len(z.rawTag)
		return true
	}
	z.raw.end--
	return false
}
