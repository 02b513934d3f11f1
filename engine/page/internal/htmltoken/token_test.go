package htmltoken

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// tokens is the token stream of src as a reader of it sees it: each token's type
// and raw bytes, a text, comment or doctype token's Text, a start tag's attributes.
func tokens(next func() html.TokenType, raw, text func() []byte, attr func() ([]byte, []byte, bool)) []string {
	var out []string
	for {
		tt := next()
		s := fmt.Sprintf("%v %q", tt, raw()) // raw first: upstream's Text writes its buffer
		switch tt {
		case html.ErrorToken:
			return append(out, s)
		case html.TextToken, html.CommentToken, html.DoctypeToken:
			s += fmt.Sprintf(" text=%q", text())
		case html.StartTagToken, html.SelfClosingTagToken:
			for more := true; more; {
				var k, v []byte
				if k, v, more = attr(); k == nil && v == nil {
					break
				}
				s += fmt.Sprintf(" %q=%q", k, v)
			}
		}
		out = append(out, s)
	}
}

// compare fails when the two tokenizers read src differently, or when ours wrote it.
func compare(t *testing.T, z *Tokenizer, src []byte) {
	t.Helper()
	up := html.NewTokenizer(bytes.NewReader(src))
	want := tokens(up.Next, up.Raw, up.Text, up.TagAttr)
	orig := bytes.Clone(src)
	z.Reset(src)
	got := tokens(z.Next, z.Raw, z.Text, z.TagAttr)
	if !bytes.Equal(src, orig) {
		t.Fatalf("the body was written: %q", src)
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d tokens, upstream %d\n got %q\nwant %q", src, len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%q: token %d is\n %s\nupstream\n %s", src, i, got[i], want[i])
		}
	}
}

// seeds are the corners of the tokenizer: raw text, script escapes, comments,
// declarations, attributes (quoted, unquoted, duplicate, entities), cut input.
var seeds = []string{
	"", "plain", "a<b", "a< b", "<", "<a", "</", "</>", "<!", "<!-", "<!--", "<!-->", "<!--->",
	"<!-- x -->y", "<!-- x --!>y", "<!-- x --!", "<!-- x --", "<!-- x -", "<!-- a -- b -->",
	"<!DOCTYPE html><p>x", "<!doctype", "<!DOCT", "<!DOCTYPE", "<!DOCTYPE  >", "<?xml x?>t",
	"<![CDATA[x]]>y", "</3>x", "</ x>y", "<p>a&amp;b&lt;c&notit; &#x41;&#65</p>",
	"<p>a\r\nb\rc\r</p>", "<p>a\x00b</p>", "<title>a<b>&amp;</b></title>x", "<TITLE>x</TiTlE >",
	"<textarea>a&amp;<p></textarea>", "<style>a<b</style  >c", "<xmp>a<b></xmp>", "<iframe>a</iframe>",
	"<noscript><p>x</p></noscript>", "<plaintext>a<b></plaintext>", "<PLAINTEXT>x",
	"<script>a<b</script>c", "<script>if (a<b) x='</scr'+'ipt>';</script>d",
	"<script><!-- x <script> y </script> z --></script>w", "<script><!--<script></script>-->x</script>y",
	"<script><!-- a --> b</script>", "<script><!-<a></script>", "<script>a</script",
	"<script>a</SCRIPT>b", "<script>a</scriptx></script>", "<Script>x", "<script><!--",
	`<a href="x?a=1&amp;b=2" HREF=y title='t' data-x=1 data-x=2>`, `<a b c=d e = "f" g=>`,
	`<p a=/>`, `<p a="/"/>`, `<br/>`, `<br />`, `<img src=x/>`, `<img src=x />`, `<a =b>`,
	`<a b='c`, `<a b="c`, `<a b=c`, `<a b`, `<a/b/c>`, `<a\x00b=c\x00d>`, `<a B=1 b=2 A=3 a=4>`,
	"<a b=\"x\r\ny\">", `<a href="&lt;&amp;&quot;&#39;&copy">`, `<a x=&amp y=&ampz=1 z="&notin;">`,
	"<div\tclass=x\nid=y\fz>", "<p>x</p  \n>", "</p a=b>", "</p/>", "<p>é中文<b>ü</b></p>",
	"<svg><title>a<b>c</b></title></svg>", "<math><![CDATA[x<y]]></math>",
}

func TestSameTokens(t *testing.T) {
	var z Tokenizer
	for _, s := range seeds {
		compare(t, &z, []byte(s))
		// every cut of it too: a body may end anywhere
		for i := range len(s) {
			compare(t, &z, []byte(s[:i]))
		}
	}
}

// The pages of page's benchmarks and pins read alike.
func TestSameTokensOnPages(t *testing.T) {
	var z Tokenizer
	n := 0
	for _, p := range pinPages(t) {
		compare(t, &z, p)
		n++
	}
	if n == 0 {
		t.Fatal("no pages read")
	}
}

func FuzzSameTokens(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	var z Tokenizer
	f.Fuzz(func(t *testing.T, src []byte) {
		compare(t, &z, src)
	})
}

// pinPages are the bodies of page's pinned pages (testdata/pins).
func pinPages(t *testing.T) [][]byte {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "pins")
	var out [][]byte
	f, err := os.Open(filepath.Join(dir, "sandbox.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var p struct{ Body []byte }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Body)
		// and with the script, entity and newline corners a real page has
		b := strings.Replace(string(p.Body), "<body>", "<body><script>var a='<b>'; if (a<b) {}</script>\r\n<p>a&amp;b&nbsp;c&#8217;</p><a href=\"x?a=1&amp;b=2\">x</a>", 1)
		out = append(out, []byte(b))
	}
	return out
}
