package fetch

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestFetchedBodiesAreHandedUpAsRead: a page's body comes up byte for byte as sent
// (decoded), whatever its size; an empty one is empty, not missing; one whose
// Content-Type names another charset than UTF-8 comes up in UTF-8, as colly
// re-encodes it; a redirect's target page is the body, not the redirect's, and
// its URL the final one.
func TestFetchedBodiesAreHandedUpAsRead(t *testing.T) {
	big := []byte(strings.Repeat("<p>a paragraph of a long page, with a word or two more</p>\n", 10000)) // 600 KB
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(big)
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(big)
		case "/each":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			page := eachPage(r.URL.Query().Get("i"), big)
			if r.URL.Query().Has("sized") {
				w.Header().Set("Content-Length", strconv.Itoa(len(page)))
			}
			w.Write(page)
		case "/big-sized":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write(big)
		case "/big-gzip":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
		case "/empty":
			w.Header().Set("Content-Type", "text/html")
		case "/latin1":
			w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
			w.Write([]byte("<p>caf\xe9 cr\xe8me</p>"))
		case "/moved":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Location", "/big")
			w.WriteHeader(http.StatusMovedPermanently)
			w.Write([]byte("<p>moved</p>"))
		}
	}))
	defer srv.Close()
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, Config{})
	for _, c := range []struct {
		path string
		want []byte
	}{
		{"/big", big},
		{"/big-sized", big},
		{"/big-gzip", big},
		{"/empty", []byte{}},
		{"/latin1", []byte("<p>café crème</p>")},
		{"/moved", big},
	} {
		t.Run(c.path, func(t *testing.T) {
			res, err := f.Fetch(srv.URL+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Body == nil || !bytes.Equal(res.Body, c.want) {
				t.Fatalf("body: %d bytes %.60q (nil %v), want %d bytes %.60q", len(res.Body), res.Body, res.Body == nil, len(c.want), c.want)
			}
			final := srv.URL + c.path
			if c.path == "/moved" {
				final = srv.URL + "/big"
			}
			if res.FinalURL != final {
				t.Fatalf("final URL %q, want %q", res.FinalURL, final)
			}
		})
	}
	// Fetches one after another and at once share the buffers a body is read
	// into: each keeps its own page, of a length announced (Content-Length) or
	// not (chunked).
	bodies := make([][]byte, 24)
	var wg sync.WaitGroup
	for i := range bodies {
		get := func() {
			u := srv.URL + "/each?i=" + strconv.Itoa(i)
			if i%2 == 1 {
				u += "&sized"
			}
			if res, err := f.Fetch(u, nil); err == nil {
				bodies[i] = res.Body
			}
		}
		if i < 8 {
			get()
			continue
		}
		wg.Go(get)
	}
	wg.Wait()
	for i, b := range bodies {
		if want := eachPage(strconv.Itoa(i), big); !bytes.Equal(b, want) {
			t.Fatalf("fetch %d of 24: %d bytes %.20q, want the page's %d bytes %.20q", i, len(b), b, len(want), want)
		}
	}
}

// eachPage is a page of its own for each i.
func eachPage(i string, page []byte) []byte {
	return append([]byte("<h1>"+i+"</h1>"), page...)
}
