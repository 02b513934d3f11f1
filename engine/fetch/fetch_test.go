package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// mapResolver answers from a fixed table, so tests can make names point anywhere
// without a DNS server.
type mapResolver map[string][]netip.Addr

func (m mapResolver) LookupAddrs(_ context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	if a, ok := m[host]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// dialLog records every address the dialer was about to connect to; it only lets
// loopback through, so a guard bug can never send a packet off this machine.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialLog) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	if !strings.HasPrefix(addr, "127.") {
		return nil, errors.New("test dialer: refusing non-loopback " + addr)
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

func (d *dialLog) dialled(prefix string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, a := range d.addrs {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

func testFetcher(t *testing.T, res Resolver, allow []string, cfg Config) (*Fetcher, *dialLog) {
	t.Helper()
	g, err := NewGuard(allow)
	if err != nil {
		t.Fatal(err)
	}
	log := &dialLog{}
	if cfg.UserAgent == "" {
		cfg = Config{UserAgent: "crawlconsole-test", ConnectTimeout: 2 * time.Second, RequestTimeout: 5 * time.Second,
			MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}}
	}
	f := New(context.Background(), cfg, &Dialer{Resolver: res, Guard: g, Dial: log.dial, Timeout: time.Second}, nil)
	t.Cleanup(f.Close)
	return f, log
}

func TestSSRFGuardRefusesRedirectsWithoutDialling(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/private":
			http.Redirect(w, r, "http://10.0.0.1/admin", http.StatusFound)
		case "/by-name":
			http.Redirect(w, r, "http://intranet.example/", http.StatusFound)
		default:
			fmt.Fprint(w, "<html>ok</html>")
		}
	}))
	defer srv.Close()
	res := mapResolver{"intranet.example": {netip.MustParseAddr("10.0.0.1")}}
	f, log := testFetcher(t, res, []string{"127.0.0.0/8"}, Config{})
	for _, c := range []struct{ path, never string }{
		{"/metadata", "169.254."},
		{"/private", "10."},
		{"/by-name", "10."},
	} {
		t.Run(c.path, func(t *testing.T) {
			_, err := f.Fetch(srv.URL+c.path, nil)
			if Kind(err) != KindBlocked {
				t.Fatalf("redirect via %s: got kind %q (%v), want %s", c.path, Kind(err), err, KindBlocked)
			}
			if log.dialled(c.never) {
				t.Fatalf("the dialer was called for %s*: the guard must refuse before dialling", c.never)
			}
		})
	}
	// the sandbox itself is reachable only because 127.0.0.0/8 was allowed
	strict, _ := testFetcher(t, res, nil, Config{})
	if _, err := strict.Fetch(srv.URL+"/", nil); Kind(err) != KindBlocked {
		t.Fatalf("loopback without --allow-private: kind %q, want %s", Kind(err), KindBlocked)
	}
}

func TestGuardRanges(t *testing.T) {
	g, err := NewGuard([]string{"10.9.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ip      string
		blocked bool
	}{
		{"127.0.0.1", true}, {"10.0.0.1", true}, {"172.16.5.4", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"0.0.0.0", true}, {"224.0.0.1", true}, {"100.64.1.1", true},
		{"::1", true}, {"fe80::1", true}, {"fc00::1", true}, {"::ffff:10.0.0.1", true}, {"::", true},
		{"10.9.3.4", false}, // opened by --allow-private
		{"93.184.216.34", false}, {"2606:2800:220:1:248:1893:25c8:1946", false},
		// IPv6 forms carrying a private IPv4 address: IPv4-compatible,
		// NAT64 (well-known and local-use), 6to4, Teredo (server, and the client XOR-ed).
		{"::127.0.0.1", true}, {"::10.0.0.1", true}, {"64:ff9b::a00:1", true}, {"64:ff9b:1::a00:1", true},
		{"2002:7f00:1::", true}, {"2002:c0a8:101::1", true}, {"2001:0:a00:1::1", true},
		{"2001:0:5db8:d822:0:f227:f5ff:fffe", true},  // Teredo client ^ = 10.0.0.1
		{"2002:5db8:d822::1", false},                 // 6to4 of a public IPv4
		{"2001:0:5db8:d822:0:f227:a247:27dd", false}, // Teredo, public server and client
		{"::10.9.3.4", false},                        // embedded address opened by --allow-private
	} {
		err := g.Check("h", netip.MustParseAddr(c.ip))
		if (err != nil) != c.blocked {
			t.Errorf("%s: blocked=%v, want %v", c.ip, err != nil, c.blocked)
		}
	}
	if _, err := NewGuard([]string{"not-a-cidr"}); err == nil || !strings.Contains(err.Error(), "not-a-cidr") {
		t.Fatalf("a bad --allow-private must be an error naming it, got %v", err)
	}
}

func TestFetchLimitsAndKinds(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><base href="/dir/"><link rel="canonical" href="/canon"></head>
				<body><a href="a">a</a><a href="http://other.example/x">x</a><area href="/map"></body></html>`)
		case "/pdf":
			w.Header().Set("Content-Type", "application/pdf")
			fmt.Fprint(w, "%PDF-1.4")
		case "/big":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, big) // chunked: no Content-Length
		case "/binary":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte{0x89, 'P', 'N', 'G', 0, 0, 0, 13, 0, 1, 2})
		case "/loop-a":
			http.Redirect(w, r, "/loop-b", http.StatusFound)
		case "/loop-b":
			http.Redirect(w, r, "/loop-a", http.StatusFound)
		case "/chain":
			var n int
			fmt.Sscan(r.URL.Query().Get("n"), &n)
			http.Redirect(w, r, fmt.Sprintf("/chain?n=%d", n+1), http.StatusFound)
		case "/reset":
			c, _, _ := w.(http.Hijacker).Hijack()
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		case "/slow":
			<-r.Context().Done() // answers never: only the request timeout ends it
		case "/gone":
			http.Error(w, "gone", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	// A request timeout that load cannot reach for the documents that must end
	// otherwise (2 MB of /big read at load 20 took longer than 150 ms once), and a
	// short one for /slow alone.
	cfg := Config{UserAgent: "t", ConnectTimeout: time.Second, RequestTimeout: time.Minute,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	cfg.RequestTimeout = 150 * time.Millisecond
	short, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)

	res, err := f.Fetch(srv.URL+"/page", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "http://other.example/x", "/map"}
	if strings.Join(res.Links, " ") != strings.Join(want, " ") || res.Base != "/dir/" {
		t.Fatalf("links %v base %q, want %v and /dir/ (raw hrefs, area included)", res.Links, res.Base, want)
	}
	if res.Canonical != "/canon" || res.ContentType != "text/html" {
		t.Fatalf("canonical %q content type %q", res.Canonical, res.ContentType)
	}
	if res, err := f.Fetch(srv.URL+"/gone", nil); err != nil || res.Status != 404 {
		t.Fatalf("a 404 is a response, not an error: %v %v", res, err)
	}
	for _, c := range []struct{ path, kind string }{
		{"/pdf", KindContentType},
		{"/big", KindTooLarge},
		{"/binary", KindBinary},
		{"/loop-a", KindRedirectLoop},
		{"/chain?n=0", KindTooManyRedir},
		{"/reset", KindReset},
		{"/slow", KindTimeout},
	} {
		t.Run(c.path, func(t *testing.T) {
			g := f
			if c.kind == KindTimeout {
				g = short
			}
			_, err := g.Fetch(srv.URL+c.path, nil)
			if got := Kind(err); got != c.kind {
				t.Fatalf("kind %q (%v), want %q", got, err, c.kind)
			}
		})
	}
}

func TestExtractLinksFromBrokenHTML(t *testing.T) {
	for _, c := range []struct {
		name, body string
		links      []string
		base, can  string
	}{
		{"plain", `<a href="/x">x</a><A HREF='y'>y</A>`, []string{"/x", "y"}, "", ""},
		{"unclosed and stray brackets", `<div><a href="/a">a<p><a href=/b>b</div>>> <a href="/c"`, []string{"/a", "/b"}, "", ""},
		{"base and canonical", `<head><base href="/d/"><link rel="alternate canonical" href="/c"><link rel=canonical href=/ignored></head><a href=z>`, []string{"z"}, "/d/", "/c"},
		{"invalid utf-8", "<a href=\"/\xff\xfe\">x</a>", []string{"/\xff\xfe"}, "", ""},
		{"no links", `<p>hello</p>`, nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := extractLinks([]byte(c.body), "crawlconsole")
			if strings.Join(p.Links, "|") != strings.Join(c.links, "|") || p.Base != c.base || p.Canonical != c.can {
				t.Fatalf("got %q base %q canonical %q; want %q %q %q", p.Links, p.Base, p.Canonical, c.links, c.base, c.can)
			}
		})
	}
}
