package fetch

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/discover"
)

// With discovery on, a body is decided by its content, not its label: a feed or
// sitemap is read as one under text/plain, application/octet-stream or text/html
// (real servers send all three); an HTML page is still a page; anything else is
// still refused as content_type, saying why.
func TestDiscoveryDecidesByContentNotLabel(t *testing.T) {
	rss := `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>T</title>` +
		`<item><link>/news/1</link></item><item><link>http://a.test/news/2</link></item></channel></rss>`
	urlset := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.test/s/1</loc></url></urlset>`
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write([]byte(urlset))
	z.Close()
	binary := make([]byte, 64<<10)
	rand.Read(binary)
	binary[0] = 'B'
	docs := map[string]struct {
		ctype string
		body  []byte
	}{
		"/feed-as-text":       {"text/plain", []byte(rss)},
		"/feed-as-octets":     {"application/octet-stream", []byte(rss)},
		"/feed-as-html":       {"text/html; charset=utf-8", []byte(rss)},
		"/feed-after-comment": {"text/html", []byte("<!-- generated -->\n" + strings.TrimPrefix(rss, `<?xml version="1.0" encoding="utf-8"?>`))},
		"/sitemap.php":        {"text/html; charset=UTF-8", []byte("<br />\n<b>Warning</b>:  Undefined variable $x in <b>/var/www/sitemap.php</b> on line <b>3</b><br />\n" + urlset)},
		"/sitemap.xml.gz":     {"application/octet-stream", gz.Bytes()},
		"/sitemap.txt":        {"text/plain; charset=utf-8", []byte("http://a.test/t/1\nhttp://a.test/t/2\n")},
		"/page":               {"text/html", []byte(`<html><body><a href="/x">x</a><p>no rss here</p></body></html>`)},
		"/xhtml-with-a-feed":  {"application/xhtml+xml", []byte(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><feed xmlns="http://www.w3.org/2005/Atom"><entry><id>1</id><link href="/e/1"/></entry></feed></body></html>`)},
		"/binary-as-text":     {"text/plain", binary},
		"/notes.txt":          {"text/plain", []byte("just some notes, no URL list\n")},
		"/other-xml-as-text":  {"text/plain", []byte(`<?xml version="1.0"?><config><a/></config>`)},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d.ctype)
		w.Write(d.body)
	}))
	defer srv.Close()
	cfg := Config{UserAgent: "t", ConnectTimeout: time.Second, RequestTimeout: 5 * time.Second,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html", "application/xhtml+xml"}, Discovery: true}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)

	for _, c := range []struct {
		path string
		kind discover.Kind
		urls []string
	}{
		{"/feed-as-text", discover.KindFeed, []string{srv.URL + "/news/1", "http://a.test/news/2"}},
		{"/feed-as-octets", discover.KindFeed, []string{srv.URL + "/news/1", "http://a.test/news/2"}},
		{"/feed-as-html", discover.KindFeed, []string{srv.URL + "/news/1", "http://a.test/news/2"}},
		{"/feed-after-comment", discover.KindFeed, []string{srv.URL + "/news/1", "http://a.test/news/2"}},
		{"/sitemap.php", discover.KindSitemap, []string{"http://a.test/s/1"}},
		{"/sitemap.xml.gz", discover.KindSitemap, []string{"http://a.test/s/1"}},
		{"/sitemap.txt", discover.KindSitemap, []string{"http://a.test/t/1", "http://a.test/t/2"}},
		{"/xhtml-with-a-feed", discover.KindFeed, []string{srv.URL + "/e/1"}},
	} {
		t.Run(c.path, func(t *testing.T) {
			res, err := f.Fetch(srv.URL+c.path, nil)
			if err != nil {
				t.Fatalf("fetch: %v", err)
			}
			if res.Discovered == nil || res.DiscoveredKind != c.kind {
				t.Fatalf("discovered %v (%q, error %q), want a %s", res.Discovered, res.DiscoveredKind, res.DiscoveryError, c.kind)
			}
			var got []string
			for _, e := range res.Discovered.Entries {
				got = append(got, e.URL)
			}
			if !slices.Equal(got, c.urls) {
				t.Errorf("urls %v, want %v", got, c.urls)
			}
		})
	}
	t.Run("an HTML page is still a page", func(t *testing.T) {
		res, err := f.Fetch(srv.URL+"/page", nil)
		if err != nil || res.Discovered != nil || res.DiscoveryError != "" || !slices.Equal(res.Links, []string{"/x"}) {
			t.Fatalf("err %v, discovered %v (%q), links %v; want a page with its link", err, res.Discovered, res.DiscoveryError, res.Links)
		}
	})
	for _, c := range []struct{ path, why string }{
		{"/binary-as-text", "no feed or sitemap"},
		{"/notes.txt", "no feed or sitemap"},
		{"/other-xml-as-text", "root element <config>"},
	} {
		t.Run(c.path+" is refused, saying why", func(t *testing.T) {
			res, err := f.Fetch(srv.URL+c.path, nil)
			if Kind(err) != KindContentType || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("err %v, want content_type saying %q", err, c.why)
			}
			if res == nil || res.Body != nil {
				t.Errorf("the refused body was kept")
			}
		})
	}
}
