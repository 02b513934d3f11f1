package page

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestRawAttrsAreTagAttrs: the attributes read from a tag's raw bytes are the
// tokenizer's, key for key and value for value (an empty value nil, as TagAttr
// gives it), on tags made of the bytes its rules turn on: quotes, '=', '/', white
// space, repeated and upper-case keys, entities, NUL and '\r'.
func TestRawAttrsAreTagAttrs(t *testing.T) {
	pieces := []string{" ", "  ", "\t", "\n", "\r", "\f", "=", "==", "'", "\"", "/", "a", "b", "ab", "B",
		"href", "x-y", ":", "&amp;", "&", "\x00", "é", "<", "v1", "= ", " =", `="q"`, `='q w'`, "=u/v"}
	r := rand.New(rand.NewPCG(5, 6))
	fast := 0
	for n := range 200_000 {
		var b strings.Builder
		b.WriteString("<div")
		if n%7 != 0 {
			b.WriteByte(' ')
		}
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		b.WriteString(">text</div>")
		doc := b.String()
		z := html.NewTokenizer(strings.NewReader(doc))
		switch z.Next() {
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue // no tag: the quotes ran to the end
		}
		got, ok := rawAttrs(z.Raw(), nil)
		var want []Attr
		for more := true; more; {
			var a Attr
			if a.Key, a.Val, more = z.TagAttr(); len(a.Key) == 0 {
				break
			}
			want = append(want, a)
		}
		if !ok {
			continue
		}
		fast++
		if len(got) != len(want) {
			t.Fatalf("%q: %d attributes %q, tokenizer %d %q", doc, len(got), got, len(want), want)
		}
		for i := range got {
			if !bytes.Equal(got[i].Key, want[i].Key) || !bytes.Equal(got[i].Val, want[i].Val) || (got[i].Val == nil) != (want[i].Val == nil) {
				t.Fatalf("%q: attribute %d %q=%q, tokenizer %q=%q", doc, i, got[i].Key, got[i].Val, want[i].Key, want[i].Val)
			}
		}
	}
	if fast < 50_000 {
		t.Fatalf("only %d of the tags read from their raw bytes", fast)
	}
}
