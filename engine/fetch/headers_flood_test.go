package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// A server that floods response headers (not cookies: 2.4 MB of them, under
// Go's default 10 MB) is cut off at egress.MaxResponseHeaderBytes on the direct
// transport and on an egress's, and the failure says so under its own kind with
// the URL, so the operator sees which host did it; a site sending many KiB of
// headers, as some real ones do, is still fetched.
func TestHeaderFloodIsCutOffAndNamed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 300 // 300 × 80 B: 24 KiB, a heavy real response
		if r.URL.Path == "/flood" {
			n = 30_000 // 2.4 MB
		}
		for i := range n {
			w.Header().Add(fmt.Sprintf("X-Filler-%d", i), strings.Repeat("f", 64))
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>ok</body></html>")
	}))
	defer srv.Close()
	direct, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, Config{})
	ip, err := egress.ParseSpec("bind:127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGuard([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	tr := egress.New(ip).Transport(egress.TransportConfig{})
	viaEgress := New(context.Background(), Config{UserAgent: "crawlconsole-test", RequestTimeout: 0,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}}, &Dialer{Guard: g}, tr)
	t.Cleanup(viaEgress.Close)
	for name, f := range map[string]*Fetcher{"direct": direct, "egress": viaEgress} {
		t.Run(name, func(t *testing.T) {
			if res, err := f.Fetch(srv.URL+"/heavy", nil); err != nil || res.Status != 200 {
				t.Fatalf("24 KiB of headers: a result %v, error %.200v; want the page", res != nil, err)
			}
			res, err := f.Fetch(srv.URL+"/flood", nil)
			if res != nil || Kind(err) != KindHeadersTooLarge {
				t.Fatalf("2.4 MB of headers: a result %v, kind %q (%.200v); want no result, %s", res != nil, Kind(err), err, KindHeadersTooLarge)
			}
			host := strings.TrimPrefix(srv.URL, "http://")
			if msg := err.Error(); !strings.Contains(msg, host) || !strings.Contains(msg, "over 1 MiB of response headers") {
				t.Errorf("the error says %q; want the host %s and what happened (over 1 MiB of response headers)", msg, host)
			}
		})
	}
}
