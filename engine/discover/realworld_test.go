package discover

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/transform"
)

func urlsOf(doc Doc) []string {
	var out []string
	for _, e := range doc.Entries {
		out = append(out, e.URL)
		out = append(out, e.Alternates...)
	}
	return out
}

// A sitemap entry's image and video extensions are media, never the page: the
// page is the <url>'s own <loc>, whichever comes first.
func TestSitemapExtensionsAreNotThePage(t *testing.T) {
	body := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
  xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
  xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>http://a.test/article-1</loc><lastmod>2026-11-20</lastmod>
  <image:image><image:loc>http://img.a.test/1.jpg</image:loc><image:title>A picture</image:title></image:image></url>
<url><image:image><image:loc>http://img.a.test/2.jpg</image:loc></image:image><loc>http://a.test/article-2</loc></url>
<url><loc>http://a.test/article-3</loc><video:video><video:thumbnail_loc>http://img.a.test/3.jpg</video:thumbnail_loc>
  <video:title>V</video:title><video:content_loc>http://img.a.test/3.mp4</video:content_loc><video:player_loc>http://a.test/player?v=3</video:player_loc></video:video></url>
<url><loc>http://a.test/article-4</loc><news:news><news:publication><news:name>A</news:name><news:language>en</news:language></news:publication>
  <news:publication_date>2026-11-20T06:00:00Z</news:publication_date><news:title>Flood</news:title></news:news>
  <image:image><image:loc>http://img.a.test/4.jpg</image:loc><image:title>Not the title</image:title></image:image></url>
<url><loc>http://a.test/en/5</loc>
  <xhtml:link rel="alternate" hreflang="de" href="http://a.test/de/5"/>
  <xhtml:link rel="alternate" hreflang="fr" href="/fr/5"/>
  <xhtml:link rel="alternate" hreflang="en" href="http://a.test/en/5"/></url>
</urlset>`
	doc, err := ParseFrom([]byte(body), Source{URL: "http://a.test/sitemap.xml"}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, e := range doc.Entries {
		pages = append(pages, e.URL)
	}
	want := []string{"http://a.test/article-1", "http://a.test/article-2", "http://a.test/article-3", "http://a.test/article-4", "http://a.test/en/5"}
	if !slices.Equal(pages, want) {
		t.Fatalf("pages %v, want %v (image/video URLs are not pages)", pages, want)
	}
	if doc.Media != 5 {
		t.Errorf("media %d, want the 5 image and video URLs counted", doc.Media)
	}
	if e := doc.Entries[3]; e.Title != "Flood" || e.Published.IsZero() {
		t.Errorf("news entry %+v: want the news title and publication date", e)
	}
	if alt := doc.Entries[4].Alternates; !slices.Equal(alt, []string{"http://a.test/de/5", "http://a.test/fr/5"}) {
		t.Errorf("hreflang alternates %v, want de and fr (resolved), not the page itself", alt)
	}
}

var encodings = []struct {
	label string
	enc   encoding.Encoding
	text  string
}{
	{"iso-8859-1", charmap.ISO8859_1, "Déjà vu à Montréal"},
	{"windows-1251", charmap.Windows1251, "Новости дня"},
	{"koi8-r", charmap.KOI8R, "Новости дня"},
	{"GB2312", simplifiedchinese.GBK, "新闻中心"}, // within GB2312's repertoire, where GBK is the same bytes
	{"gbk", simplifiedchinese.GBK, "新闻中心"},
	{"Big5", traditionalchinese.Big5, "新聞中心"},
	{"Shift_JIS", japanese.ShiftJIS, "ニュース速報"},
	{"EUC-JP", japanese.EUCJP, "ニュース速報"},
}

func encode(t *testing.T, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encoding %q: %v", s, err)
	}
	return b
}

// Feeds and sitemaps in the encodings news sites serve are decoded, whether the
// XML declares the encoding or only the HTTP Content-Type does.
func TestDeclaredEncodingsAreDecoded(t *testing.T) {
	for _, tc := range encodings {
		enc, text := tc.enc, tc.text
		rss := func(decl string) string {
			return `<?xml version="1.0"` + decl + `?><rss version="2.0"><channel><title>` + text + `</title>` +
				`<item><title>` + text + `</title><link>http://a.test/` + tc.label + `</link></item></channel></rss>`
		}
		urlset := func(decl string) string {
			return `<?xml version="1.0"` + decl + `?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` +
				`<url><loc>http://a.test/` + tc.label + `</loc><news:news><news:title>` + text + `</news:title></news:news></url></urlset>`
		}
		cases := []struct {
			name, body, ct string
		}{
			{"feed, XML declaration", rss(` encoding="` + tc.label + `"`), "application/rss+xml"},
			{"sitemap, XML declaration", urlset(` encoding='` + tc.label + `'`), "application/xml"},
			{"feed, HTTP charset only", rss(""), "text/xml; charset=" + tc.label},
			{"sitemap, HTTP charset only", urlset(""), `text/plain; charset="` + tc.label + `"`},
		}
		for _, c := range cases {
			t.Run(tc.label+"/"+c.name, func(t *testing.T) {
				doc, err := ParseFrom(encode(t, enc, c.body), Source{URL: "http://a.test/doc", ContentType: c.ct}, Limits{})
				if err != nil {
					t.Fatalf("ParseFrom: %v", err)
				}
				if len(doc.Entries) != 1 || doc.Entries[0].URL != "http://a.test/"+tc.label {
					t.Fatalf("entries %+v, want http://a.test/%s", doc.Entries, tc.label)
				}
				if doc.Entries[0].Title != text {
					t.Errorf("title %q, want %q", doc.Entries[0].Title, text)
				}
				if len(doc.Warnings) > 0 {
					t.Errorf("warnings %v, want none", doc.Warnings)
				}
			})
		}
	}
}

// A declared encoding that is not what the bytes are: best effort, every link
// kept, and a warning saying so.
func TestLyingEncodingIsReadWithAWarning(t *testing.T) {
	item := func(i int) string {
		return fmt.Sprintf(`<item><title>新闻 %d</title><link>http://a.test/%d</link></item>`, i, i)
	}
	var items strings.Builder
	for i := range 200 {
		items.WriteString(item(i))
	}
	utf8Body := `<?xml version="1.0" encoding="gb2312"?><rss version="2.0"><channel><title>新闻</title>` + items.String() + `</channel></rss>`
	gbkBody := encode(t, simplifiedchinese.GBK, strings.Replace(utf8Body, `encoding="gb2312"`, `encoding="utf-8"`, 1))
	for _, c := range []struct {
		name  string
		body  []byte
		ct    string
		title string
	}{
		{"says gb2312, is UTF-8", []byte(utf8Body), "application/rss+xml", "新闻 0"},
		{"says UTF-8, is GBK", gbkBody, "application/rss+xml", ""},
		{"says UTF-8, is GBK only past the first 16 KiB", append([]byte(`<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>`+strings.Repeat("news ", 8000)+`</title>`),
			encode(t, simplifiedchinese.GBK, items.String()+`</channel></rss>`)...), "application/rss+xml", ""},
		{"HTTP says UTF-8, body GBK, no declaration", bytes.Replace(gbkBody, []byte(` encoding="utf-8"`), nil, 1), "text/xml; charset=utf-8", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := ParseFrom(c.body, Source{URL: "http://a.test/feed", ContentType: c.ct}, Limits{})
			// Best effort stays one pass, judged by its allocations (about 62 an
			// entry in each case), not by a second on the clock, which a loaded
			// box's 13 KB feed once took (1.04 s).
			if a := testing.AllocsPerRun(1, func() {
				ParseFrom(c.body, Source{URL: "http://a.test/feed", ContentType: c.ct}, Limits{})
			}); a > 100*200 {
				t.Errorf("%.0f allocations for 200 entries: more than 100 an entry", a)
			}
			if err != nil {
				t.Fatalf("ParseFrom: %v", err)
			}
			if len(doc.Entries) != 200 {
				t.Fatalf("%d entries, want all 200", len(doc.Entries))
			}
			if doc.Warnings["encoding_mismatch"] != 1 {
				t.Errorf("warnings %v, want encoding_mismatch", doc.Warnings)
			}
			if c.title != "" && doc.Entries[0].Title != c.title {
				t.Errorf("title %q, want %q", doc.Entries[0].Title, c.title)
			}
		})
	}
}

// Relative item links and xml:base are resolved against the document's URL.
func TestRelativeLinksAreResolved(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"RSS, root-relative links", `<rss version="2.0"><channel><item><link>/blog/2013/05/a.html</link></item><item><link>b.html</link></item><item><link>mailto:x@a.test</link></item></channel></rss>`,
			[]string{"http://a.test/blog/2013/05/a.html", "http://a.test/news/b.html"}},
		{"RSS, a permalink guid and no link", `<rss version="2.0"><channel><item><guid isPermaLink="true">http://a.test/p/1</guid></item></channel></rss>`,
			[]string{"http://a.test/p/1"}},
		// The Hugging Face blog's feed: no <link>, each item's URL only in a
		// root-relative guid that says it is a permalink.
		{"RSS, a relative permalink guid and no link", `<rss version="2.0"><channel><link>/blog</link><item><title>A</title><guid isPermaLink="true">/blog/intro-graphml</guid></item><item><guid isPermaLink="TRUE">p/2</guid></item></channel></rss>`,
			[]string{"http://a.test/blog/intro-graphml", "http://a.test/news/p/2"}},
		// A guid that says it is not a permalink, a bare identifier or a tag URI
		// gives no URL; a path with isPermaLink unsaid (RSS 2.0's default) does,
		// a host name written without its scheme does not.
		{"RSS, relative guids that are not permalinks", `<rss version="2.0"><channel><item><guid isPermaLink="false">/blog/1</guid></item><item><guid>12345</guid></item><item><guid>tag:a.test,2005:/1</guid></item><item><link>/a/3</link><guid isPermaLink="true">/ignored</guid></item><item><guid>/blog/4</guid></item><item><guid>www.a.test/news/5</guid></item></channel></rss>`,
			[]string{"http://a.test/a/3", "http://a.test/blog/4"}},
		{"Atom, relative hrefs", `<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>1</id><link href="/a/1"/></entry><entry><id>2</id><link rel="alternate" href="2"/></entry></feed>`,
			[]string{"http://a.test/a/1", "http://a.test/news/2"}},
		{"Atom, xml:base", `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://b.test/blog/"><entry><id>1</id><link href="post/1"/></entry><entry xml:base="/other/"><id>2</id><link href="2"/></entry></feed>`,
			[]string{"http://b.test/blog/post/1", "http://b.test/other/2"}},
		{"Atom, xml:base naming a file", `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://b.test/blog/wp-atom.php"><entry><id>1</id><link href="post/1"/></entry><entry><id>2</id><link href="../2"/></entry></feed>`,
			[]string{"http://b.test/blog/post/1", "http://b.test/2"}},
		{"RSS, xml:base naming a file", `<rss version="2.0" xml:base="http://b.test/blog/index.xml"><channel><item><link>post/3</link></item></channel></rss>`,
			[]string{"http://b.test/blog/post/3"}},
		{"Atom, relative xml:base", `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="/blog/"><entry><id>1</id><link href="post/1"/></entry></feed>`,
			[]string{"http://a.test/blog/post/1"}},
		{"RSS, IRIs", `<rss version="2.0"><channel><item><link>http://a.test/archives/한글.php</link></item><item><link>/新闻/1</link></item></channel></rss>`,
			[]string{"http://a.test/archives/%ED%95%9C%EA%B8%80.php", "http://a.test/%E6%96%B0%E9%97%BB/1"}},
		{"sitemap, relative loc", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/s/1</loc></url><url><loc>http://a.test/s/2</loc></url></urlset>`,
			[]string{"http://a.test/s/1", "http://a.test/s/2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := ParseFrom([]byte(c.body), Source{URL: "http://a.test/news/feed.xml"}, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := urlsOf(doc); !slices.Equal(got, c.want) {
				t.Errorf("urls %v, want %v", got, c.want)
			}
		})
	}
}

// Text sitemaps: one URL a line.
func TestTextSitemap(t *testing.T) {
	body := "\ufeffhttp://a.test/1\r\nhttps://a.test/2?x=1&y=2\n\n  http://a.test/3  \nnot a url\n/4\nhttp://a.test/5"
	doc, err := ParseFrom([]byte(body), Source{URL: "http://a.test/sitemap.txt", ContentType: "text/plain"}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://a.test/1", "https://a.test/2?x=1&y=2", "http://a.test/3", "http://a.test/4", "http://a.test/5"}
	if doc.Kind != KindSitemap || !slices.Equal(urlsOf(doc), want) {
		t.Fatalf("kind %s, urls %v; want sitemap %v", doc.Kind, urlsOf(doc), want)
	}
	if doc.Warnings["not_http"] != 1 {
		t.Errorf("warnings %v, want one not_http", doc.Warnings)
	}
}

// millionLineSitemap is a text sitemap of a million URLs, 20 times the protocol's cap.
func millionLineSitemap() []byte {
	var b bytes.Buffer
	for i := range 1_000_000 {
		fmt.Fprintf(&b, "http://a.test/article/%d\n", i)
	}
	return b.Bytes()
}

// A text sitemap of a million lines stops at the protocol's 50,000 URLs, without
// holding the document: judged by what it keeps and allocates, not by the wall
// clock of a loaded box (its time is BenchmarkMillionLineTextSitemap's).
func TestMillionLineTextSitemapIsBounded(t *testing.T) {
	body := millionLineSitemap()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	doc, err := ParseReaderFrom(bytes.NewReader(body), Source{URL: "http://a.test/s.txt"}, Limits{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Entries) != DefaultMaxURLs || doc.Warnings["too_many_urls"] != 1 {
		t.Fatalf("%d entries, warnings %v; want %d and too_many_urls", len(doc.Entries), doc.Warnings, DefaultMaxURLs)
	}
	if grown := int64(after.TotalAlloc - before.TotalAlloc); grown > 32<<20 {
		t.Errorf("allocated %d MiB for 50,000 URLs", grown>>20)
	}
}

// BenchmarkMillionLineTextSitemap is the time a million-line text sitemap takes to
// read up to the protocol's cap (about 30 ms on a two-core box).
func BenchmarkMillionLineTextSitemap(b *testing.B) {
	body := millionLineSitemap()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := ParseReaderFrom(bytes.NewReader(body), Source{URL: "http://a.test/s.txt"}, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// Binary bytes served as text/plain are no document: refused at once.
func TestBinaryIsNotADocument(t *testing.T) {
	bin := make([]byte, 8<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range bin {
		bin[i] = byte(r.UintN(256))
	}
	bin[0] = 'x'
	for _, body := range [][]byte{bin, append([]byte("%PDF-1.4\n"), bin...)} {
		start := time.Now()
		_, err := ParseFrom(body, Source{URL: "http://a.test/x.txt", ContentType: "text/plain"}, Limits{})
		if !errors.Is(err, ErrNotDiscovery) {
			t.Errorf("err %v, want ErrNotDiscovery", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("took %v", d)
		}
	}
}

// An Atom or RSS feed inside an XHTML page is found and read.
func TestFeedInsideAnXHTMLPage(t *testing.T) {
	page := `<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:atom="http://www.w3.org/2005/Atom"><head><title>News&nbsp;feed</title><meta charset="utf-8"></head>
<body><p>Latest<br></p>%s</body></html>`
	for _, c := range []struct{ name, feed string }{
		{"Atom", `<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><id>1</id><link href="/a/1"/><updated>2026-11-20T08:00:00Z</updated></entry><entry><id>2</id><link href="http://a.test/a/2"/></entry></feed>`},
		{"prefixed Atom", `<atom:feed><atom:title>T</atom:title><atom:entry><atom:id>1</atom:id><atom:link href="/a/1"/></atom:entry><atom:entry><atom:id>2</atom:id><atom:link href="http://a.test/a/2"/></atom:entry></atom:feed>`},
		{"RSS", `<rss version="2.0"><channel><title>T</title><item><link>/a/1</link></item><item><link>http://a.test/a/2</link></item></channel></rss>`},
		{"RSS as an HTML serialiser writes it", `<rss version="2.0"><channel><title>T</title><link>http://a.test/<atom:link href="http://a.test/rss/" rel="self">` +
			`<item><title>1</title><link>/a/1<guid ispermalink="false">1</guid></item><item><link>http://a.test/a/2<img></item></atom:link></channel></rss>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := ParseFrom([]byte(fmt.Sprintf(page, c.feed)), Source{URL: "http://a.test/news.xhtml", ContentType: "text/html"}, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"http://a.test/a/1", "http://a.test/a/2"}; doc.Kind != KindFeed || !slices.Equal(urlsOf(doc), want) {
				t.Errorf("kind %s urls %v, want a feed of %v", doc.Kind, urlsOf(doc), want)
			}
		})
	}
	_, err := ParseFrom([]byte(fmt.Sprintf(page, `<a href="/x">x</a>`)), Source{URL: "http://a.test/"}, Limits{})
	if !errors.Is(err, ErrNotDiscovery) {
		t.Errorf("an HTML page without a feed: err %v, want ErrNotDiscovery", err)
	}
}

// A feed cut off half way (a server that stopped writing) or at the size cap keeps
// the items before the cut, as a sitemap does.
func TestCutOffFeedKeepsItsFirstItems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>`)
	for i := range 50 {
		fmt.Fprintf(&b, "<item><title>%d</title><link>http://a.test/%d</link><description>%s</description></item>\n", i, i, strings.Repeat("text ", 100))
	}
	full := b.String()
	cut := full[:len(full)/2]
	doc, err := ParseFrom([]byte(cut), Source{URL: "http://a.test/feed"}, Limits{})
	if err != nil || len(doc.Entries) < 20 || doc.Warnings["malformed"] != 1 {
		t.Errorf("cut off: err %v, %d entries, warnings %v; want the first ~25 items and a malformed warning", err, len(doc.Entries), doc.Warnings)
	}
	doc, err = ParseFrom([]byte(full), Source{URL: "http://a.test/feed"}, Limits{MaxBytes: int64(len(full) / 2)})
	if !errors.Is(err, ErrTooLarge) || len(doc.Entries) < 20 || doc.Warnings["truncated"] != 1 {
		t.Errorf("at the cap: err %v, %d entries, warnings %v; want ErrTooLarge with the first ~25 items and a truncated warning", err, len(doc.Entries), doc.Warnings)
	}
}

// A server that prints a notice ahead of its sitemap still serves a sitemap.
func TestJunkBeforeTheDocumentIsSkipped(t *testing.T) {
	for _, notice := range []string{
		"\nWarning: Cannot modify header information - headers already sent in /var/www/sitemap.php on line 3\n",
		"<br />\n<b>Deprecated</b>:  Function create_function() is deprecated in <b>/var/www/sitemap.php</b> on line <b>12</b><br />\n",
	} {
		body := notice + `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.test/1</loc></url></urlset>`
		doc, err := ParseFrom([]byte(body), Source{URL: "http://a.test/sitemap.xml", ContentType: "text/html"}, Limits{})
		if err != nil || !slices.Equal(urlsOf(doc), []string{"http://a.test/1"}) || doc.Warnings["junk_before_xml"] != 1 {
			t.Errorf("after %q: err %v, urls %v, warnings %v; want the sitemap's URL and a junk_before_xml warning", notice, err, urlsOf(doc), doc.Warnings)
		}
	}
	if AfterNotice([]byte(`<!DOCTYPE html><html><body><p>about <rss> feeds</p>`)) >= 0 {
		t.Error("an HTML page mentioning <rss> was taken for a notice before a feed")
	}
}

// The UTF-8 check passes valid text through unchanged, in any chunking, and turns
// every invalid byte into U+FFFD, saying so.
func TestUTF8RepairKeepsValidTextAndFlagsTheRest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "link ", "新闻", "é", "Новости", "\U0001F600", "<loc>http://a.test/x</loc>"}
	for i := range 300 {
		var b strings.Builder
		for range r.IntN(3000) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		valid := b.String()
		var bad bool
		out, _, err := transform.String(utf8Repair{&bad}, valid)
		if err != nil || out != valid || bad {
			t.Fatalf("valid text #%d changed (err %v, bad %v)", i, err, bad)
		}
		broken := []byte(valid)
		if len(broken) > 0 {
			broken[r.IntN(len(broken))] = 0xff
		}
		bad = false
		out, _, err = transform.String(utf8Repair{&bad}, string(broken))
		if err != nil || !utf8.ValidString(out) || (len(broken) > 0 && !bad) {
			t.Fatalf("broken text #%d: err %v, valid %v, flagged %v", i, err, utf8.ValidString(out), bad)
		}
	}
}
