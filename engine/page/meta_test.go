package page

import (
	"strings"
	"testing"
	"time"
)

// metaNow is the clock of these tests: dates after it (plus a day) are not plausible.
var metaNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func metaOf(t *testing.T, html, pageURL string) Metadata {
	t.Helper()
	return Parse([]byte(html), "text/html; charset=utf-8", nil).Meta(pageURL, metaNow)
}

// article wraps a headline and body in a page with a sidebar of other dates.
func article(head, body string) string {
	return `<!doctype html><html><head>` + head + `</head><body>
<nav><a href="/">Home</a> <a href="/world">World</a></nav>
<article><h1>Flood waters recede across the northern valley</h1>` + body + `
<p>Residents returned to their homes on Tuesday as the river fell below its banks, officials said, and
the clean-up began in the worst-hit streets of the old town, where the water had stood for three days.</p>
<p>Engineers will inspect the bridges before they reopen, and the council has set up a fund for repairs.</p>
</article>
<aside class="related"><ul><li><time datetime="2019-01-02">2 January 2019</time> Older story</li>
<li><time datetime="2018-05-06">6 May 2018</time> Another story</li></ul></aside></body></html>`
}

func TestMetadataSources(t *testing.T) {
	for _, tc := range []struct {
		name, html, url string
		day             string
		from            Source
	}{
		{"json-ld in @graph", article(`<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
			{"@type":"WebSite","name":"Valley News","datePublished":"2001-01-01"},
			{"@type":"NewsArticle","headline":"Flood waters recede","datePublished":"2024-03-05T09:30:00+01:00",
			 "author":[{"@type":"Person","name":"Ana Ruiz"},{"@type":"Person","name":"Tom Li"}],"inLanguage":"en-GB"}]}</script>`, ""),
			"", "2024-03-05", "json-ld datePublished"},
		{"open graph", article(`<meta property="article:published_time" content="2024-03-05T09:30:00Z">`, ""), "", "2024-03-05", "meta article:published_time"},
		{"microdata", article("", `<span itemprop="datePublished" content="2024-03-05">5 March</span>`), "", "2024-03-05", "microdata datepublished"},
		{"time near the headline, not the sidebar's", article("", `<p class="meta"><time datetime="2024-03-05T08:00:00-05:00">March 5</time></p>`), "", "2024-03-05", "time datetime"},
		{"url", article("", ""), "https://news.example/2024/03/05/flood-waters", "2024-03-05", "url"},
		{"chinese date line", article("", `<div class="info">发布时间：2024年3月5日 10:20</div>`), "", "2024-03-05", "date line"},
		{"japanese era", article("", `<div class="date">令和6年3月5日</div>`), "", "2024-03-05", "date line"},
		{"english line below the headline", article("", `<p>Published March 5th, 2024 at 9:05 p.m. EST</p>`), "", "2024-03-05", "text"},
		{"german line", article("", `<p>Veröffentlicht am 5. März 2024 um 10:20 Uhr</p>`), "", "2024-03-05", "text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := metaOf(t, tc.html, tc.url)
			if got := md.Published.Day(); got != tc.day || md.Published.From != tc.from {
				t.Errorf("published %q from %q, want %q from %q", got, md.Published.From, tc.day, tc.from)
			}
		})
	}
}

func TestMetadataFields(t *testing.T) {
	md := metaOf(t, article(`<title>Flood waters recede across the northern valley | Valley News</title>
		<meta property="og:site_name" content="Valley News"><link rel="canonical" href="/2024/03/05/flood">
		<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2024-03-05T09:30:00+01:00",
		"dateModified":"2024-03-06T10:00:00+01:00","author":{"@type":"Person","name":"Ana Ruiz"}}</script>`, ""),
		"https://news.example/world/flood?ref=home")
	if md.Headline.Value != "Flood waters recede across the northern valley" || md.Headline.From != "h1" {
		t.Errorf("headline %+v", md.Headline)
	}
	if strings.Join(md.Authors, ";") != "Ana Ruiz" || md.AuthorsFrom != "json-ld author" {
		t.Errorf("authors %q from %q", md.Authors, md.AuthorsFrom)
	}
	if md.Canonical.Value != "https://news.example/2024/03/05/flood" || md.Canonical.From != "link canonical" {
		t.Errorf("canonical %+v", md.Canonical)
	}
	if md.Published.String() != "2024-03-05T09:30:00+01:00" || md.Modified.Day() != "2024-03-06" {
		t.Errorf("published %s modified %s", md.Published, md.Modified)
	}
	if md.Language.Value != "en" || md.Language.From != "script statistics" {
		t.Errorf("language %+v", md.Language)
	}
}

func TestMetadataBylineAndLanguage(t *testing.T) {
	for _, tc := range []struct {
		name, html  string
		authors     string
		lang        string
		langFrom    Source
		authorsFrom Source
	}{
		{"byline and lang attribute",
			`<html lang="de-AT"><body><h1>Hochwasser geht zurück</h1><p class="byline">Von Anna Huber und Max Gruber</p>
			<p>Die Bewohner kehrten am Dienstag in ihre Häuser zurück, als der Fluss unter seine Ufer fiel, und die Aufräumarbeiten begannen.</p></body></html>`,
			"Anna Huber;Max Gruber", "de", "lang attribute", "byline"},
		{"a template's lang=en on a Chinese page",
			`<html lang="en"><head><meta name="author" content="王小明"></head><body><h1>北方河谷洪水退去</h1>
			<p>居民们周二返回家园，河水退到河岸以下，官员们说，清理工作在受灾最严重的老城区街道开始，那里的水已经停留了三天。</p></body></html>`,
			"王小明", "zh", "script statistics", "meta author"},
		{"a URL for an author is no name",
			`<html lang="fr"><head><meta property="article:author" content="https://www.facebook.com/valleynews"></head><body><h1>La crue recule</h1>
			<p>Les habitants sont rentrés chez eux mardi, la rivière étant passée sous ses berges, et le nettoyage a commencé dans les rues.</p></body></html>`,
			"", "fr", "lang attribute", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := metaOf(t, tc.html, "")
			if got := strings.Join(md.Authors, ";"); got != tc.authors || md.AuthorsFrom != tc.authorsFrom {
				t.Errorf("authors %q from %q, want %q from %q", got, md.AuthorsFrom, tc.authors, tc.authorsFrom)
			}
			if md.Language.Value != tc.lang || md.Language.From != tc.langFrom {
				t.Errorf("language %+v, want %s from %s", md.Language, tc.lang, tc.langFrom)
			}
		})
	}
}

// The site's own name as the JSON-LD author (a CMS default) gives way to the people
// the byline names, and stands when the page names nobody else.
func TestMetadataSiteNameIsNoAuthor(t *testing.T) {
	const ld = `<meta property="og:site_name" content="AppleInsider"><script type="application/ld+json">{"@type":"NewsArticle","headline":"Flood waters recede","author":{"@type":"Person","name":"AppleInsider"}}</script>`
	md := metaOf(t, article(ld, `<p class="byline">By Mike Wuerthele and Malcolm Owen Monday, November 18, 2019</p>`), "")
	if got := strings.Join(md.Authors, ";"); got != "Mike Wuerthele;Malcolm Owen" || md.AuthorsFrom != "byline" {
		t.Errorf("authors %q from %s, want the byline's Mike Wuerthele;Malcolm Owen", got, md.AuthorsFrom)
	}
	md = metaOf(t, article(ld, ""), "")
	if got := strings.Join(md.Authors, ";"); got != "AppleInsider" || md.AuthorsFrom != "json-ld author" {
		t.Errorf("authors %q from %s, want the site's name from JSON-LD when nothing else names one", got, md.AuthorsFrom)
	}
}

// Structured data that names the first of a byline's authors gives way to the
// byline's full list, and only to a list of people's names.
func TestMetadataFullerByline(t *testing.T) {
	for _, tc := range []struct{ ld, byline, want string }{
		{"Stefan Becket", "By Stefan Becket, Kathryn Watson, Grace Segers", "Stefan Becket;Kathryn Watson;Grace Segers"},
		{"Reuters", "Reuters, Washington, Nov 20 2019", "Reuters"},
		{"Bill Hoppe", "By Bill Hoppe, Special to the Pioneer Press", "Bill Hoppe"},
	} {
		ld := `<script type="application/ld+json">{"@type":"NewsArticle","author":{"@type":"Person","name":"` + tc.ld + `"}}</script>`
		md := metaOf(t, article(ld, `<p class="byline">`+tc.byline+`</p>`), "")
		if got := strings.Join(md.Authors, ";"); got != tc.want {
			t.Errorf("JSON-LD %q, byline %q: authors %q, want %q", tc.ld, tc.byline, got, tc.want)
		}
	}
}
