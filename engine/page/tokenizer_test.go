package page

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/htmltoken"
	"golang.org/x/net/html"
)

// TestTokenizerReuseReadsEachPageAfresh: a page read right after others (a giant one
// whose tokens outgrew the tokenizer's buffer, a truncated one, another page's
// links) yields the links and text it yields on its own.
func TestTokenizerReuseReadsEachPageAfresh(t *testing.T) {
	para := "<p>The harbour council met on Tuesday to vote on the budget for the coming year.</p>"
	page := []byte(`<html><head><title>Harbour budget</title></head><body><article><h1>Harbour budget</h1>` +
		strings.Repeat(para, 6) + `<a href="/next">next</a> <a rel="nofollow" href="/ad">ad</a></article></body></html>`)
	read := func(body []byte) (Links, string) {
		links, parsed := Read(body, "text/html; charset=utf-8", "crawlconsole")
		text, _ := parsed.PageText()
		return links, text
	}
	wantLinks, wantText := read(page)
	if !slices.Equal(wantLinks.Links, []string{"/next"}) || !strings.Contains(wantText, "harbour council") {
		t.Fatalf("on its own: links %v, text %q", wantLinks, wantText)
	}
	giant := []byte(`<html><body><script>var x = "` + strings.Repeat("y", 64<<10) + `";</script><p title="` +
		strings.Repeat("z", 16<<10) + `">` + strings.Repeat("other words here ", 4000) + `<a href="/giant">g</a></p>`)
	for _, before := range [][]byte{giant, []byte(`<html><body><a href="/cut" class="x`), page} {
		read(before)
		links, text := read(page)
		if !slices.Equal(links.Links, wantLinks.Links) || !slices.Equal(links.Nofollow, wantLinks.Nofollow) || text != wantText {
			t.Fatalf("after a page of %d bytes: links %v, text %q; on its own %v, %q", len(before), links, text, wantLinks, wantText)
		}
	}
}

// TestTokenTextIsText: a text token's text read from its raw bytes is the
// tokenizer's Text, in every kind of text (plain, script, style, title, textarea,
// plaintext) around the bytes Text changes: entities, "\r\n", NUL.
func TestTokenTextIsText(t *testing.T) {
	pieces := []string{"a", "word ", " ", "\n", "\r", "\r\n", "&amp;", "&lt", "&#65;", "&", "\x00", "é", "中",
		"<p>", "</p>", "<script>", "</script>", "<style>", "</style>", "<title>", "</title>", "<textarea>",
		"</textarea>", "<!-- c -->", "<b class=x>", "<", ">", "</", "<plaintext>"}
	r := rand.New(rand.NewPCG(9, 10))
	texts := 0
	for range 20_000 {
		var b strings.Builder
		for range r.IntN(16) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		// the same text in two tokenizers, the pass's read with tokenText, upstream's with Text
		var z htmltoken.Tokenizer
		z.Reset([]byte(b.String()))
		zt := html.NewTokenizer(strings.NewReader(b.String()))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			zt.Next()
			if tt != html.TextToken {
				continue
			}
			texts++
			if got, want := string(tokenText(&z)), string(zt.Text()); got != want {
				t.Fatalf("%q: text %q, tokenizer %q", b.String(), got, want)
			}
		}
	}
	if texts < 10_000 {
		t.Fatalf("only %d texts read", texts)
	}
}
