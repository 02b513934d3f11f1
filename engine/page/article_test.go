package page

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testcpu"
	"github.com/crawlconsole/crawlconsole/engine/page/pagetest"
)

// Class/id names on <body> and on the article's wrappers match chrome
// substrings ("ad" in f_ads_, "share" in evolve-shared-, "nav" in i-nav_drawer,
// "widget" in Blogger's "widget Blog", "sidebar" in a body class, "header" in a
// wrapper of the <article>), and the seed extractor throws the article away with
// them. The article must survive; the chrome around it must not come in.
func TestWrapperNamesNeverDiscardTheArticle(t *testing.T) {
	body := pagetest.Paras(pagetest.ArticleParas[:6])
	cases := []struct{ name, page string }{
		{"f_ads_ wrapper", `<body>` + pagetest.ChromeTop + `<div class="f_ads_container"><div class="story">` + body + `</div></div>` + pagetest.ChromeBottom + `</body>`},
		{"evolve-shared- wrapper", `<body>` + pagetest.ChromeTop + `<div id="evolve-shared-content-3"><div>` + body + `</div></div>` + pagetest.ChromeBottom + `</body>`},
		{"i-nav_drawer wrapper", `<body><div class="i-nav_drawer-pusher">` + pagetest.ChromeTop + `<main>` + body + `</main>` + pagetest.ChromeBottom + `</div></body>`},
		{"widget Blog", `<body>` + pagetest.ChromeTop + `<div class="widget Blog" id="Blog1"><div class="post-outer"><h3 class="post-title">A day on the coast</h3>` + body + `</div></div>` + pagetest.ChromeBottom + `</body>`},
		{"sidebar in body class", `<body class="home right-sidebar has-sidebar">` + pagetest.ChromeTop + `<div id="content">` + body + `</div>` + pagetest.ChromeBottom + `</body>`},
		{"row site_header around article", `<body><div class="row site_header">` + pagetest.ChromeTop + `<article><h1>Council to publish flood report</h1>` + body + `</article></div>` + pagetest.ChromeBottom + `</body>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Daily News</title></head>` + c.page + `</html>`
			text, ok := PageText([]byte(page), "text/html")
			if !ok {
				t.Fatal("no main text")
			}
			for i, p := range pagetest.ArticleParas[:6] {
				if !strings.Contains(text, p) {
					t.Fatalf("paragraph %d of the article lost; main text:\n%s", i+1, text)
				}
			}
			for _, chrome := range []string{"Most read", "Storm closes roads", "All rights reserved", "Business"} {
				if strings.Contains(text, chrome) {
					t.Errorf("chrome %q in the main text:\n%s", chrome, text)
				}
			}
			if mt, _ := MainText([]byte(page), "text/html"); mt.Fallback {
				t.Error("flagged as having no article")
			}
		})
	}
}

// A page with no recognisable article (a list of links) falls back to its visible
// text and says so; its fingerprint is never empty.
func TestNoArticleFallsBackAndIsFlagged(t *testing.T) {
	page := `<html><body>` + pagetest.ChromeTop + `<ul><li><a href="/a">Storm closes coastal roads</a></li><li><a href="/b">Council approves budget</a></li><li><a href="/c">Team wins in overtime</a></li></ul></body></html>`
	mt, ok := MainText([]byte(page), "text/html")
	if !ok || !mt.Fallback || !strings.Contains(mt.Body, "Council approves budget") {
		t.Fatalf("MainText = %+v, %v; want the links as a flagged fallback", mt, ok)
	}
	if _, ok := Fingerprint([]byte(page), "text/html"); !ok {
		t.Fatal("no fingerprint for a page without an article")
	}
}

// Bad input is handled in bounded time and memory, never a crash.
func TestBadPagesBounded(t *testing.T) {
	para := "<p>" + pagetest.ArticleParas[0] + "</p>\n"
	cases := []struct {
		name   string
		body   func() []byte
		wantOK bool
	}{
		{"50 MB page", func() []byte { return []byte("<html><body>" + strings.Repeat(para, 50<<20/len(para))) }, true},
		{"10k nested elements", func() []byte {
			return []byte(strings.Repeat("<div><span>", 10000) + para + strings.Repeat("</span></div>", 10000))
		}, true},
		{"all script", func() []byte {
			return []byte("<html><head><script>" + strings.Repeat("var a = 'text';", 100000) + "</script></head></html>")
		}, false},
		{"no body", func() []byte { return []byte("<title>t</title>" + para + para) }, true},
		{"wrong meta charset", func() []byte {
			return []byte(`<html><head><meta charset="shift_jis"></head><body>` + para + "<p>Ça coûte 5 €, dit-elle.</p></body></html>")
		}, true},
		{"huge table", func() []byte {
			var b strings.Builder
			b.WriteString("<table>")
			for i := range 200000 {
				fmt.Fprintf(&b, "<tr><td>row %d</td><td>value %d</td></tr>", i, i*7)
			}
			b.WriteString("</table>")
			return []byte(b.String())
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := c.body()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			var ok bool
			// The parse's own CPU time, which a loaded box does not stretch.
			took := testcpu.Thread(func() { _, _, ok = Sign(body, "text/html") })
			runtime.ReadMemStats(&m1)
			if ok != c.wantOK {
				t.Errorf("ok = %v, want %v", ok, c.wantOK)
			}
			if took > 20*time.Second {
				t.Errorf("took %v of CPU", took)
			}
			// The body is cut at MaxFingerprintBody: the work is bounded by that, not
			// by the page.
			if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 40*MaxFingerprintBody {
				t.Errorf("allocated %d MB for a %d MB page", alloc>>20, len(body)>>20)
			}
		})
	}
}
