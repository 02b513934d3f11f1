package sandbox

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// writeRealCorpus writes a corpus of files (path -> bytes) and manifest rows
// (tab-separated, without the header) into a new directory.
func writeRealCorpus(t *testing.T, files map[string][]byte, rows ...string) string {
	t.Helper()
	dir := t.TempDir()
	for p, b := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := strings.Join(realManifestHeader, "\t") + "\n" + strings.Join(rows, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST.tsv"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

func ungz(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// realGet asks the RealWeb for u as a crawler would: the name resolved to the
// server's address, the Host header kept.
func realGet(t *testing.T, w *RealWeb, u string) (*http.Response, []byte) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, w.Addr())
	}}}
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// A real site's documents are served on loopback at their published URLs, with
// their manifest Content-Type, every absolute URL inside pointed at the server and
// every other byte as it was (namespaces and schema locations are names, not links:
// kept), in a Latin-1 feed, inside a gzip sitemap and in a UTF-16 feed alike. Each host's home page links its feeds for autodiscovery, its
// robots.txt names its sitemaps, and any other path is an HTML article of its own.
func TestRealWebServesDocumentsAsTheirSites(t *testing.T) {
	latin1, _ := charmap.ISO8859_1.NewEncoder().Bytes([]byte(`<?xml version="1.0" encoding="iso-8859-1"?><rss version="2.0" xmlns:dc='http://purl.org/dc/elements/1.1/'><channel><title>Café</title>` +
		`<item><link>https://blog.example.org/p/café</link></item><item><link>http://user@other.example.net:8080/x?a=1</link></item></channel></rss>`))
	utf16, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(`<?xml version="1.0" encoding="utf-16"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://blog.example.org/u16"/></entry></feed>`))
	sitemap := []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"><url><loc>https://shop.example.com/p/1</loc></url></urlset>`)
	dir := writeRealCorpus(t, map[string][]byte{
		"feeds/latin1.xml":        latin1,
		"feeds/u16.xml":           utf16,
		"sitemaps/s.xml.gz":       gz(t, sitemap),
		"sitemaps/shop-index.xml": []byte(`<sitemapindex><sitemap><loc>https://shop.example.com/s.xml.gz</loc></sitemap></sitemapindex>`),
	},
		"feeds/latin1.xml\trss20\tISO-8859-1\thttps://blog.example.org/feed?format=rss\ttext/plain\ta/b@0:x\tMIT",
		"feeds/u16.xml\tatom10\tutf-16le\thttps://blog.example.org/atom\ttext/html; charset=utf-16\ta/b@0:y\tMIT",
		"sitemaps/s.xml.gz\tsitemap\tutf-8\thttps://shop.example.com/s.xml.gz\tapplication/octet-stream\ta/b@0:z\tMIT",
		"sitemaps/shop-index.xml\tsitemap_index\tutf-8\thttps://shop.example.com/sitemap_index.xml\tapplication/xml\ta/b@0:w\tMIT",
	)
	docs, w := serveRealCorpus(t, dir)
	if len(docs) != 4 || docs[0].Encoding != "iso-8859-1" || !docs[0].IsFeed() || docs[2].IsFeed() || !docs[3].IsIndex() {
		t.Fatalf("manifest read as %+v", docs)
	}
	port := ":" + strconv.Itoa(w.port)

	feedURL, _ := w.Map("https://blog.example.org/feed?format=rss")
	if want := "http://blog.example.org" + port + "/feed?format=rss"; feedURL != want {
		t.Fatalf("Map = %q, want %q", feedURL, want)
	}
	res, body := realGet(t, w, feedURL)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/plain" {
		t.Fatalf("feed: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	want, _ := charmap.ISO8859_1.NewEncoder().Bytes([]byte(`<?xml version="1.0" encoding="iso-8859-1"?><rss version="2.0" xmlns:dc='http://purl.org/dc/elements/1.1/'><channel><title>Café</title>` +
		`<item><link>http://blog.example.org` + port + `/p/café</link></item><item><link>http://other.example.net` + port + `/x?a=1</link></item></channel></rss>`))
	if !bytes.Equal(body, want) {
		t.Fatalf("feed served as\n%q\nwant\n%q", body, want)
	}

	_, body = realGet(t, w, w.DocURL(docs[1]))
	text, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(body)
	if err != nil || !bytes.Contains(text, []byte(`href="http://blog.example.org`+port+`/u16"`)) ||
		!bytes.Contains(text, []byte(`<feed xmlns="http://www.w3.org/2005/Atom">`)) {
		t.Fatalf("UTF-16 feed served as %q (%v)", text, err)
	}

	res, body = realGet(t, w, w.DocURL(docs[2]))
	if res.Header.Get("Content-Type") != "application/octet-stream" ||
		!bytes.Contains(ungz(t, body), []byte("<loc>http://shop.example.com"+port+"/p/1</loc>")) ||
		!bytes.Contains(ungz(t, body), sitemap[:bytes.IndexByte(sitemap, '>')]) {
		t.Fatalf("gzip sitemap served as %q: %q", res.Header.Get("Content-Type"), ungz(t, body))
	}

	homes := w.Homes()
	if len(homes) != 2 || homes[0] != "http://blog.example.org"+port+"/" || homes[1] != "http://shop.example.com"+port+"/" {
		t.Fatalf("Homes = %v", homes)
	}
	_, body = realGet(t, w, homes[0])
	for _, l := range []string{
		`<link rel="alternate" type="application/rss+xml" title="blog.example.org feed 1" href="` + feedURL + `">`,
		`<link rel="alternate" type="application/atom+xml" title="blog.example.org feed 2" href="` + w.DocURL(docs[1]) + `">`,
	} {
		if !bytes.Contains(body, []byte(l)) {
			t.Errorf("home page lacks %s:\n%s", l, body)
		}
	}
	if bytes.Contains(body, []byte("<a ")) {
		t.Errorf("home page links pages:\n%s", body)
	}
	_, body = realGet(t, w, "http://shop.example.com"+port+"/robots.txt")
	if want := "User-agent: *\nAllow: /\nSitemap: " + w.DocURL(docs[2]) + "\nSitemap: " + w.DocURL(docs[3]) + "\n"; string(body) != want {
		t.Errorf("robots.txt = %q, want %q", body, want)
	}
	_, body = realGet(t, w, "http://blog.example.org"+port+"/robots.txt")
	if bytes.Contains(body, []byte("Sitemap")) {
		t.Errorf("robots.txt of a host with feeds only names sitemaps: %q", body)
	}

	res, a1 := realGet(t, w, "http://shop.example.com"+port+"/p/1")
	_, a2 := realGet(t, w, "http://other.example.net"+port+"/x?a=1")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		bytes.Equal(a1, a2) || bytes.Contains(a1, []byte("href")) {
		t.Errorf("article pages: %d %q, alike %v:\n%s", res.StatusCode, res.Header.Get("Content-Type"), bytes.Equal(a1, a2), a1)
	}
	if w.Hits(feedURL) != 1 || w.Requests() != 8 {
		t.Errorf("hits %d of the feed, %d requests in all; want 1 and 8", w.Hits(feedURL), w.Requests())
	}
}

// A manifest that names a missing file, repeats a URL or is not the corpus's layout
// is refused, saying which line and what is wrong.
func TestLoadRealCorpusRefusesABadManifest(t *testing.T) {
	for _, c := range []struct {
		name, row, want string
	}{
		{"missing file", "feeds/none.xml\trss20\tutf-8\thttps://a.example/f\ttext/xml\ta/b@0:x\tMIT", "none.xml"},
		{"columns", "feeds/f.xml\trss20\tutf-8\thttps://a.example/f", "4 columns"},
		{"relative url", "feeds/f.xml\trss20\tutf-8\t/f\ttext/xml\ta/b@0:x\tMIT", "not an absolute"},
		{"same loopback URL", "feeds/f.xml\trss20\tutf-8\thttps://a.example/f\ttext/xml\ta/b@0:x\tMIT\nfeeds/g.xml\trss20\tutf-8\thttp://a.example/f\ttext/xml\ta/b@0:x\tMIT", "same loopback URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeRealCorpus(t, map[string][]byte{"feeds/f.xml": nil, "feeds/g.xml": nil}, c.row)
			_, err := LoadRealCorpus(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line") {
				t.Fatalf("err = %v, want one naming the line and %q", err, c.want)
			}
		})
	}
	if _, err := LoadRealCorpus(t.TempDir()); err == nil || !strings.Contains(err.Error(), "MANIFEST.tsv") {
		t.Fatalf("missing manifest: err = %v", err)
	}
}

// A feed is announced where its site announces it: on the home page and on the page
// of its section (the feed's URL up to its last path segment: Hugo's /fr/events/ for
// /fr/events/index.xml, WordPress's /category/x/ for /category/x/feed/), so that a
// site with more feeds than one page's links are read from can still be found
// through its sitemaps' section pages. Other article pages announce nothing. The
// home page announces its own feed (at the root) before the sections'.
func TestRealWebSectionPagesAnnounceTheirFeeds(t *testing.T) {
	rss := []byte(`<rss version="2.0"><channel><item><link>https://site.example.org/a</link></item></channel></rss>`)
	dir := writeRealCorpus(t, map[string][]byte{"feeds/a.xml": rss, "feeds/b.xml": rss, "feeds/c.xml": rss},
		"feeds/a.xml\trss20\tutf-8\thttps://site.example.org/fr/events/index.xml\tapplication/rss+xml\ta/b@0:x\tMIT",
		"feeds/b.xml\tatom10\tutf-8\thttps://site.example.org/category/x/feed/\tapplication/atom+xml\ta/b@0:y\tMIT",
		"feeds/c.xml\trss20\tutf-8\thttps://site.example.org/index.xml\tapplication/rss+xml\ta/b@0:z\tMIT",
	)
	docs, w := serveRealCorpus(t, dir)
	port := ":" + strconv.Itoa(w.port)
	for _, c := range []struct {
		page, typ string
		doc       RealDoc
	}{
		{"/fr/events/", "application/rss+xml", docs[0]},
		{"/category/x/", "application/atom+xml", docs[1]},
	} {
		res, body := realGet(t, w, "http://site.example.org"+port+c.page)
		l := `<link rel="alternate" type="` + c.typ + `" href="` + w.DocURL(c.doc) + `">`
		if res.StatusCode != 200 || !bytes.Contains(body, []byte(l)) || bytes.Count(body, []byte("<link")) != 1 {
			t.Errorf("%s: %d, want one %s in:\n%s", c.page, res.StatusCode, l, body)
		}
	}
	_, home := realGet(t, w, "http://site.example.org"+port+"/")
	if i, j := bytes.Index(home, []byte(w.DocURL(docs[2]))), bytes.Index(home, []byte(w.DocURL(docs[0]))); i < 0 || j < 0 || i > j {
		t.Errorf("home page does not announce its own feed first:\n%s", home)
	}
	for _, p := range []string{"/fr/", "/fr/events/2024/", "/category/"} {
		if _, body := realGet(t, w, "http://site.example.org"+port+p); bytes.Contains(body, []byte("<link")) {
			t.Errorf("%s announces a feed:\n%s", p, body)
		}
	}
}

// A link that carries another URL in its path (a news site's redirector:
// /redir/…/*https://www1.site/article) is served with both URLs pointed at the
// server, so the loopback URL a listed link maps to is the one the served document
// holds, and a document published at such a URL is served at the URL Map gives.
func TestRealWebMapsAURLInsideAURLAsItsDocumentServesIt(t *testing.T) {
	listed := "https://redir.example.org/redir/rss091/*https://www1.example.org/2018/09/a.shtml"
	dir := writeRealCorpus(t, map[string][]byte{
		"feeds/redir.xml": []byte(`<rss version="2.0"><channel><item><link><![CDATA[` + listed + `]]></link></item></channel></rss>`),
	},
		"feeds/redir.xml\trss20\tutf-8\thttps://feeds.example.org/proxy/*https://www1.example.org/rss\ttext/xml\ta/b@0:x\tMIT",
	)
	docs, w := serveRealCorpus(t, dir)
	res, body := realGet(t, w, w.DocURL(docs[0]))
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/xml" {
		t.Fatalf("feed at %s: %d %q, want the document (text/xml)", w.DocURL(docs[0]), res.StatusCode, res.Header.Get("Content-Type"))
	}
	mapped, ok := w.Map(listed)
	if !ok || !bytes.Contains(body, []byte("<![CDATA["+mapped+"]]>")) {
		t.Fatalf("Map(%q) = %q, not the link the feed is served with:\n%s", listed, mapped, body)
	}
}

// serveRealCorpus reads dir's manifest and serves its documents on loopback until
// the test ends.
func serveRealCorpus(t *testing.T, dir string) ([]RealDoc, *RealWeb) {
	t.Helper()
	docs, err := LoadRealCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := StartRealWeb(dir, docs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return docs, w
}
