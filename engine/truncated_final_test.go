package engine_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// cutFinal is one page of the cut-bodies site: what of its body the crawler
// receives, the kind its fetch fails with and the WARC-Truncated reason.
type cutFinal struct {
	path, sent, kind, reason string
}

// TestFinalResponsesCutMidBodyAreArchived: a fetch whose final response came (a 200
// status and header fields) but whose body did not — the connection closed
// mid-body, the request timed out mid-body, a Content-Encoding the fetcher does not
// decode — fails as before, counted under its kind with no response counted, but the
// response is stored and exported to WARC with the bytes received, WARC-Truncated
// saying why, and the payload digest of exactly those bytes.
func TestFinalResponsesCutMidBodyAreArchived(t *testing.T) {
	t.Parallel()
	for _, timeout := range cutFinalTimeouts {
		srv, pages := startCutFinals(t)
		o := enginetest.DefaultOptions()
		o.DB = filepath.Join(t.TempDir(), "crawl.db")
		cutFinalOptions(&o, srv, pages, timeout)
		e := enginetest.CrawlToDone(t, o)
		checkCutFinalStats(t, e.Stats(), pages)
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if checkCutFinals(t, o.DB, srv, pages, timeout) {
			return
		}
	}
}

// TestWorkersCutFinalResponsesReachTheMaster: the same from a worker: the cut
// response travels with the failed result, its reason in the exchange's cut byte,
// and the master's store and WARC export hold it.
func TestWorkersCutFinalResponsesReachTheMaster(t *testing.T) {
	t.Parallel()
	for _, timeout := range cutFinalTimeouts {
		srv, pages := startCutFinals(t)
		c := startClusterWith(t, enginetest.SandboxConfig(5, 2), 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
			cutFinalOptions(o, srv, pages, timeout)
		})
		c.worker("w1", "127.0.0.2")
		checkCutFinalStats(t, c.waitDone(time.Minute), pages)
		if checkCutFinals(t, c.opts.DB, srv, pages, timeout) {
			return
		}
	}
}

// cutFinalTimeouts are the request timeouts that end /stall's body, the first
// tried first. The timeout runs from the request, so it must also outlast the time
// the 200 and its first bytes take to reach the fetcher: an idle box takes
// milliseconds, but at one second a loaded box (a worker's heartbeats unanswered
// for seconds) had it end before the response came, a timeout with no response to
// archive, which shows nothing of the property: the crawl is run again with the
// longer timeout.
var cutFinalTimeouts = []time.Duration{2 * time.Second, 10 * time.Second}

// startCutFinals serves pages whose 200 response comes but whose body does not.
func startCutFinals(t *testing.T) (*httptest.Server, []cutFinal) {
	t.Helper()
	sent := strings.Repeat("<p>part of a page</p>\n", 20)
	pages := []cutFinal{
		{"/hangup", sent, fetch.KindReset, "disconnect"},
		{"/brotli", "", fetch.KindEncoding, "unspecified"},
		{"/stall", sent, fetch.KindTimeout, "time"}, // last: a timeout slows the host's gate down
	}
	stop := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/hangup", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", fmt.Sprint(4*len(sent)))
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, sent)
		rc := http.NewResponseController(w)
		rc.Flush()
		conn, _, err := rc.Hijack()
		if err == nil {
			conn.Close() // the rest never comes
		}
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", fmt.Sprint(4*len(sent)))
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, sent)
		http.NewResponseController(w).Flush()
		select { // the rest never comes: the crawler's request times out
		case <-r.Context().Done():
		case <-stop:
		}
	})
	mux.HandleFunc("/brotli", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "br")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "\x0b\x02\x80not really brotli")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs before srv.Close
	return srv, pages
}

// cutFinalOptions crawls only the cut pages, fast, with no retries and a request
// timeout that ends /stall's body.
func cutFinalOptions(o *config.Options, srv *httptest.Server, pages []cutFinal, timeout time.Duration) {
	var seeds []string
	for _, p := range pages {
		seeds = append(seeds, srv.URL+p.path)
	}
	quickSiteOptions(o, seeds)
	o.Fetch.Timeout = timeout
}

// checkCutFinalStats: every page failed under its kind, no response counted.
func checkCutFinalStats(t *testing.T, s view.Stats, pages []cutFinal) {
	t.Helper()
	wantErrors := map[string]int64{}
	for _, p := range pages {
		wantErrors[p.kind]++
	}
	if fmt.Sprint(s.Errors) != fmt.Sprint(wantErrors) || s.PagesFetched != 0 || len(s.StatusClass) != 0 || s.PagesStored != 0 {
		t.Errorf("stats: errors %v, pages fetched %d, status classes %v, stored %d; want errors %v and no response counted",
			s.Errors, s.PagesFetched, s.StatusClass, s.PagesStored, wantErrors)
	}
}

// checkCutFinals: the store has every page failed under its kind and none stored,
// and a WARC export holds each cut 200 response (and its request) with the bytes
// received, WARC-Truncated and the payload's digest. False, with nothing judged
// past the store's states, says the request timeout of a shorter try than the
// last ended before /stall's response came.
func checkCutFinals(t *testing.T, db string, srv *httptest.Server, pages []cutFinal, timeout time.Duration) bool {
	t.Helper()
	kinds := map[string]string{}
	for _, p := range pages {
		kinds[srv.URL+p.path] = p.kind
	}
	recs, rep := failedAndExported(t, db, kinds)
	responses := map[string][]warcRec{}
	requests := map[string]int{}
	for _, rec := range recs {
		uri := rec.header["WARC-Target-URI"]
		switch rec.header["WARC-Type"] {
		case "request":
			requests[uri]++
		case "response":
			responses[uri] = append(responses[uri], rec)
		}
	}
	if stall := srv.URL + "/stall"; len(responses[stall]) == 0 && timeout != cutFinalTimeouts[len(cutFinalTimeouts)-1] {
		t.Logf("no response of /stall came within the %v request timeout (a loaded box): crawled again with a longer one", timeout)
		return false
	}
	for _, p := range pages {
		uri := srv.URL + p.path
		got := responses[uri]
		if len(got) != 1 {
			t.Errorf("%s (%s): %d response records in the WARC, want 1", p.path, p.kind, len(got))
			continue
		}
		rec := got[0]
		head, payload, _ := strings.Cut(string(rec.block), "\r\n\r\n")
		if !strings.HasPrefix(head, "HTTP/1.1 200 ") {
			t.Errorf("%s: status line %q, want a 200", p.path, strings.SplitN(head, "\r\n", 2)[0])
		}
		if payload != p.sent {
			t.Errorf("%s: payload %q, want the %d bytes received %q", p.path, payload, len(p.sent), p.sent)
		}
		if tr := rec.header["WARC-Truncated"]; tr != p.reason {
			t.Errorf("%s: WARC-Truncated %q, want %q", p.path, tr, p.reason)
		}
		if d := rec.header["WARC-Payload-Digest"]; d != store.PayloadDigest([]byte(payload)) {
			t.Errorf("%s: WARC-Payload-Digest %q, want %q (the payload written)", p.path, d, store.PayloadDigest([]byte(payload)))
		}
		if requests[uri] != 1 {
			t.Errorf("%s: %d request records, want 1", p.path, requests[uri])
		}
	}
	if rep.Responses != len(pages) {
		t.Errorf("export wrote %d responses, want %d", rep.Responses, len(pages))
	}
	return true
}
