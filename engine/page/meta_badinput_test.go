package page

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/page/meta"
)

// Hostile and broken pages: bounded work, the most plausible date or none, never a
// crash.

func TestMetadataHundredsOfDates(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		b.WriteString("<li>Archive " + time.Date(2001+i%20, time.Month(1+i%12), 1+i%28, 0, 0, 0, 0, time.UTC).Format("January 2, 2006") + "</li>")
	}
	html := `<html><body><h1>Flood waters recede across the valley</h1><p class="dateline">March 5, 2024</p>
		<p>Residents returned to their homes on Tuesday as the river fell below its banks, officials said today.</p>
		<ul class="archive">` + b.String() + `</ul></body></html>`
	p := Parse([]byte(html), "text/html", nil)
	md := p.Meta("", metaNow)
	if md.Published.Day() != "2024-03-05" {
		t.Errorf("published %s (%s), want the date line below the headline, 2024-03-05", md.Published, md.Published.From)
	}
	if n := p.meta.Kept().TextDates; n > meta.Bounds.TextDates {
		t.Errorf("%d text dates kept, bound %d", n, meta.Bounds.TextDates)
	}
}

func TestMetadataImplausibleDates(t *testing.T) {
	for _, tc := range []struct{ name, html, want string }{
		{"future and 1970 in meta, the page's own line kept",
			`<html><head><meta property="article:published_time" content="2999-01-01T00:00:00Z">
			<meta name="date" content="1970-01-01"></head><body><h1>Flood waters recede</h1><p>5 March 2024</p>
			<p>Residents returned to their homes on Tuesday as the river fell below its banks.</p></body></html>`, "2024-03-05"},
		{"nothing plausible at all",
			`<html><head><meta property="article:published_time" content="2031-01-01"></head><body><h1>Plans for 2031</h1>
			<p>The bridge opens on 1 January 2031; the old one was built on 3 May 1887.</p></body></html>`, ""},
		{"a date on the next day in another zone is not the future",
			`<html><head><meta property="article:published_time" content="2026-06-02T08:00:00+09:00"></head><body><h1>Late news</h1></body></html>`, "2026-06-02"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := metaOf(t, tc.html, "")
			if got := md.Published.Day(); got != tc.want {
				t.Errorf("published %q (%s), want %q", got, md.Published.From, tc.want)
			}
		})
	}
}

func TestMetadataConflictingAndMalformedJSONLD(t *testing.T) {
	for _, tc := range []struct{ name, ld, want, headline string }{
		{"a site's WebSite and Organization blocks beside the article's",
			`<script type="application/ld+json">{"@type":"WebSite","datePublished":"2003-04-05","headline":"Valley News"}</script>
			<script type="application/ld+json">{"@type":"Organization","name":"Valley News","foundingDate":"1990-01-01"}</script>
			<script type="application/ld+json">{"@type":["NewsArticle"],"datePublished":"2024-03-05","headline":"Flood waters recede"}</script>`,
			"2024-03-05", "Flood waters recede"},
		{"a trailing comma and a raw newline: read as text",
			"<script type=\"application/ld+json\">{\"@type\":\"NewsArticle\",\"headline\":\"Flood waters recede\",\n\"datePublished\": \"2024-03-05T10:00:00Z\",}</script>",
			"2024-03-05", "Flood waters recede"},
		{"deeply nested",
			`<script type="application/ld+json">` + strings.Repeat(`{"a":[`, 5000) + strings.Repeat(`]}`, 5000) + `</script>`,
			"", ""},
		{"an unclosed block",
			`<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2024-03-05"`,
			"", ""},
		{"a number where a date goes, a list where a name goes",
			`<script type="application/ld+json">{"@type":"NewsArticle","datePublished":20240305,"headline":["Flood waters recede","x"],"author":{"name":{"x":1}}}</script>`,
			"", "Flood waters recede"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := metaOf(t, `<html><head>`+tc.ld+`</head><body><h2>x</h2></body></html>`, "")
			if got := md.Published.Day(); got != tc.want {
				t.Errorf("published %q (%s), want %q", got, md.Published.From, tc.want)
			}
			if md.Headline.Value != tc.headline && tc.headline != "" {
				t.Errorf("headline %+v, want %q", md.Headline, tc.headline)
			}
		})
	}
}

// TestMetadataTenMegabytesOfScript: a page of 10 MB of script (and a JSON-LD block as
// big) keeps at most the bounds of JSON-LD and script search, whatever it holds.
func TestMetadataTenMegabytesOfScript(t *testing.T) {
	big := strings.Repeat(`var a="datePublished";`, 10<<20/22)
	html := `<html><head><meta property="article:published_time" content="2024-03-05">
		<script type="application/ld+json">{"@type":"NewsArticle","x":"` + strings.Repeat("y", 10<<20) +
		`","datePublished":"2020-01-01"}</script><script>` + big + `</script></head><body><h1>Flood waters recede</h1></body></html>`
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	p := Parse([]byte(html), "text/html", nil)
	md := p.Meta("", metaNow)
	runtime.ReadMemStats(&m1)
	if md.Published.Day() != "2024-03-05" || md.Published.From != "meta article:published_time" {
		t.Errorf("published %s from %s, want 2024-03-05 from the meta tag (the oversized block dropped)", md.Published, md.Published.From)
	}
	if k := p.meta.Kept(); k.JSONLD != 0 || k.ScriptBytes > meta.Bounds.ScriptBytes {
		t.Errorf("kept %d JSON-LD blocks, searched %d bytes of script (bound %d)", k.JSONLD, k.ScriptBytes, meta.Bounds.ScriptBytes)
	}
	// The page is 20 MB; what the metadata keeps of it is bounded (the tokenizer's
	// own buffer holds one token, the 10 MB script, at a time).
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 80<<20 {
		t.Errorf("parsing and reading metadata allocated %d MB", alloc>>20)
	}
}

func TestMetadataManyMetaTagsAndElements(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		b.WriteString(`<meta name="date" content="2001-01-01"><span itemprop="author">Someone</span><time datetime="2002-02-02"></time>`)
	}
	p := Parse([]byte(`<html><head>`+b.String()+`</head><body><h1>x</h1></body></html>`), "text/html", nil)
	md := p.Meta("", metaNow)
	if k := p.meta.Kept(); k.Metas > meta.Bounds.Metas || k.Elems > meta.Bounds.Elems {
		t.Errorf("kept %d meta tags and %d elements, bounds %d and %d", k.Metas, k.Elems, meta.Bounds.Metas, meta.Bounds.Elems)
	}
	if md.Published.Day() != "2001-01-01" || len(md.Authors) != 1 {
		t.Errorf("published %s, authors %q", md.Published, md.Authors)
	}
}
