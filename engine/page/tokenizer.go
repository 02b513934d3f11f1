package page

import (
	"bytes"
	"sync"

	"golang.org/x/net/html"
)

// A crawler tokenizes every page it fetches, and html.NewTokenizer allocates a 4 KB
// buffer and an attribute-name map each time: more than the whole of a small page.
// The package has no Reset, but a Tokenizer is a plain value: a copy of one taken
// as NewTokenizer made it, over a reader of our own, is a tokenizer at the start of
// whatever that reader holds next, sharing the first one's buffer (empty: length
// 0) and map (cleared at every tag). Nothing the parse keeps points into the
// buffer: text, titles, names and attribute values are copied out as they are
// read, so the buffer may serve the next page once a pass is done.

// pageTokenizer is a reusable tokenizer over one body at a time.
type pageTokenizer struct {
	z     html.Tokenizer
	r     bytes.Reader
	fresh html.Tokenizer // as NewTokenizer made it, reading r
	stack []int32        // parseDoc's open elements (at most maxDepth), kept for the next pass
}

// tokenizers recycles the tokenizers of finished passes.
var tokenizers = sync.Pool{New: func() any {
	t := new(pageTokenizer)
	t.fresh = *html.NewTokenizer(&t.r)
	return t
}}

// newTokenizer returns a tokenizer at the start of src; release gives it back.
func newTokenizer(src []byte) *pageTokenizer {
	t := tokenizers.Get().(*pageTokenizer)
	t.r.Reset(src)
	t.z = t.fresh
	return t
}

// release gives the tokenizer back once its pass is done: nothing it returned may
// be used after.
func (t *pageTokenizer) release() {
	t.r.Reset(nil) // the body is not kept
	t.z = html.Tokenizer{}
	tokenizers.Put(t)
}

// tokenText is z.Text() of a text token. Text folds "\r\n", unescapes and
// replaces NUL a byte at a time, in place; a text with no '&', '\r' or NUL, most of
// a page's, is its raw bytes as they are (a text token's raw bytes are its data),
// found so with three vectorised searches (TestTokenTextIsText).
func tokenText(z *html.Tokenizer) []byte {
	if raw := z.Raw(); bytes.IndexByte(raw, '&') < 0 && bytes.IndexByte(raw, '\r') < 0 && bytes.IndexByte(raw, 0) < 0 {
		return raw
	}
	return z.Text()
}
