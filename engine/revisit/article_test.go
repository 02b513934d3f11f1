package revisit

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// articleParas is a long article (over a thousand words) in English.
var articleParas = func() []string {
	var out []string
	for i := range 24 {
		out = append(out, fmt.Sprintf("Paragraph %s of the report: the council met on Tuesday evening, heard residents on the flood defences, the bus routes and the school budget, and agreed, after a long debate, to publish the engineers' findings in full before the winter storms arrive on the coast and the rivers rise again.", spell(i)))
	}
	return out
}()

func spell(i int) string {
	return []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
		"twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
		"twenty", "twenty-one", "twenty-two", "twenty-three", "twenty-four", "twenty-five", "twenty-six"}[i]
}

// chromeAround is the page chrome every wrapper-name case carries: a menu, a
// most-read list and a footer, which must stay out of the main text.
const (
	chromeTop    = `<nav><ul><li><a href="/w">World</a></li><li><a href="/b">Business</a></li></ul></nav>`
	chromeBottom = `<div class="most-read"><h3>Most read</h3><ul><li><a href="/1">Storm closes roads</a></li><li><a href="/2">Markets slip</a></li></ul></div><footer>© 2019 Daily News · All rights reserved</footer>`
)

func paras(ps []string) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("<p>" + p + "</p>\n")
	}
	return b.String()
}

// Issue 19: class/id names on <body> and on the article's wrappers matched chrome
// substrings ("ad" in f_ads_, "share" in evolve-shared-, "nav" in i-nav_drawer,
// "widget" in Blogger's "widget Blog", "sidebar" in a body class, "header" in a
// wrapper of the <article>), and the seed extractor threw the article away with
// them. The article must survive; the chrome around it must not come in.
func TestWrapperNamesNeverDiscardTheArticle(t *testing.T) {
	body := paras(articleParas[:6])
	cases := []struct{ name, page string }{
		{"f_ads_ wrapper", `<body>` + chromeTop + `<div class="f_ads_container"><div class="story">` + body + `</div></div>` + chromeBottom + `</body>`},
		{"evolve-shared- wrapper", `<body>` + chromeTop + `<div id="evolve-shared-content-3"><div>` + body + `</div></div>` + chromeBottom + `</body>`},
		{"i-nav_drawer wrapper", `<body><div class="i-nav_drawer-pusher">` + chromeTop + `<main>` + body + `</main>` + chromeBottom + `</div></body>`},
		{"widget Blog", `<body>` + chromeTop + `<div class="widget Blog" id="Blog1"><div class="post-outer"><h3 class="post-title">A day on the coast</h3>` + body + `</div></div>` + chromeBottom + `</body>`},
		{"sidebar in body class", `<body class="home right-sidebar has-sidebar">` + chromeTop + `<div id="content">` + body + `</div>` + chromeBottom + `</body>`},
		{"row site_header around article", `<body><div class="row site_header">` + chromeTop + `<article><h1>Council to publish flood report</h1>` + body + `</article></div>` + chromeBottom + `</body>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Daily News</title></head>` + c.page + `</html>`
			text, ok := PageText([]byte(page), "text/html")
			if !ok {
				t.Fatal("no main text")
			}
			for i, p := range articleParas[:6] {
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
	page := `<html><body>` + chromeTop + `<ul><li><a href="/a">Storm closes coastal roads</a></li><li><a href="/b">Council approves budget</a></li><li><a href="/c">Team wins in overtime</a></li></ul></body></html>`
	mt, ok := MainText([]byte(page), "text/html")
	if !ok || !mt.Fallback || !strings.Contains(mt.Body, "Council approves budget") {
		t.Fatalf("MainText = %+v, %v; want the links as a flagged fallback", mt, ok)
	}
	if _, ok := Fingerprint([]byte(page), "text/html"); !ok {
		t.Fatal("no fingerprint for a page without an article")
	}
}

// observePair runs two fetches of a page through a tracker, as the engine does, and
// returns the second verdict and the page state.
func observePair(t *testing.T, cfg Config, a, b string) (Verdict, *Page) {
	t.Helper()
	tr, err := NewTracker(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Page{URL: "https://news.example.com/a"}
	var v Verdict
	for i, body := range []string{a, b} {
		sig, _, ok := Sign([]byte(body), "text/html; charset=utf-8")
		if !ok {
			t.Fatalf("fetch %d: no text", i)
		}
		v = tr.Observe(p, time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC), Outcome{Hash: sig.SimHash, OK: true, Sig: sig, HasDigest: true})
	}
	return v, p
}

// newsPage is a news article with a consent banner, a counter line and a relative
// time inside the article wrapper.
func newsPage(headline string, ps []string, consent string, mins, views int) string {
	return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>` + headline + `</title></head><body>` + chromeTop +
		`<div class="article-wrap"><h1>` + headline + `</h1><p>Updated ` + fmt.Sprint(mins) + ` minutes ago · ` + fmt.Sprint(views) + ` views</p>` +
		paras(ps) + `</div>` + chromeBottom +
		`<div class="message-container"><div class="message"><p>` + consent + `</p><p><a href="#">Accept</a></p></div></div></body></html>`
}

var consentTexts = []string{
	"We and our partners use cookies and similar technologies to store and access information on your device, to measure our audience, to personalise content and advertising, and to improve our services. You can accept all cookies, refuse them, or choose purposes.",
	"This site and its partners store and read information on your device, such as cookies, to understand how readers use our pages, to show relevant content and ads, and to keep our journalism free. Choose to accept, decline or set your preferences.",
}

// Issue 19: a reworded consent banner (with the usual relative time and counter
// churn) is not a change, even beside a short article; a paragraph appended to a
// long article is, and so is a new headline. The seed's SimHash rule saw the banner
// and missed the appended paragraph.
func TestConsentChurnIsNoChangeButAnAppendedParagraphIs(t *testing.T) {
	short := articleParas[:2]
	long := articleParas
	appended := append(append([]string(nil), long...), "The council also said on Wednesday that the engineers' report would be followed by a public meeting in the town hall, where residents may question the authors.")
	cases := []struct {
		name       string
		a, b       string
		want       Verdict
		wantReason ChangeReason
	}{
		{"consent reworded, short article", newsPage("Flood report", short, consentTexts[0], 5, 1204), newsPage("Flood report", short, consentTexts[1], 47, 98765), VerdictUnchanged, ReasonBoilerplate},
		{"consent reworded, long article", newsPage("Flood report", long, consentTexts[0], 5, 1204), newsPage("Flood report", long, consentTexts[1], 47, 98765), VerdictUnchanged, ReasonBoilerplate},
		{"paragraph appended to a long article", newsPage("Flood report", long, consentTexts[0], 5, 1204), newsPage("Flood report", appended, consentTexts[0], 5, 1204), VerdictChanged, ReasonText},
		{"headline rewritten", newsPage("Flood report", long, consentTexts[0], 5, 1204), newsPage("Council delays flood report", long, consentTexts[0], 5, 1204), VerdictChanged, ReasonHeadline},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, p := observePair(t, Config{}, c.a, c.b)
			if v != c.want || p.Reason != c.wantReason {
				t.Fatalf("verdict %v (%v), want %v (%v); SimHash distance %d", v, p.Reason, c.want, c.wantReason, p.Distance)
			}
			if c.want == VerdictChanged && (p.X != 2 || p.Change.Reason != c.wantReason || p.Change.Distance != p.Distance) {
				t.Errorf("x = %d, last change %+v; want x 2 and the change recorded", p.X, p.Change)
			}
		})
	}
}

// The small-edit policy: three words changed in a long article count by default and
// not under "ignore".
func TestSmallEditsPolicy(t *testing.T) {
	edited := append([]string(nil), articleParas...)
	edited[10] = strings.Replace(edited[10], "heard residents on", "heard officials about", 1)
	a := newsPage("Flood report", articleParas, consentTexts[0], 5, 1204)
	b := newsPage("Flood report", edited, consentTexts[0], 5, 1204)
	if v, _ := observePair(t, Config{}, a, b); v != VerdictChanged {
		t.Errorf("default policy: verdict %v, want changed", v)
	}
	if v, p := observePair(t, Config{SmallEdits: SmallEditsIgnore}, a, b); v != VerdictUnchanged || p.Reason != ReasonSmallEdit {
		t.Errorf("ignore policy: verdict %v (%v), want unchanged (small edit)", v, p.Reason)
	}
	if _, err := NewTracker(Config{SmallEdits: "sometimes"}, nil); err == nil {
		t.Error("an unknown small-edit policy was accepted")
	}
}

// Bad input is handled in bounded time and memory, never a crash.
func TestBadPagesBounded(t *testing.T) {
	para := "<p>" + articleParas[0] + "</p>\n"
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
			start := time.Now()
			_, _, ok := Sign(body, "text/html")
			took := time.Since(start)
			runtime.ReadMemStats(&m1)
			if ok != c.wantOK {
				t.Errorf("ok = %v, want %v", ok, c.wantOK)
			}
			if took > 20*time.Second {
				t.Errorf("took %v", took)
			}
			// The body is cut at MaxFingerprintBody: the work is bounded by that, not
			// by the page.
			if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 40*MaxFingerprintBody {
				t.Errorf("allocated %d MB for a %d MB page", alloc>>20, len(body)>>20)
			}
		})
	}
}

// SummarizeChange names the replaced and added paragraphs and a new headline.
func TestSummarizeChange(t *testing.T) {
	before := "Flood report\nFirst paragraph.\nSecond paragraph.\nThird paragraph."
	after := "Council delays flood report\nFirst paragraph.\nSecond paragraph, rewritten.\nThird paragraph.\nAn update at the end."
	got := SummarizeChange(before, after)
	for _, want := range []string{`headline: "Flood report" -> "Council delays flood report"`, "1 replaced, 1 added, 0 removed",
		"- Second paragraph.", "+ Second paragraph, rewritten.", "+ An update at the end."} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if got := SummarizeChange("", after); got != "no change seen yet" {
		t.Errorf("no previous text: %q", got)
	}
}

// TestSpaceRune: the white space appendCollapsed folds is Unicode's, for every rune.
func TestSpaceRune(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if spaceRune(r) != unicode.IsSpace(r) {
			t.Fatalf("%U: spaceRune %v, unicode.IsSpace %v", r, spaceRune(r), unicode.IsSpace(r))
		}
	}
}
