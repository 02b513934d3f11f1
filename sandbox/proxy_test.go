package sandbox

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// proxyEchoServers starts a plain and a TLS server on 127.0.0.1 answering every request with the client
// IP it sees; tlsCfg trusts the TLS variant.
func proxyEchoServers(t *testing.T) (plain, secure *httptest.Server, tlsCfg *tls.Config) {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip, _, _ := net.SplitHostPort(r.RemoteAddr)
		io.WriteString(w, ip)
	})
	plain = httptest.NewServer(h)
	secure = httptest.NewTLSServer(h)
	t.Cleanup(plain.Close)
	t.Cleanup(secure.Close)
	return plain, secure, secure.Client().Transport.(*http.Transport).TLSClientConfig
}

func proxyStartTest(t *testing.T, cfg ProxyConfig) *Proxies {
	t.Helper()
	ps, err := StartProxies(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ps.Close() })
	return ps
}

// proxyClientVia is a plain Go client using the proxy's spec as its proxy URL (Go speaks
// both HTTP proxies and SOCKS5 natively), optionally with another password.
func proxyClientVia(t *testing.T, p *Proxy, tlsCfg *tls.Config, password string) (*http.Client, *http.Transport) {
	t.Helper()
	u, err := url.Parse(p.Spec())
	if err != nil {
		t.Fatal(err)
	}
	if password != "" && u.User != nil {
		u.User = url.UserPassword(u.User.Username(), password)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: tlsCfg}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}, tr
}

func proxyFetch(c *http.Client, u string) (int, string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestProxiesLeaveFromTheirOwnSource: each default proxy (HTTP and SOCKS5, with and
// without auth) reaches a 127.0.0.1 server from its own 127.0.0.x address, for http
// (forwarding) and https (CONNECT / SOCKS5 tunnel), over keep-alive connections.
func TestProxiesLeaveFromTheirOwnSource(t *testing.T) {
	plain, secure, tlsCfg := proxyEchoServers(t)
	ps := proxyStartTest(t, ProxyConfig{})
	if len(ps.List()) != 4 {
		t.Fatalf("%d default proxies, want 4", len(ps.List()))
	}
	sources := map[string]bool{}
	for _, p := range ps.List() {
		src := p.Source().String()
		if sources[src] || src == "127.0.0.1" || !strings.HasPrefix(src, "127.0.0.") {
			t.Fatalf("proxy %s leaves from %s: want a distinct 127.0.0.x other than .1", p.Spec(), src)
		}
		sources[src] = true
		t.Run(string(p.Kind())+"/"+src, func(t *testing.T) {
			c, _ := proxyClientVia(t, p, tlsCfg, "")
			const n = 5
			for _, srv := range []*httptest.Server{plain, secure} {
				for i := 0; i < n; i++ {
					code, body, err := proxyFetch(c, srv.URL+"/x")
					if err != nil || code != 200 || body != src {
						t.Fatalf("GET %s via %s: %d %q %v, want the server to see %s", srv.URL, p.Kind(), code, body, err, src)
					}
				}
			}
			// http: one keep-alive connection for the forwards plus one per CONNECT
			// tunnel; socks5: one tunnel per target.
			if got := p.Stats().Accepted; got != 2 {
				t.Errorf("proxy accepted %d client connections for %d requests, want 2 (keep-alive)", got, 2*n)
			}
		})
	}
}

// TestProxyAuth: wrong or missing credentials are refused and counted; the right ones work.
func TestProxyAuth(t *testing.T) {
	plain, secure, tlsCfg := proxyEchoServers(t)
	ps := proxyStartTest(t, ProxyConfig{Proxies: []ProxySetup{
		{Kind: ProxyHTTP, User: "u", Password: "right"},
		{Kind: ProxySOCKS5, User: "u", Password: "right"},
	}})
	for _, p := range ps.List() {
		for _, srv := range []*httptest.Server{plain, secure} {
			t.Run(string(p.Kind())+"/"+srv.URL[:5], func(t *testing.T) {
				before := p.Stats().AuthFailures
				bad, _ := proxyClientVia(t, p, tlsCfg, "wrong")
				code, _, err := proxyFetch(bad, srv.URL)
				if err == nil && code != http.StatusProxyAuthRequired {
					t.Fatalf("wrong password: status %d, want 407 or an error", code)
				}
				if p.Stats().AuthFailures != before+1 {
					t.Fatalf("auth failures %d -> %d, want +1", before, p.Stats().AuthFailures)
				}
				good, _ := proxyClientVia(t, p, tlsCfg, "")
				if code, _, err := proxyFetch(good, srv.URL); err != nil || code != 200 {
					t.Fatalf("right password: %d %v", code, err)
				}
			})
		}
	}
}

// TestProxyFaults: each injected failure shows up to a client as a proxy failure,
// and clearing it restores the proxy.
func TestProxyFaults(t *testing.T) {
	t.Parallel() // its own proxies and servers; it waits out the slow fault, asserting only its least time
	plain, secure, tlsCfg := proxyEchoServers(t)
	const slow = 300 * time.Millisecond
	ps := proxyStartTest(t, ProxyConfig{SlowDelay: slow, Proxies: []ProxySetup{
		{Kind: ProxyHTTP}, {Kind: ProxySOCKS5}, {Kind: ProxyHTTP, User: "u", Password: "p"},
	}})
	for _, p := range ps.List() {
		for _, f := range []ProxyFault{ProxyDown, ProxyAuthRefused, ProxyGarbage, ProxySlow} {
			for _, srv := range []*httptest.Server{plain, secure} {
				name := string(p.Kind()) + "/" + p.Source().String() + "/" + string(f) + "/" + srv.URL[:5]
				t.Run(name, func(t *testing.T) {
					c, _ := proxyClientVia(t, p, tlsCfg, "")
					if _, _, err := proxyFetch(c, srv.URL); err != nil { // a keep-alive connection is open now
						t.Fatal(err)
					}
					p.SetFault(f)
					defer p.SetFault(ProxyHealthy) // a failed check must not leak the fault into the next case
					start := time.Now()
					code, body, err := proxyFetch(c, srv.URL)
					elapsed := time.Since(start)
					switch f {
					case ProxySlow:
						if err != nil || code != 200 || body != p.Source().String() {
							t.Fatalf("slow proxy: %d %q %v, want it to work", code, body, err)
						}
						// Forwarded requests are each delayed; an open tunnel is not
						// (TestProxySlowHandshake checks new tunnels).
						if srv == plain && p.Kind() == ProxyHTTP && elapsed < slow {
							t.Fatalf("slow proxy answered in %v, want >= %v", elapsed, slow)
						}
					case ProxyAuthRefused:
						if err == nil && code != http.StatusProxyAuthRequired {
							t.Fatalf("auth-refused: status %d, want 407 or an error", code)
						}
					default:
						if err == nil {
							t.Fatalf("%s: request succeeded (%d %q), want an error", f, code, body)
						}
					}
					p.SetFault(ProxyHealthy)
					if code, _, err := proxyFetch(c, srv.URL); err != nil || code != 200 {
						t.Fatalf("after clearing %s: %d %v", f, code, err)
					}
				})
			}
		}
	}
}

// TestProxySlowHandshake: the slow fault also delays HTTPS tunnels (CONNECT and SOCKS5).
func TestProxySlowHandshake(t *testing.T) {
	t.Parallel() // its own proxies and servers; it waits out the slow handshakes, asserting only their least time
	_, secure, tlsCfg := proxyEchoServers(t)
	const slow = 300 * time.Millisecond
	ps := proxyStartTest(t, ProxyConfig{SlowDelay: slow, Proxies: []ProxySetup{
		{Kind: ProxyHTTP, Fault: ProxySlow}, {Kind: ProxySOCKS5, Fault: ProxySlow},
	}})
	for _, p := range ps.List() {
		c, _ := proxyClientVia(t, p, tlsCfg, "")
		start := time.Now()
		if code, _, err := proxyFetch(c, secure.URL); err != nil || code != 200 {
			t.Fatalf("%s: %d %v", p.Kind(), code, err)
		}
		if el := time.Since(start); el < slow {
			t.Errorf("%s: new tunnel took %v, want >= %v", p.Kind(), el, slow)
		}
	}
}

// TestProxyLoopbackOnly: the sandbox never dials outside loopback.
func TestProxyLoopbackOnly(t *testing.T) {
	ps := proxyStartTest(t, ProxyConfig{Proxies: []ProxySetup{{Kind: ProxyHTTP}, {Kind: ProxySOCKS5}}})
	for _, p := range ps.List() {
		c, _ := proxyClientVia(t, p, nil, "")
		for _, u := range []string{"http://192.0.2.1/", "https://192.0.2.1/"} {
			code, _, err := proxyFetch(c, u)
			if err == nil && code != http.StatusBadGateway {
				t.Fatalf("%s %s: status %d, want refused", p.Kind(), u, code)
			}
		}
		if up := p.Stats().Upstream; up != 0 {
			t.Fatalf("%s opened %d outbound connections to non-loopback targets", p.Kind(), up)
		}
	}
}

// TestProxySpecsDriveEgress: Specs() parse as crawler egress specs, and the egress
// transports built from them leave through the right proxy, with the password
// masked in every printed form.
func TestProxySpecsDriveEgress(t *testing.T) {
	plain, secure, tlsCfg := proxyEchoServers(t)
	ps := proxyStartTest(t, ProxyConfig{})
	specs, err := egress.ParseSpecs(ps.Specs())
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range specs {
		p := ps.List()[i]
		if p.setup.Password != "" && strings.Contains(s.Masked(), p.setup.Password) {
			t.Fatalf("masked spec shows the password: %s", s.Masked())
		}
		e := egress.New(s)
		tr := e.Transport(egress.TransportConfig{TLSClientConfig: tlsCfg})
		c := &http.Client{Transport: tr}
		for _, srv := range []*httptest.Server{plain, secure} {
			if code, body, err := proxyFetch(c, srv.URL); err != nil || code != 200 || body != p.Source().String() {
				t.Fatalf("egress %s to %s: %d %q %v, want source %s", s, srv.URL, code, body, err, p.Source())
			}
		}
		tr.CloseIdleConnections()
	}
}

func TestStartProxiesRejectsBadConfig(t *testing.T) {
	for _, cfg := range []ProxyConfig{
		{Listen: "0.0.0.0"},
		{Listen: "10.0.0.1"},
		{FirstSource: "10.0.0.1"},
		{Proxies: []ProxySetup{{Kind: "ftp"}}},
		{Proxies: []ProxySetup{{Kind: ProxyHTTP, User: "only-user"}}},
		{Proxies: []ProxySetup{{Kind: ProxyHTTP, Source: "192.168.1.1"}}},
	} {
		if ps, err := StartProxies(cfg); err == nil {
			ps.Close()
			t.Errorf("StartProxies(%+v) succeeded, want an error", cfg)
		}
	}
}

// TestHTTPProxyDoesNotReplayAfterAnUpstreamReset: a target that reads a request on a
// kept-alive connection and hangs up without answering gets that request once
// through the forwarding proxy (Go's transport would send it again on a new
// connection by itself: a second request from the proxy's address, which a site's bot
// rule counts against the crawl); the client gets a 502.
func TestHTTPProxyDoesNotReplayAfterAnUpstreamReset(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	got := map[string]int{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					mu.Lock()
					got[req.URL.Path]++
					mu.Unlock()
					if req.URL.Path == "/hangup" {
						return // read, never answered
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
			}(c)
		}
	}()
	ps := proxyStartTest(t, ProxyConfig{Proxies: []ProxySetup{{Kind: ProxyHTTP}}})
	c, _ := proxyClientVia(t, ps.List()[0], nil, "")
	base := "http://" + ln.Addr().String()
	if code, _, err := proxyFetch(c, base+"/first"); err != nil || code != 200 {
		t.Fatalf("first GET: %d %v", code, err)
	}
	code, _, err := proxyFetch(c, base+"/hangup") // on the proxy's kept-alive upstream connection
	if err != nil || code != http.StatusBadGateway {
		t.Errorf("GET of a hang-up: %d %v, want 502 from the proxy", code, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got["/hangup"] != 1 {
		t.Errorf("the target got the hang-up request %d times through the proxy, want once", got["/hangup"])
	}
}
