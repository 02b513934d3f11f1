package fetch

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestExchangesAsTheyCrossedTheWire: a fetch records each hop's request as written
// (the exchange id header never leaves), its status line, its header fields as
// received (Content-Encoding of a body the fetcher decoded included), the address it
// went to, and a redirect hop's body; cookies and credentials are redacted.
func TestExchangesAsTheyCrossedTheWire(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte("<html><p>decoded</p></html>"))
	zw.Close()
	var sawExchangeHeader bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(exchangeHeader) != "" {
			sawExchangeHeader = true
		}
		switch r.URL.Path {
		case "/moved":
			w.Header().Set("Location", "/page")
			w.Header().Set("Set-Cookie", "session=s3cret")
			w.WriteHeader(http.StatusFound)
			fmt.Fprint(w, "<html>Moved.</html>")
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zipped.Bytes())
		}
	}))
	defer srv.Close()
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, Config{})
	res, err := f.Fetch(srv.URL+"/moved", http.Header{"Cookie": {"id=s3cret"}, "Authorization": {"Basic s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	if sawExchangeHeader {
		t.Error("the exchange id header reached the server")
	}
	if len(res.Exchanges) != 2 {
		t.Fatalf("%d exchanges, want the redirect hop and the page: %+v", len(res.Exchanges), res.Exchanges)
	}
	hop, page := res.Exchanges[0], res.Exchanges[1]
	for _, x := range res.Exchanges {
		all := x.RequestHead + x.ResponseHead
		if strings.Contains(all, "s3cret") {
			t.Errorf("a credential was recorded: %q", all)
		}
		if x.RemoteIP != "127.0.0.1" || !strings.Contains(x.RequestHead, "\r\nUser-Agent: crawlconsole-test\r\n") ||
			strings.Contains(x.RequestHead, exchangeHeader) {
			t.Errorf("exchange %s: ip %q, request head %q", x.URL, x.RemoteIP, x.RequestHead)
		}
	}
	if hop.Status != 302 || hop.StatusLine != "HTTP/1.1 302 Found" || string(hop.Body) != "<html>Moved.</html>" ||
		hop.BodyCut || !strings.HasPrefix(hop.RequestHead, "GET /moved HTTP/1.1\r\n") ||
		!strings.Contains(hop.ResponseHead, "Set-Cookie: "+Redacted+"\r\n") || !strings.Contains(hop.RequestHead, "Cookie: "+Redacted+"\r\n") {
		t.Errorf("redirect hop %+v", hop)
	}
	if page.Status != 200 || page.Decoded != "gzip" || !strings.Contains(page.ResponseHead, "Content-Encoding: gzip\r\n") || page.Body != nil ||
		!strings.HasPrefix(page.RequestHead, "GET /page HTTP/1.1\r\n") || string(res.Body) != "<html><p>decoded</p></html>" {
		t.Errorf("final exchange %+v, body %q", page, res.Body)
	}
}
