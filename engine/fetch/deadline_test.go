package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRequestTimeoutCoversTheWholeFetch: fetch.timeout bounds a fetch from its first
// request to the last byte of its body: hops that each answer within it but not
// together time out, and a body that stalls midway, compressed or not, fails as a
// timeout whose response is archived with the bytes received, decoded, cut for
// "time".
func TestRequestTimeoutCoversTheWholeFetch(t *testing.T) {
	stop := make(chan struct{})
	text := strings.Repeat("<p>part of a page</p>\n", 40)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Flush() // the text so far, decodable, and no end of stream
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hop":
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			select {
			case <-time.After(150 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
			if n < 3 {
				http.Redirect(w, r, fmt.Sprintf("/hop?n=%d", n+1), http.StatusFound)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(text))
		case "/stall", "/stall-gzip":
			w.Header().Set("Content-Type", "text/html")
			body := []byte(text)
			if r.URL.Path == "/stall-gzip" {
				w.Header().Set("Content-Encoding", "gzip")
				body = gz.Bytes()
			}
			w.Header().Set("Content-Length", strconv.Itoa(4*len(body)))
			w.Write(body)
			http.NewResponseController(w).Flush()
			select { // the rest never comes
			case <-r.Context().Done():
			case <-stop:
			}
		}
	}))
	defer srv.Close()
	defer close(stop) // before srv.Close
	cfg := Config{UserAgent: "t", ConnectTimeout: time.Second, RequestTimeout: 400 * time.Millisecond,
		MaxBodyBytes: 1 << 20, MaxRedirects: 5, ContentTypes: []string{"text/html"}}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)

	// Four hops of 150 ms: each within the timeout, 600 ms together.
	start := time.Now()
	_, err := f.Fetch(srv.URL+"/hop?n=0", nil)
	if Kind(err) != KindTimeout {
		t.Fatalf("four slow hops: kind %q (%v) after %v, want %q", Kind(err), err, time.Since(start), KindTimeout)
	}

	for _, c := range []struct{ path, decoded string }{{"/stall", ""}, {"/stall-gzip", "gzip"}} {
		t.Run(c.path, func(t *testing.T) {
			// The timeout must run out after the first part of the body came,
			// which on a loaded box can take longer than 400 ms from the
			// request: a fetch that timed out before it had any of the body
			// tells nothing of a stall midway, and is made again with the
			// timeout doubled (up to 25.6 s) before the assertions below.
			var res *Result
			var err error
			for cfg := cfg; ; cfg.RequestTimeout *= 2 {
				f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
				res, err = f.Fetch(srv.URL+c.path, nil)
				var fe *Error
				early := Kind(err) == KindTimeout && errors.As(err, &fe) && (len(fe.Exchanges) == 0 || len(fe.Exchanges[0].Body) == 0)
				if !early || cfg.RequestTimeout >= 25*time.Second {
					break
				}
				t.Logf("timed out after %v before any of the body came: again with twice the timeout", cfg.RequestTimeout)
			}
			if Kind(err) != KindTimeout || res != nil {
				t.Fatalf("kind %q (%v), result %v; want %q and no result", Kind(err), err, res, KindTimeout)
			}
			var fe *Error
			if !errors.As(err, &fe) || len(fe.Exchanges) != 1 {
				t.Fatalf("exchanges of the failed fetch: %v", err)
			}
			ex := fe.Exchanges[0]
			if ex.Status != http.StatusOK || ex.Failed != TruncatedTime || !ex.BodyCut {
				t.Fatalf("archived response: status %d failed %q cut %v; want 200, %q, cut", ex.Status, ex.Failed, ex.BodyCut, TruncatedTime)
			}
			// What came of the body, decoded: the part of the text sent (a
			// stream cut by the timeout is not an undecodable one).
			if ex.Decoded != c.decoded || len(ex.Body) == 0 || !strings.HasPrefix(text, string(ex.Body)) {
				t.Fatalf("archived body: decoded %q, %d bytes %.40q; want decoded %q and a prefix of the text", ex.Decoded, len(ex.Body), ex.Body, c.decoded)
			}
		})
	}
}

// TestFetchWithinEndsWithItsBound: a fetch made within a context (a worker's lease)
// ends when that context does, well before fetch.timeout, with a body that stalls
// midway; with the bound still open, the fetch goes on to the timeout.
func TestFetchWithinEndsWithItsBound(t *testing.T) {
	stop := make(chan struct{})
	stalled := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("<p>part of a page</p>"))
		http.NewResponseController(w).Flush()
		select {
		case stalled <- struct{}{}:
		default:
		}
		select { // the rest never comes
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	cfg := Config{UserAgent: "t", ConnectTimeout: time.Second, RequestTimeout: time.Hour,
		MaxBodyBytes: 1 << 20, MaxRedirects: 5, ContentTypes: []string{"text/html"}}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	bound, cut := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.FetchWithin(bound, srv.URL+"/page", nil)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the fetch ended before its bound: %v", err)
	case <-stalled: // the fetch is in the stalled body
	}
	cut()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a fetch cut short by its bound succeeded")
		}
	case <-time.After(time.Minute):
		t.Fatal("the fetch outlived its bound by a minute (fetch.timeout is an hour)")
	}
}
