package page

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// FuzzTagAtom: the element parseDoc sees for each tag, read from the raw token
// (tagAtom), is the one the tokenizer's own TagName names, for any body.
func FuzzTagAtom(f *testing.F) {
	for _, s := range []string{`<HTML><Body CLASS=x><DIV/><p >x</P ><a/b href=y></a\t>`, "<a\x00b>x</a\x00b>",
		"<svg:rect></svg:rect><" + strings.Repeat("x", 40) + "></" + strings.Repeat("y", 26) + ">",
		`<script>x</script ><style>y</STYLE><textarea><b></textarea><title>t</TITLE>`, "<ÄB><a\fhref=z>", "</>", "<a",
		"<!doctype html><!-- <a> --><![CDATA[<b>]]><p\nclass=q>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		z := html.NewTokenizer(bytes.NewReader(body))
		for {
			switch z.Next() {
			case html.ErrorToken:
				return
			case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
				raw := string(z.Raw())
				name, _ := z.TagName()
				if got, want := tagAtom([]byte(raw)), atom.Lookup(name); got != want {
					t.Fatalf("tag %q: tagAtom %v, TagName %q (%v)", raw, got, name, want)
				}
			}
		}
	})
}

// TestTagKindIsTheSets: the probed table answers as the sets and siblingScope do
// for every atom value up to 1<<20 (the package's own reach 0x72b04) and for 0.
func TestTagKindIsTheSets(t *testing.T) {
	sets := map[uint8]map[atom.Atom]bool{kindRawSkip: rawSkip, kindHead: headTags, kindChrome: chromeTags,
		kindBlock: blockTags, kindVoid: voidTags, kindClosesP: closesP}
	for v := range uint32(1 << 20) {
		tag := atom.Atom(v)
		want := uint8(0)
		for kind, set := range sets {
			if set[tag] {
				want |= kind
			}
		}
		kind, bounds := tagKind(tag)
		wantBounds, ok := siblingScope[tag]
		if kind != want || ok != (bounds != nil) || !slices.Equal(bounds, wantBounds) {
			t.Fatalf("%v (%#x): kind %b, bounds %v; the sets say %b, %v", tag, v, kind, bounds, want, wantBounds)
		}
	}
}
