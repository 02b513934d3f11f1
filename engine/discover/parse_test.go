package discover

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

const urlsetHead = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">`

func TestParseSitemaps(t *testing.T) {
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		body     string
		kind     Kind
		urls     []string
		modified []time.Time
		pub      time.Time // of the first entry
		keywords []string  // of the first entry
		warnings map[string]int
	}{
		{
			name: "urlset with lastmod in the W3C profiles",
			body: urlsetHead + `<url><loc>http://a.test/1</loc><lastmod>2026-11-20</lastmod></url>
				<url><loc> http://a.test/2 </loc><lastmod>2026-11-20T10:30:00+01:00</lastmod></url>
				<url><loc>http://a.test/3</loc><lastmod>2026-11-20T09:30Z</lastmod></url></urlset>`,
			kind: KindSitemap, urls: []string{"http://a.test/1", "http://a.test/2", "http://a.test/3"},
			modified: []time.Time{day, day.Add(9*time.Hour + 30*time.Minute), day.Add(9*time.Hour + 30*time.Minute)},
		},
		{
			name: "news sitemap: publication date and keywords",
			body: urlsetHead + `<url><loc>http://a.test/flood</loc><news:news><news:publication><news:name>A</news:name><news:language>en</news:language></news:publication>
				<news:publication_date>2026-11-20T06:00:00Z</news:publication_date><news:title>Flood</news:title>
				<news:keywords>flood, river ,storm</news:keywords></news:news></url></urlset>`,
			kind: KindSitemap, urls: []string{"http://a.test/flood"}, modified: []time.Time{{}},
			pub: day.Add(6 * time.Hour), keywords: []string{"flood", "river", "storm"},
		},
		{
			name: "sitemap index",
			body: `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://a.test/s1.xml</loc><lastmod>2026-11-20</lastmod></sitemap><sitemap><loc>http://a.test/s2.xml.gz</loc></sitemap></sitemapindex>`,
			kind: KindIndex, urls: []string{"http://a.test/s1.xml", "http://a.test/s2.xml.gz"}, modified: []time.Time{day, {}},
		},
		{
			name: "invalid dates are warnings, the URL is kept without a date",
			body: urlsetHead + `<url><loc>http://a.test/1</loc><lastmod>yesterday</lastmod></url><url><loc>http://a.test/2</loc><lastmod>0001-01-01</lastmod></url><url><loc>http://a.test/3</loc><lastmod>2026-13-45</lastmod></url></urlset>`,
			kind: KindSitemap, urls: []string{"http://a.test/1", "http://a.test/2", "http://a.test/3"},
			modified: []time.Time{{}, {}, {}}, warnings: map[string]int{"bad_date": 3},
		},
		{
			name: "empty, relative and javascript locs are skipped with warnings",
			body: urlsetHead + `<url><loc></loc></url><url><loc>/relative</loc></url><url><loc>javascript:alert(1)</loc></url><url><loc>http://a.test/ok</loc></url></urlset>`,
			kind: KindSitemap, urls: []string{"http://a.test/ok"}, modified: []time.Time{{}},
			warnings: map[string]int{"empty_loc": 3, "not_http": 2},
		},
		{
			name: "a document cut off half way keeps its first entries",
			body: urlsetHead + `<url><loc>http://a.test/1</loc></url><url><loc>http://a.test/2</lo`,
			kind: KindSitemap, urls: []string{"http://a.test/1"}, modified: []time.Time{{}},
			warnings: map[string]int{"malformed": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse([]byte(tc.body), Limits{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if doc.Kind != tc.kind {
				t.Errorf("kind %q, want %q", doc.Kind, tc.kind)
			}
			if len(doc.Entries) != len(tc.urls) {
				t.Fatalf("%d entries %+v, want %v", len(doc.Entries), doc.Entries, tc.urls)
			}
			for i, e := range doc.Entries {
				if e.URL != tc.urls[i] || !e.Modified.Equal(tc.modified[i]) {
					t.Errorf("entry %d = %s %v, want %s %v", i, e.URL, e.Modified, tc.urls[i], tc.modified[i])
				}
			}
			if !doc.Entries[0].Published.Equal(tc.pub) || fmt.Sprint(doc.Entries[0].Keywords) != fmt.Sprint(tc.keywords) && tc.keywords != nil {
				t.Errorf("news: published %v keywords %q, want %v %q", doc.Entries[0].Published, doc.Entries[0].Keywords, tc.pub, tc.keywords)
			}
			if fmt.Sprint(doc.Warnings) != fmt.Sprint(tc.warnings) && !(len(doc.Warnings) == 0 && len(tc.warnings) == 0) {
				t.Errorf("warnings %v, want %v", doc.Warnings, tc.warnings)
			}
		})
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	if _, err := z.Write(b); err != nil {
		t.Fatal(err)
	}
	z.Close()
	return buf.Bytes()
}

func TestGzipSitemapUnderTheCap(t *testing.T) {
	small := urlsetHead + `<url><loc>http://a.test/1</loc></url></urlset>`
	doc, err := Parse(gzipped(t, []byte(small)), Limits{MaxBytes: 1 << 20})
	if err != nil || len(doc.Entries) != 1 {
		t.Fatalf("gzip sitemap: %v %+v", err, doc)
	}
	// A gzip bomb: 32 MiB of one URL repeated, about 100 KiB on the wire.
	var big bytes.Buffer
	big.WriteString(urlsetHead)
	for big.Len() < 32<<20 {
		big.WriteString(`<url><loc>http://a.test/x</loc></url>`)
	}
	bomb := gzipped(t, big.Bytes())
	in := &countingReader{r: bytes.NewReader(bomb)}
	doc, err = ParseReader(in, Limits{MaxBytes: 1 << 20, MaxURLs: 1 << 30})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a %d-byte gzip inflating to 32 MiB: err %v, want ErrTooLarge", len(bomb), err)
	}
	if doc.Warnings["truncated"] != 1 || len(doc.Entries) > (1<<20)/30 {
		t.Errorf("warnings %v, %d entries: want a truncated warning and only what fitted in 1 MiB", doc.Warnings, len(doc.Entries))
	}
	// The cap stops the inflation: 1 MiB of the 32 inflates from about a 32nd of
	// the compressed bytes, so most of the bomb is never read.
	if in.n > int64(len(bomb))/4 {
		t.Errorf("read %d of the bomb's %d compressed bytes for 1 MiB: the cap did not stop the inflation", in.n, len(bomb))
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// sitemapStream generates a sitemap of n URLs, each padded with a comment to pad
// bytes, without ever holding it in memory.
type sitemapStream struct {
	n, i, pad int
	buf       []byte
	done      bool
}

func (s *sitemapStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		switch {
		case s.done:
			return 0, io.EOF
		case s.i == 0 && s.buf == nil:
			s.buf = []byte(urlsetHead)
			s.i = -1
		case s.i < 0 || s.i < s.n:
			if s.i < 0 {
				s.i = 0
			}
			s.buf = []byte(fmt.Sprintf("<url><loc>http://a.test/%d</loc><lastmod>2026-11-20</lastmod><!--%s--></url>\n", s.i, strings.Repeat("x", s.pad)))
			s.i++
		default:
			s.buf = []byte("</urlset>")
			s.done = true
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func TestBigSitemapIsStreamed(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		pad      int // comment bytes a URL
		entries  int
		tooMany  int
		maxBytes int64
	}{
		{"50,000 URLs in 50 MB", 50_000, 930, 50_000, 0, DefaultMaxBytes},
		// The URL count alone decides: 4 MB of document carry the 50,001 URLs.
		{"one URL over the protocol's 50,000", 50_001, 0, 50_000, 1, 1 << 40},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &sitemapStream{n: tc.n, pad: tc.pad}
			// The heap left at the end holds the garbage of the last GC cycle too; a
			// low GC target keeps that small however late a loaded box runs the
			// collector, so what is judged is what the parse kept (a read of the whole
			// document keeps 50 MB).
			defer debug.SetGCPercent(debug.SetGCPercent(10))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			doc, err := ParseReader(src, Limits{MaxBytes: tc.maxBytes})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("ParseReader: %v", err)
			}
			if len(doc.Entries) != tc.entries || doc.Warnings["too_many_urls"] != tc.tooMany {
				t.Fatalf("%d entries, warnings %v; want %d and too_many_urls=%d", len(doc.Entries), doc.Warnings, tc.entries, tc.tooMany)
			}
			// The document is ~50 MB; what stays is the entries (URLs of ~20 bytes).
			if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 20<<20 {
				t.Errorf("heap grew %d MiB while parsing: the sitemap was not streamed", grown>>20)
			}
		})
	}
}

func TestHostileXML(t *testing.T) {
	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lollollollollollollollollollol">` +
		`<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">` +
		`<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">` +
		`<!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">` +
		`<!ENTITY lol9 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">]>`
	xxe := `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`
	tests := []struct {
		name string
		body string
	}{
		{"billion laughs in a sitemap", laughs + `<urlset><url><loc>http://a.test/&lol9;</loc></url></urlset>`},
		{"billion laughs in an RSS feed", laughs + `<rss version="2.0"><channel><title>&lol9;</title><item><title>&lol9;</title><link>http://a.test/&lol9;</link></item></channel></rss>`},
		{"external entity in a sitemap", xxe + `<urlset><url><loc>http://a.test/&xxe;</loc></url></urlset>`},
		{"external entity in an Atom feed", xxe + `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>&xxe;</title><link href="http://a.test/1"/><id>1</id></entry></feed>`},
	}
	// A DOCTYPE that declares no entity (XHTML's) is no warning.
	if doc, _ := Parse([]byte(`<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd"><rss version="0.91"><channel><item><link>http://a.test/1</link></item></channel></rss>`), Limits{}); len(doc.Warnings) != 0 {
		t.Errorf("RSS 0.91 with its public DTD: warnings %v, want none", doc.Warnings)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			doc, err := Parse([]byte(tc.body), Limits{})
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
			for _, e := range doc.Entries {
				if len(e.URL) > 100 || len(e.Title) > 100 || strings.Contains(e.URL+e.Title, "root:") {
					t.Errorf("an entity was expanded: %q %q", e.URL, e.Title)
				}
			}
			// Left unexpanded, but said: the document is not read as its author
			// meant, and the operator can tell which one it was.
			if doc.Warnings["entities_ignored"] != 1 {
				t.Errorf("warnings %v, want entities_ignored 1", doc.Warnings)
			}
			t.Logf("entries %d, err %v", len(doc.Entries), err)
		})
	}
}

func TestParseFeeds(t *testing.T) {
	at := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	var same strings.Builder
	same.WriteString(`<rss version="2.0"><channel><title>T</title>`)
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&same, `<item><title>%d</title><link>http://a.test/a%d</link><pubDate>Fri, 20 Nov 2026 08:00:00 GMT</pubDate></item>`, i, i)
	}
	same.WriteString(`</channel></rss>`)
	tests := []struct {
		name     string
		body     string
		n        int
		first    string
		pub      time.Time
		warnings map[string]int
		err      error
	}{
		{"RSS 2.0", `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>A</title><link>http://a.test/a</link><pubDate>Fri, 20 Nov 2026 08:00:00 GMT</pubDate><category>flood</category></item><item><title>no link</title></item></channel></rss>`,
			1, "http://a.test/a", at, map[string]int{"empty_loc": 1}, nil},
		{"RSS 1.0 (RDF)", `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="http://a.test/"><title>T</title></channel><item rdf:about="http://a.test/r"><title>R</title><link>http://a.test/r</link><dc:date>2026-11-20T08:00:00Z</dc:date></item></rdf:RDF>`,
			1, "http://a.test/r", at, nil, nil},
		{"Atom", `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><title>A</title><link rel="alternate" href="http://a.test/at"/><id>x</id><published>2026-11-20T08:00:00Z</published><updated>2026-11-20T09:00:00Z</updated></entry></feed>`,
			1, "http://a.test/at", at, nil, nil},
		{"a thousand items with the same date", same.String(), 1000, "http://a.test/a0", at, nil, nil},
		{"invalid dates", `<rss version="2.0"><channel><item><link>http://a.test/b</link><pubDate>the day after</pubDate></item></channel></rss>`,
			1, "http://a.test/b", time.Time{}, map[string]int{"bad_date": 1}, nil},
		{"HTML served as a feed", `<!DOCTYPE html><html><head><title>Feed</title></head><body><a href="/x">x</a></body></html>`,
			0, "", time.Time{}, nil, ErrNotDiscovery},
		{"not XML at all", "\x00\x01binary", 0, "", time.Time{}, nil, ErrNotDiscovery},
		{"empty body", "", 0, "", time.Time{}, nil, ErrNotDiscovery},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse([]byte(tc.body), Limits{})
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if doc.Kind != KindFeed || len(doc.Entries) != tc.n {
				t.Fatalf("kind %s, %d entries; want feed, %d", doc.Kind, len(doc.Entries), tc.n)
			}
			if e := doc.Entries[0]; e.URL != tc.first || !e.Published.Equal(tc.pub) {
				t.Errorf("first entry %s %v, want %s %v", e.URL, e.Published, tc.first, tc.pub)
			}
			if len(doc.Warnings)+len(tc.warnings) > 0 && fmt.Sprint(doc.Warnings) != fmt.Sprint(tc.warnings) {
				t.Errorf("warnings %v, want %v", doc.Warnings, tc.warnings)
			}
		})
	}
}

func TestFeedItemCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel>`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, `<item><link>http://a.test/%d</link></item>`, i)
	}
	b.WriteString(`</channel></rss>`)
	doc, err := Parse([]byte(b.String()), Limits{MaxFeedItems: 10})
	if err != nil || len(doc.Entries) != 10 || doc.Warnings["too_many_urls"] != 1 {
		t.Fatalf("err %v, %d entries, warnings %v; want 10 and a too_many_urls warning", err, len(doc.Entries), doc.Warnings)
	}
}

// A link that ends in an empty fragment ("index.php# ", as a Hungarian cultural
// centre's feed writes its items) names the page itself: it is listed as
// "index.php", as a browser requests it and as a relative "x#" resolves, and a
// fragment with a name is kept.
func TestALinkWithAnEmptyFragmentIsThePage(t *testing.T) {
	feed := `<rss version="0.91"><channel><item><link>http://a.test/muvhaz/index.php# </link></item>` +
		`<item><link>http://a.test/muvhaz/index.php#5</link></item><item><link>rel.php#</link></item></channel></rss>`
	sitemap := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.test/news/1#</loc></url></urlset>`
	for _, c := range []struct{ body, want string }{
		{feed, "http://a.test/muvhaz/index.php http://a.test/muvhaz/index.php#5 http://a.test/muvhaz/rel.php"},
		{sitemap, "http://a.test/news/1"},
	} {
		d, err := ParseFrom([]byte(c.body), Source{URL: "http://a.test/muvhaz/rss.xml"}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range d.Entries {
			got = append(got, e.URL)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("entries %q, want %q", got, c.want)
		}
	}
}
