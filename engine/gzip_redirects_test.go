package engine_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/store"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestGzipRedirectBodiesAreArchivedTruthfully: a redirect hop whose body comes with
// Content-Encoding: gzip is archived like the final page: its body decoded, with no
// Content-Encoding in the record's HTTP head (the coding removed is named in the
// WARC header), the digest of the bytes in the record. A 302 whose gzip body is
// corrupt does not fail the fetch, and is archived as received, Content-Encoding
// included; a gzip bomb in a 302 is decoded no further than the client reads of a
// redirect's body, and archived cut (WARC-Truncated).
func TestGzipRedirectBodiesAreArchivedTruthfully(t *testing.T) {
	t.Parallel()
	moved := []byte("<html><p>moved, this body came gzip-coded</p></html>")
	// Each target's page differs: the same payload under two URLs would be exported
	// as a revisit of the first (TestWARCDuplicatesAcrossURLs), not as a response.
	page := func(path string) []byte { return []byte("<html><p>the page " + path + ", gzip-coded too</p></html>") }
	zMoved := gzipped(t, moved)
	// A valid gzip header, then a deflate stream that is not one.
	corrupt := append(append([]byte(nil), zMoved[:10]...), bytes.Repeat([]byte{0xff}, 40)...)
	// 4 MiB of zeros, ~4 KiB on the wire: 64 times what is kept of a redirect's
	// body (a bomb of GiBs is cut the same way, only costlier to make).
	bomb := gzipped(t, make([]byte, 4<<20))

	mux := http.NewServeMux()
	hop := func(to string, body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", to)
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusFound)
			w.Write(body)
		}
	}
	mux.HandleFunc("/gzip/from", hop("/gzip/to", zMoved))
	mux.HandleFunc("/corrupt/from", hop("/corrupt/to", corrupt))
	mux.HandleFunc("/bomb/from", hop("/bomb/to", bomb))
	for _, p := range []string{"/gzip/to", "/corrupt/to", "/bomb/to"} {
		zPage := gzipped(t, page(p))
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zPage)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	u := srv.URL

	o := enginetest.DefaultOptions()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	quickSiteOptions(&o, []string{u + "/gzip/from", u + "/corrupt/from", u + "/bomb/from"})
	e := enginetest.CrawlToDone(t, o)
	if s := e.Stats(); len(s.Errors) != 0 || s.PagesStored != 3 {
		t.Errorf("stats: errors %v, pages stored %d; want no error and the 3 pages", s.Errors, s.PagesStored)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	st, err := store.OpenReadOnly(o.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, _ := exportedRecords(t, st)
	type response struct {
		warc    map[string]string
		status  string
		head    http.Header
		payload []byte
	}
	got := map[string]response{}
	for _, rec := range recs {
		if rec.header["WARC-Type"] != "response" {
			continue
		}
		uri := rec.header["WARC-Target-URI"]
		head, payload, ok := bytes.Cut(rec.block, []byte("\r\n\r\n"))
		if !ok {
			t.Fatalf("%s: HTTP block without a header end: %.200q", uri, rec.block)
		}
		lines := strings.Split(string(head), "\r\n")
		h := http.Header{}
		for _, l := range lines[1:] {
			k, v, _ := strings.Cut(l, ":")
			h.Add(k, strings.TrimSpace(v))
		}
		sum := sha1.Sum(payload)
		if d := "sha1:" + base32.StdEncoding.EncodeToString(sum[:]); rec.header["WARC-Payload-Digest"] != d {
			t.Errorf("%s: WARC-Payload-Digest %s, the payload's is %s", uri, rec.header["WARC-Payload-Digest"], d)
		}
		if _, dup := got[uri]; dup {
			t.Errorf("%s: two response records", uri)
		}
		got[uri] = response{warc: rec.header, status: lines[0], head: h, payload: payload}
	}

	// decoded checks a response kept decoded: no Content-Encoding left in its HTTP
	// head, the coding named in the WARC header, the length of what follows.
	decoded := func(uri string, r response, want []byte, cut bool) {
		t.Helper()
		if ce := r.head.Values("Content-Encoding"); len(ce) != 0 {
			t.Errorf("%s: Content-Encoding %q in the record, but the payload is decoded", uri, ce)
		}
		if r.warc["Crawlconsole-Decoded-Content-Encoding"] != "gzip" {
			t.Errorf("%s: WARC header %v, want Crawlconsole-Decoded-Content-Encoding: gzip", uri, r.warc)
		}
		if cut {
			if r.warc["WARC-Truncated"] != "length" || r.head.Get("Content-Length") != "" || !bytes.HasPrefix(want, r.payload) {
				t.Errorf("%s: truncated %q, Content-Length %q, payload %d bytes %.60q: want a cut decoded body, no Content-Length",
					uri, r.warc["WARC-Truncated"], r.head.Get("Content-Length"), len(r.payload), r.payload)
			}
			return
		}
		if !bytes.Equal(r.payload, want) || r.warc["WARC-Truncated"] != "" || r.head.Get("Content-Length") != strconv.Itoa(len(want)) {
			t.Errorf("%s: payload %q (truncated %q, Content-Length %q), want the decoded %q", uri, r.payload,
				r.warc["WARC-Truncated"], r.head.Get("Content-Length"), want)
		}
	}
	for _, p := range []string{"/gzip/from", "/corrupt/from", "/bomb/from"} {
		if r, ok := got[u+p]; !ok || !strings.HasPrefix(r.status, "HTTP/1.1 302 ") {
			t.Errorf("%s: no 302 response record (%q)", p, r.status)
		}
	}
	for _, p := range []string{"/gzip/to", "/corrupt/to", "/bomb/to"} {
		r, ok := got[u+p]
		if !ok || !strings.HasPrefix(r.status, "HTTP/1.1 200 ") {
			t.Errorf("%s: no 200 response record (%q)", p, r.status)
			continue
		}
		decoded(u+p, r, page(p), false)
	}
	decoded(u+"/gzip/from", got[u+"/gzip/from"], moved, false)

	// The corrupt body could not be decoded: it is archived as received, coding and
	// length as the server sent them.
	if r := got[u+"/corrupt/from"]; !bytes.Equal(r.payload, corrupt) || r.head.Get("Content-Encoding") != "gzip" ||
		r.head.Get("Content-Length") != strconv.Itoa(len(corrupt)) || r.warc["Crawlconsole-Decoded-Content-Encoding"] != "" ||
		r.warc["WARC-Truncated"] != "" {
		t.Errorf("corrupt gzip 302: payload %q, head %v, WARC header %v; want the %d bytes received with Content-Encoding: gzip",
			r.payload, r.head, r.warc, len(corrupt))
	}

	// The bomb: decoded no further than a redirect's body is read, kept cut.
	r := got[u+"/bomb/from"]
	if len(r.payload) == 0 || len(r.payload) > 64<<10 {
		t.Errorf("gzip bomb 302: payload of %d bytes, want a cut decoded prefix (at most 64 KiB)", len(r.payload))
	}
	decoded(u+"/bomb/from", r, make([]byte, len(r.payload)), true)
}
