package page

import (
	"strings"
	"testing"
)

// FuzzFingerprint: the main-text extractor and fingerprint take any body in bounded
// work and never panic, the same body always gives the same fingerprint, and the
// change signature (Sign) agrees with it.
func FuzzFingerprint(f *testing.F) {
	for _, s := range []string{"<html><body><article><p>台风来袭，沿海地区发布预警。</p></article></body></html>",
		"<body class=sidebar><div class=f_ads_x><p>text</p></div>", "<script>" + strings.Repeat("x", 1000) + "</script>",
		"\xff\xfe\x00", strings.Repeat("<table><tr><td>", 2000), "no html at all",
		// wrapper names, unclosed head, svg titles, implied ends, hidden text
		`<div class="widget Blog"><div class="row site_header"><article><p>one, two, three, four, five words</p></article></div></div>`,
		`<html><head><title>t</title><div id="evolve-shared-1"><p>head never closed, text follows it</p>`,
		`<svg><title>icon</title></svg><p>after the svg title<p>implied end<li>item<li>item</ul>`,
		`<body class="right-sidebar"><div class="i-nav_drawer" hidden><p>hidden</p></div><main><p>main text here, with commas, and more</p></main>`,
		strings.Repeat("<div><span>", 600) + "<p>deep</p>",
		`<meta property="og:title" content="Headline"><h1>Other</h1><figure><figcaption>caption</figcaption></figure>`} {
		f.Add([]byte(s), "text/html; charset=utf-8")
	}
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		h1, ok1 := Fingerprint(body, ctype)
		h2, ok2 := Fingerprint(body, ctype)
		if h1 != h2 || ok1 != ok2 {
			t.Fatalf("two fingerprints of one body: %x/%v vs %x/%v", h1, ok1, h2, ok2)
		}
		// The change signature agrees with the fingerprint, and text is never empty
		// when there is a signature (never an empty fingerprint).
		sig, text, ok := Sign(body, ctype)
		if ok != ok1 || ok && (sig.SimHash != h1 || text.Title+text.Body == "") {
			t.Fatalf("Sign = %+v, %+v, %v; Fingerprint %x, %v", sig, text, ok, h1, ok1)
		}
	})
}
