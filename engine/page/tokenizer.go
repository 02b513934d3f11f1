package page

import (
	"bytes"
	"sync"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/htmltoken"
)

// A crawler tokenizes every page it fetches: the pass reads the body in place with
// htmltoken (golang.org/x/net/html's tokenizer over a body held in memory, the
// same tokens), and the tokenizers of finished passes are reused. Nothing the
// parse keeps points into the body: text, titles, names and attribute values are
// copied out as they are read.

// pageTokenizer is a reusable tokenizer over one body at a time.
type pageTokenizer struct {
	z     htmltoken.Tokenizer
	stack []int32 // parseDoc's open elements (at most maxDepth), kept for the next pass
}

// tokenizers recycles the tokenizers of finished passes.
var tokenizers = sync.Pool{New: func() any { return new(pageTokenizer) }}

// newTokenizer returns a tokenizer at the start of src; release gives it back.
func newTokenizer(src []byte) *pageTokenizer {
	t := tokenizers.Get().(*pageTokenizer)
	t.z.Reset(src)
	return t
}

// release gives the tokenizer back once its pass is done: nothing it returned may
// be used after.
func (t *pageTokenizer) release() {
	t.z.Release() // the body is not kept
	tokenizers.Put(t)
}

// tokenText is z.Text() of a text token: a text with no '&', '\r' or NUL, most of
// a page's, is its raw bytes as they are (a text token's raw bytes are its data),
// found so with three vectorised searches (TestTokenTextIsText).
func tokenText(z *htmltoken.Tokenizer) []byte {
	if raw := z.Raw(); bytes.IndexByte(raw, '&') < 0 && bytes.IndexByte(raw, '\r') < 0 && bytes.IndexByte(raw, 0) < 0 {
		return raw
	}
	return z.Text()
}
