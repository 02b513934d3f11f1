package fetch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net"
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

// TestRedirectHopBodiesAreDecodedLikeThePage: a redirect hop's body is kept as the
// client reads it, decoded and capped like the final page's, so that Decoded is
// true of it: a gzip body decoded; a corrupt one, which does not fail the fetch,
// kept as received with Decoded empty; a gzip bomb decoded no further than the
// client reads of a redirect's body, kept cut. A failed chain's hops (Error.
// Exchanges) are kept the same way.
func TestRedirectHopBodiesAreDecodedLikeThePage(t *testing.T) {
	zip := func(b []byte) []byte {
		var out bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	moved := []byte("<html>Moved, gzip-coded.</html>")
	zMoved := zip(moved)
	corrupt := append(append([]byte(nil), zMoved[:10]...), bytes.Repeat([]byte{0xff}, 40)...)
	bomb := zip(make([]byte, 64<<20))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hop := func(to string, body []byte) {
			w.Header().Set("Location", to)
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusFound)
			w.Write(body)
		}
		switch r.URL.Path {
		case "/gzip":
			hop("/page", zMoved)
		case "/corrupt":
			hop("/page", corrupt)
		case "/bomb":
			hop("/page", bomb)
		case "/loop/a":
			hop("/loop/b", zMoved)
		case "/loop/b":
			hop("/loop/a", corrupt)
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>page</html>")
		}
	}))
	defer srv.Close()
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, Config{})
	hopOf := func(path string) Exchange {
		t.Helper()
		res, err := f.Fetch(srv.URL+path, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(res.Exchanges) != 2 || res.Status != 200 || string(res.Body) != "<html>page</html>" {
			t.Fatalf("%s: status %d, body %q, %d exchanges; want the 302 and the page", path, res.Status, res.Body, len(res.Exchanges))
		}
		return res.Exchanges[0]
	}
	if h := hopOf("/gzip"); h.Decoded != "gzip" || !bytes.Equal(h.Body, moved) || h.BodyCut ||
		!strings.Contains(h.ResponseHead, "Content-Encoding: gzip\r\n") {
		t.Errorf("gzip hop: decoded %q, body %q, cut %v; want the decoded body", h.Decoded, h.Body, h.BodyCut)
	}
	if h := hopOf("/corrupt"); h.Decoded != "" || !bytes.Equal(h.Body, corrupt) || h.BodyCut {
		t.Errorf("corrupt gzip hop: decoded %q, body %q, cut %v; want the body as received, not decoded", h.Decoded, h.Body, h.BodyCut)
	}
	if h := hopOf("/bomb"); h.Decoded != "gzip" || len(h.Body) == 0 || len(h.Body) > 4<<10 ||
		!bytes.Equal(h.Body, make([]byte, len(h.Body))) || !h.BodyCut {
		t.Errorf("gzip bomb hop: decoded %q, %d bytes, cut %v; want a cut decoded prefix of a few KiB", h.Decoded, len(h.Body), h.BodyCut)
	}

	_, err := f.Fetch(srv.URL+"/loop/a", nil)
	var fe *Error
	if !errors.As(err, &fe) || fe.Kind != KindRedirectLoop || len(fe.Exchanges) != 2 {
		t.Fatalf("loop: %v, want %s with both hops", err, KindRedirectLoop)
	}
	if a, b := fe.Exchanges[0], fe.Exchanges[1]; a.Decoded != "gzip" || !bytes.Equal(a.Body, moved) || a.BodyCut ||
		b.Decoded != "" || !bytes.Equal(b.Body, corrupt) || b.BodyCut {
		t.Errorf("loop hops: %q %q (cut %v), %q %q (cut %v); want the first decoded, the second as received",
			a.Decoded, a.Body, a.BodyCut, b.Decoded, b.Body, b.BodyCut)
	}
}

// TestRemoteIPIsTheAddressHost: the address an exchange records is the host part
// of the connection's remote address, whatever kind of address it is.
func TestRemoteIPIsTheAddressHost(t *testing.T) {
	for _, a := range []net.Addr{
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80},
		&net.TCPAddr{IP: net.ParseIP("::1"), Port: 8080},
		&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 80, Zone: "eth0"},
		&net.TCPAddr{Port: 80},
		&net.UnixAddr{Name: "/tmp/sock", Net: "unix"},
		&net.UDPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 53},
	} {
		want, _, err := net.SplitHostPort(a.String())
		if err != nil {
			want = ""
		}
		if got := remoteIP(a); got != want {
			t.Errorf("remoteIP(%v) = %q, want %q", a, got, want)
		}
	}
}
