package fetch

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFetch measures what one fetch of a small page costs the crawler around
// colly and net/http (request building, exchange recording, header reading), the
// loopback server included: its body is tiny, so the page's parse is no part of it.
func BenchmarkFetch(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Last-Modified", "Mon, 30 Nov 2026 02:00:00 GMT")
		w.Write([]byte(`<html><head><title>t</title></head><body><p>Hello <a href="/a">a</a></p></body></html>`))
	}))
	defer srv.Close()
	g, _ := NewGuard([]string{"127.0.0.0/8"})
	cfg := Config{UserAgent: "crawlconsole-bench", ConnectTimeout: 2 * time.Second, RequestTimeout: 5 * time.Second,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}, KeepParse: true,
		RedirectPause: func() time.Duration { return 0 }}
	f := New(context.Background(), cfg, &Dialer{Resolver: mapResolver{}, Guard: g, Timeout: time.Second}, nil)
	defer f.Close()
	hdr := http.Header{"If-None-Match": {`"x"`}}
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := f.Fetch(srv.URL+"/p", hdr); err != nil {
			b.Fatal(err)
		}
	}
	// The process's CPU, not the wall clock: a fetch waits on the loopback, and the
	// server's side is CPU too.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFetchBody is BenchmarkFetch with a body the size of a sandbox page
// (3.4 KB on average), as text/plain so that no page parse runs: what reading a
// body costs on top of the exchange. The body's length is announced, as the
// sandbox's are, and Discovery is on, as by default (a text body is sniffed for
// a feed or sitemap).
func BenchmarkFetchBody(b *testing.B) {
	body := []byte(strings.Repeat("A line of text of a page, as long as the sandbox's pages are.\n", 55))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	g, _ := NewGuard([]string{"127.0.0.0/8"})
	cfg := Config{UserAgent: "crawlconsole-bench", ConnectTimeout: 2 * time.Second, RequestTimeout: 5 * time.Second,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/plain"}, KeepParse: true,
		Discovery: true, MaxDocumentBytes: 50 << 20, RedirectPause: func() time.Duration { return 0 }}
	f := New(context.Background(), cfg, &Dialer{Resolver: mapResolver{}, Guard: g, Timeout: time.Second}, nil)
	defer f.Close()
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		res, err := f.Fetch(srv.URL+"/p", nil)
		if err != nil || len(res.Body) != len(body) {
			b.Fatal(res, err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkFetchRefusedBody is what a body costs that Discovery sniffs and refuses
// as content_type (TestDiscoveryDecidesByContentNotLabel checks the refusals): 64
// KiB of binary labelled text/plain, notes that are no URL list, XML whose root is
// no feed or sitemap; each fetched from a loopback server, its CPU as in
// BenchmarkFetch.
func BenchmarkFetchRefusedBody(b *testing.B) {
	binary := make([]byte, 64<<10)
	rand.Read(binary)
	binary[0] = 'B'
	bodies := map[string][]byte{
		"/binary-as-text":    binary,
		"/notes.txt":         []byte("just some notes, no URL list\n"),
		"/other-xml-as-text": []byte(`<?xml version="1.0"?><config><a/></config>`),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(bodies[r.URL.Path])
	}))
	defer srv.Close()
	g, _ := NewGuard([]string{"127.0.0.0/8"})
	cfg := Config{UserAgent: "crawlconsole-bench", ConnectTimeout: 2 * time.Second, RequestTimeout: 5 * time.Second,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html", "application/xhtml+xml"}, Discovery: true,
		RedirectPause: func() time.Duration { return 0 }}
	f := New(context.Background(), cfg, &Dialer{Resolver: mapResolver{}, Guard: g, Timeout: time.Second}, nil)
	defer f.Close()
	for _, path := range []string{"/binary-as-text", "/notes.txt", "/other-xml-as-text"} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := f.Fetch(srv.URL+path, nil); Kind(err) != KindContentType {
					b.Fatalf("%s: %v, want content_type", path, err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
