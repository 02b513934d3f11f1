package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/crawlconsole/crawlconsole/engine/robots"
)

// bombSize is what each compression bomb inflates to: twice the allocation the
// tests allow, so a body inflated past the cap shows; on the wire it is over
// 100 KiB (gzip, deflate) or a few KiB (zstd). Building them is most of the
// tests' CPU, in proportion to the size.
const bombSize = 128 << 20

var bombs struct {
	once             sync.Once
	gzip, flate, zst []byte
}

// compressZeros streams bombSize zero bytes through w, never holding them.
func compressZeros(t *testing.T, w io.WriteCloser) {
	zeros := make([]byte, 1<<20)
	for range bombSize / len(zeros) {
		if _, err := w.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// bombBodies builds the bombs once, before any allocation is measured.
func bombBodies(t *testing.T) (gz, fl, zs []byte) {
	t.Helper()
	bombs.once.Do(func() {
		var b bytes.Buffer
		g, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		compressZeros(t, g)
		bombs.gzip = bytes.Clone(b.Bytes())
		b.Reset()
		f, _ := flate.NewWriter(&b, flate.BestCompression)
		compressZeros(t, f)
		bombs.flate = bytes.Clone(b.Bytes())
		b.Reset()
		z, err := zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
		if err != nil {
			t.Fatal(err)
		}
		compressZeros(t, z)
		bombs.zst = bytes.Clone(b.Bytes())
	})
	return bombs.gzip, bombs.flate, bombs.zst
}

// TestDecompressionBombsStopAtTheCap serves responses small on the wire that inflate
// to 128 MiB, through every path that decompresses: the fetch
// must fail with body_too_large (or keep at most the cap), and the process must not
// allocate anything like the inflated size while doing so.
func TestDecompressionBombsStopAtTheCap(t *testing.T) {
	gz, fl, zs := bombBodies(t)
	t.Logf("on the wire: gzip %d B, deflate %d B, zstd %d B; inflated %d MiB", len(gz), len(fl), len(zs), bombSize>>20)
	type resp struct {
		status   int
		ctype    string // "-": no Content-Type at all
		encoding string
		body     []byte
	}
	cases := map[string]resp{
		"/content-encoding-gzip":    {200, "text/html", "gzip", gz},
		"/content-encoding-deflate": {200, "text/html", "deflate", fl},
		"/content-encoding-zstd":    {200, "text/html", "zstd", zs},
		"/content-type-says-gzip":   {200, "text/html; x=gzip", "", gz},
		"/not-found-gzip":           {404, "application/x-gzip", "", gz},
		"/not-found-encoded":        {404, "text/html", "gzip", gz},
		"/sitemap.xml.gz":           {200, "-", "", gz},
		"/zstd-then-identity":       {200, "text/html", "zstd, identity", zs},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := cases[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if c.ctype == "-" {
			w.Header()["Content-Type"] = nil // no sniffing either
		} else {
			w.Header().Set("Content-Type", c.ctype)
		}
		if c.encoding != "" {
			w.Header().Set("Content-Encoding", c.encoding)
		}
		w.WriteHeader(c.status)
		w.Write(c.body)
	}))
	defer srv.Close()
	const limit = 64 << 10 // below every bomb's wire size but zstd's, so "stored as received" is capped too
	cfg := Config{UserAgent: "crawlconsole-test", ConnectTimeout: 2 * time.Second, RequestTimeout: 20 * time.Second,
		MaxBodyBytes: limit, MaxRedirects: 3, ContentTypes: []string{"text/html"}}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	for path := range cases {
		t.Run(path[1:], func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res, err := f.Fetch(srv.URL+path, nil)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("fetching the bomb allocated %d MiB (cap %d KiB): it was inflated past the cap", alloc>>20, limit>>10)
			}
			if Kind(err) != KindTooLarge {
				t.Errorf("kind %q (%v), want %s", Kind(err), err, KindTooLarge)
			}
			if res != nil && len(res.Body) > limit {
				t.Errorf("kept a %d-byte body, cap %d", len(res.Body), limit)
			}
		})
	}
}

// TestEncodedBodiesAreDecoded: the fetcher decodes gzip, deflate (zlib and raw) and
// zstd itself; a body of exactly the cap passes; a coding it does not implement (br)
// fails with content_encoding; a body that merely is gzip (by Content-Type or by a
// .xml.gz path) is kept as received, not inflated.
func TestEncodedBodiesAreDecoded(t *testing.T) {
	page := []byte(`<html><head><title>t</title></head><body><a href="/next">n</a></body></html>`)
	enc := func(coding string, b []byte) []byte {
		var buf bytes.Buffer
		var w io.WriteCloser
		switch coding {
		case "gzip":
			w = gzip.NewWriter(&buf)
		case "deflate":
			w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
		case "zlib":
			w = zlibWriter(&buf)
		case "zstd":
			w, _ = zstd.NewWriter(&buf)
		}
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	exact := append(bytes.Repeat([]byte(" "), 4096-len(page)), page...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Accept-Encoding"); got != acceptEncoding {
			http.Error(w, "Accept-Encoding "+got, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/gzip", "/deflate", "/zstd":
			w.Header().Set("Content-Encoding", r.URL.Path[1:])
			w.Write(enc(r.URL.Path[1:], page))
		case "/zlib":
			w.Header().Set("Content-Encoding", "deflate")
			w.Write(enc("zlib", page))
		case "/exact":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(enc("gzip", exact))
		case "/one-over":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(enc("gzip", append([]byte(" "), exact...)))
		case "/not-modified":
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusNotModified)
		case "/br":
			w.Header().Set("Content-Encoding", "br")
			w.Write([]byte{0x0b, 0x02, 0x80, 'h', 'i', 0x03})
		case "/corrupt":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("this is not gzip at all"))
		case "/typed.gz", "/sitemap.xml.gz":
			if r.URL.Path == "/typed.gz" {
				w.Header().Set("Content-Type", "text/html; x=gzip")
			}
			w.Write(enc("gzip", page))
		}
	}))
	defer srv.Close()
	cfg := Config{UserAgent: "crawlconsole-test", ConnectTimeout: 2 * time.Second, RequestTimeout: 5 * time.Second,
		MaxBodyBytes: 4096, MaxRedirects: 3, ContentTypes: []string{"text/html"}}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	for _, p := range []string{"/gzip", "/deflate", "/zlib", "/zstd", "/exact"} {
		res, err := f.Fetch(srv.URL+p, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !bytes.HasSuffix(res.Body, page) || len(res.Links) != 1 || res.Links[0] != "/next" {
			t.Fatalf("%s: body %q links %q", p, res.Body, res.Links)
		}
		if res.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%s: decoded body stored with Content-Encoding %q", p, res.Header.Get("Content-Encoding"))
		}
	}
	for p, want := range map[string]string{"/one-over": KindTooLarge, "/br": KindEncoding, "/corrupt": KindEncoding} {
		if _, err := f.Fetch(srv.URL+p, nil); Kind(err) != want {
			t.Errorf("%s: kind %q (%v), want %s", p, Kind(err), err, want)
		}
	}
	if res, err := f.Fetch(srv.URL+"/not-modified", http.Header{"If-None-Match": {`"x"`}}); err != nil || res.Status != http.StatusNotModified {
		t.Errorf("304 naming a coding, with no body: %v, %+v", err, res)
	}
	// gzip by type or by path, not by Content-Encoding: kept as received (binary here).
	for _, p := range []string{"/typed.gz", "/sitemap.xml.gz"} {
		if _, err := f.Fetch(srv.URL+p, nil); Kind(err) != KindBinary {
			t.Errorf("%s: kind %q (%v), want %s: the body must not be inflated", p, Kind(err), err, KindBinary)
		}
	}
}

func zlibWriter(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }

// TestRobotsBombIsTruncated: robots.txt goes through the same decoder, truncated at
// robots.MaxBytes of decoded text instead of failing.
func TestRobotsBombIsTruncated(t *testing.T) {
	gz, _, _ := bombBodies(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz)
	}))
	defer srv.Close()
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, Config{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rules := f.FetchRobots(t.Context(), srv.URL, "crawlconsole")
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("robots.txt bomb allocated %d MiB", alloc>>20)
	}
	if rules == nil || rules.Unreachable {
		t.Errorf("robots.txt bomb: %v, want rules parsed from its first %d bytes", rules, robots.MaxBytes)
	}
}
