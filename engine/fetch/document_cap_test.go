package fetch

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sitemapOf is a sitemap of n URLs, each entry padded to about size/n bytes.
func sitemapOf(n, size int) []byte {
	var b strings.Builder
	b.Grow(size + 256)
	b.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	pad := strings.Repeat(" ", max(0, size/n-60)) // an entry is under 60 bytes unpadded
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>http://a.test/n/%d</loc></url>%s\n", i, pad)
	}
	b.WriteString(`</urlset>`)
	return []byte(b.String())
}

// A feed's or sitemap's body (labelled XML or gzip) may have
// Config.MaxDocumentBytes, a page keeps MaxBodyBytes: a sitemap over the page cap
// is read whole, an HTML page the same size is refused, and a sitemap over the
// document cap is refused whether its Content-Length says so or not.
func TestDocumentCapIsItsOwn(t *testing.T) {
	t.Parallel()
	sitemap := sitemapOf(3000, 3<<20)
	page := []byte("<html><body>" + strings.Repeat("<p>text</p>", (3<<20)/11) + "</body></html>")
	over := sitemapOf(5000, 5<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		ctype := "application/xml"
		switch r.URL.Path {
		case "/sitemap.xml":
			body = sitemap
		case "/page.html":
			body, ctype = page, "text/html"
		case "/over.xml", "/over-chunked.xml":
			body = over
		}
		writeBody(w, body, ctype, r.URL.Path == "/over-chunked.xml")
	}))
	defer srv.Close()
	cfg := Config{UserAgent: "t", ConnectTimeout: time.Second, RequestTimeout: 20 * time.Second,
		MaxBodyBytes: 1 << 20, MaxDocumentBytes: 4 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}, Discovery: true}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)

	res, err := f.Fetch(srv.URL+"/sitemap.xml", nil)
	if err != nil {
		t.Fatalf("a 3 MiB sitemap under a 1 MiB page cap and a 4 MiB document cap: %v", err)
	}
	if res.Discovered == nil || len(res.Discovered.Entries) != 3000 {
		t.Fatalf("the 3 MiB sitemap gave %v, want its 3000 URLs", res.Discovered)
	}
	for _, p := range []string{"/page.html", "/over.xml", "/over-chunked.xml"} {
		if _, err := f.Fetch(srv.URL+p, nil); Kind(err) != KindTooLarge {
			t.Errorf("%s: error %v, want %s", p, err, KindTooLarge)
		}
	}
	// Without discovery a sitemap is a body like any other.
	cfg.Discovery = false
	cfg.ContentTypes = []string{"application/xml"}
	g, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	if _, err := g.Fetch(srv.URL+"/sitemap.xml", nil); Kind(err) != KindTooLarge {
		t.Errorf("discovery off, a 3 MiB XML body under a 1 MiB cap: error %v, want %s", err, KindTooLarge)
	}
}

// A 50 MB sitemap (the protocol's most, 50,000 URLs) costs a few times its own
// size in memory at most while it is fetched and read: the body is held once
// (grown by doubling when no Content-Length announces it), and the parse streams
// over it, keeping the entries only.
func TestFiftyMegabyteSitemapPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a 50 MB body")
	}
	body := sitemapOf(50_000, 50<<20-1024)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		if r.URL.Path == "/sitemap.xml" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Write(body)
	}))
	defer srv.Close()
	cfg := Config{UserAgent: "t", ConnectTimeout: time.Second, RequestTimeout: 60 * time.Second,
		MaxBodyBytes: 10 << 20, MaxDocumentBytes: 50 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}, Discovery: true}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.1/8"}, cfg)
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	for _, path := range []string{"/sitemap.xml", "/chunked.xml"} {
		grown := peakGrowth(t, f, srv.URL+path)
		t.Logf("%s: body %d MiB; heap in use grew at most %d MiB while fetching and reading it", path, len(body)>>20, grown>>20)
		if grown > 4*int64(len(body)) {
			t.Errorf("%s: heap in use grew %d MiB for a %d MiB sitemap: more than four copies of it", path, grown>>20, len(body)>>20)
		}
	}
}

// peakGrowth fetches u and returns how far the heap in use grew at its highest.
func peakGrowth(t *testing.T, f *Fetcher, u string) int64 {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	res, err := f.Fetch(u, nil)
	close(stop)
	<-done
	if err != nil {
		t.Fatalf("a 50 MB sitemap: %v", err)
	}
	if res.Discovered == nil || len(res.Discovered.Entries) != 50_000 {
		t.Fatalf("the 50 MB sitemap gave %d URLs, want 50,000", len(res.Discovered.Entries))
	}
	return int64(peak.Load()) - int64(base.HeapInuse)
}

// A sitemap is a sitemap whatever its label: served as text/plain or text/html, or
// a .xml.gz served as application/octet-stream, it has the document cap as an XML
// one does, decided by its first bytes; an HTML page labelled the same still has
// the page cap.
func TestDocumentCapFollowsTheBodyNotTheLabel(t *testing.T) {
	t.Parallel()
	sitemap := sitemapOf(3000, 3<<20)
	var raw strings.Builder // random locs: its gzip stays over the page cap
	raw.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 40_000 {
		fmt.Fprintf(&raw, "<url><loc>http://a.test/%d/%016x%016x%016x</loc></url>\n", i, rnd.Uint64(), rnd.Uint64(), rnd.Uint64())
	}
	raw.WriteString(`</urlset>`)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(raw.String()))
	zw.Close()
	if gz.Len() <= 1<<20 {
		t.Fatalf("the gzip sitemap is %d bytes: not over the 1 MiB page cap", gz.Len())
	}
	page := []byte("<html><body>" + strings.Repeat("<p>text</p>", (3<<20)/11) + "</body></html>")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ctype := sitemap, "text/plain"
		switch r.URL.Path {
		case "/html.xml":
			ctype = "text/html; charset=utf-8"
		case "/sitemap.xml.gz":
			body, ctype = gz.Bytes(), "application/octet-stream"
		case "/page.html":
			body, ctype = page, "text/html"
		}
		writeBody(w, body, ctype, r.URL.Query().Has("chunked"))
	}))
	defer srv.Close()
	cfg := Config{UserAgent: "t", ConnectTimeout: time.Second, RequestTimeout: 20 * time.Second,
		MaxBodyBytes: 1 << 20, MaxDocumentBytes: 8 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}, Discovery: true}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	for _, c := range []struct {
		path string
		want int
	}{{"/text.xml", 3000}, {"/html.xml", 3000}, {"/sitemap.xml.gz", 40_000}} {
		for _, q := range []string{"", "?chunked"} {
			res, err := f.Fetch(srv.URL+c.path+q, nil)
			if err != nil {
				t.Errorf("%s%s, over the 1 MiB page cap: %v", c.path, q, err)
				continue
			}
			if res.Discovered == nil || len(res.Discovered.Entries) != c.want {
				t.Errorf("%s%s gave %v, want its %d URLs", c.path, q, res.Discovered, c.want)
			}
		}
	}
	for _, q := range []string{"", "?chunked"} {
		if _, err := f.Fetch(srv.URL+"/page.html"+q, nil); Kind(err) != KindTooLarge {
			t.Errorf("a 3 MiB HTML page%s: error %v, want %s", q, err, KindTooLarge)
		}
	}
}

// writeBody answers with body as ctype: with its Content-Length, or chunked (its
// first KiB flushed alone, no Content-Length), so that a cap is met on the bytes
// read rather than at the headers.
func writeBody(w http.ResponseWriter, body []byte, ctype string, chunked bool) {
	w.Header().Set("Content-Type", ctype)
	if chunked {
		w.Write(body[:1024])
		w.(http.Flusher).Flush()
		w.Write(body[1024:])
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}
