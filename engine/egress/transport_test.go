package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// target is a loopback HTTP or HTTPS server that counts new connections and answers
// every request with the client's IP.
type target struct {
	srv      *httptest.Server
	newConns atomic.Int64
	tls      *tls.Config // client config trusting the server, for https
}

func startTarget(t *testing.T, useTLS bool) *target {
	t.Helper()
	tg := &target{}
	tg.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip, _, _ := net.SplitHostPort(r.RemoteAddr)
		io.WriteString(w, ip)
	}))
	tg.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			tg.newConns.Add(1)
		}
	}
	if useTLS {
		tg.srv.StartTLS()
		tg.tls = tg.srv.Client().Transport.(*http.Transport).TLSClientConfig
	} else {
		tg.srv.Start()
	}
	t.Cleanup(tg.srv.Close)
	return tg
}

// url is the server's URL under a host name our fake resolver maps to 127.0.0.1
// (example.com: the name httptest's certificate is valid for).
func (tg *target) url(path string) string {
	_, port, _ := net.SplitHostPort(tg.srv.Listener.Addr().String())
	scheme := "http"
	if tg.tls != nil {
		scheme = "https"
	}
	return scheme + "://example.com:" + port + path
}

// fakeDNS resolves example.com and *.test to 127.0.0.1, counting lookups.
type fakeDNS struct {
	lookups atomic.Int64
	addrs   map[string]string
}

func (d *fakeDNS) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	d.lookups.Add(1)
	if a, ok := d.addrs[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	if host == "example.com" || strings.HasSuffix(host, ".test") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func mustEgress(t *testing.T, spec string) *Egress {
	t.Helper()
	s, err := ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return New(s)
}

func get(c *http.Client, url string) (int, string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// getKept is get that returns once the request's connection is back in the
// transport's idle pool (or could not be put there: an error saying why). A next
// request sent before then, as a loaded box's scheduling allows, dials a second
// connection even though the first is about to be free.
func getKept(c *http.Client, url string) (int, string, error) {
	idle := make(chan error, 1)
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{PutIdleConn: func(err error) { idle <- err }})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return resp.StatusCode, string(b), err
	}
	select {
	case err := <-idle:
		if err != nil {
			return resp.StatusCode, string(b), fmt.Errorf("the connection was not kept for the next request: %w", err)
		}
	case <-time.After(time.Minute):
		return resp.StatusCode, string(b), errors.New("the connection did not come back to the idle pool within a minute")
	}
	return resp.StatusCode, string(b), nil
}

// egressCase is one kind of egress under test, with the proxy behind it if any.
type egressCase struct {
	name  string
	spec  func(t *testing.T) (string, *testProxy)
	proxy bool
}

func egressCases() []egressCase {
	proxied := func(kind Kind, user, pass string) func(t *testing.T) (string, *testProxy) {
		return func(t *testing.T) (string, *testProxy) {
			p := startTestProxy(t, kind, user, pass, "")
			return p.spec("e1", ""), p
		}
	}
	return []egressCase{
		{"bind", func(*testing.T) (string, *testProxy) { return "e1=bind:127.0.0.1", nil }, false},
		{"http", proxied(KindHTTP, "", ""), true},
		{"http+auth", proxied(KindHTTP, "bob", secretWord), true},
		{"socks5", proxied(KindSOCKS5, "", ""), true},
		{"socks5+auth", proxied(KindSOCKS5, "bob", secretWord), true},
	}
}

// TestKeepAlivePerEgress: N requests through one egress reuse one connection, for
// every kind and for http and https targets: the site and the proxy each see one
// new connection.
func TestKeepAlivePerEgress(t *testing.T) {
	const n = 12
	for _, ec := range egressCases() {
		for _, useTLS := range []bool{false, true} {
			scheme := map[bool]string{false: "http", true: "https"}[useTLS]
			t.Run(ec.name+"/"+scheme, func(t *testing.T) {
				tg := startTarget(t, useTLS)
				spec, proxy := ec.spec(t)
				dns := &fakeDNS{}
				e := mustEgress(t, spec)
				tr := e.Transport(TransportConfig{Resolve: dns.resolve, TLSClientConfig: tg.tls})
				defer tr.CloseIdleConnections()
				if e.Transport(TransportConfig{}) != tr {
					t.Fatal("Transport returned a second transport for the same egress")
				}
				c := &http.Client{Transport: tr}
				for i := 0; i < n; i++ {
					code, body, err := getKept(c, tg.url(fmt.Sprintf("/page/%d", i)))
					if err != nil || code != 200 || body != "127.0.0.1" {
						t.Fatalf("request %d: %d %q %v", i, code, body, err)
					}
				}
				if got := tg.newConns.Load(); got != 1 {
					t.Errorf("site saw %d new connections for %d requests, want 1 (keep-alive)", got, n)
				}
				if proxy != nil {
					if got := proxy.accepted.Load(); got != 1 {
						t.Errorf("proxy accepted %d connections for %d requests, want 1", got, n)
					}
				}
				if dns.lookups.Load() == 0 {
					t.Errorf("the target was never resolved locally: the guard cannot have seen it")
				}
			})
		}
	}
}

// TestBindSourceAddress: a bind egress's requests arrive from its IP.
func TestBindSourceAddress(t *testing.T) {
	tg := startTarget(t, false)
	for _, ip := range []string{"127.0.0.21", "127.0.0.22"} {
		t.Run(ip, func(t *testing.T) {
			e := mustEgress(t, "bind:"+ip)
			c := &http.Client{Transport: e.Transport(TransportConfig{Resolve: (&fakeDNS{}).resolve})}
			for i := 0; i < 3; i++ {
				_, body, err := get(c, tg.url("/"))
				if err != nil || body != ip {
					t.Fatalf("site saw client %q (err %v), want %s", body, err, ip)
				}
			}
		})
	}
}

// TestGuardBeforeDial: a target the SSRF guard refuses is never dialled, directly or
// through a proxy, whether given as an IP or as a name that resolves to it; the
// proxy is given the checked IP (CONNECT, SOCKS5), never a name to resolve itself.
func TestGuardBeforeDial(t *testing.T) {
	tg := startTarget(t, false)
	tgs := startTarget(t, true)
	_, port, _ := net.SplitHostPort(tg.srv.Listener.Addr().String())
	dns := &fakeDNS{addrs: map[string]string{"inside.test": "127.0.0.9"}}
	guard := func(a netip.Addr) error {
		if a == netip.MustParseAddr("127.0.0.9") {
			return errors.New("private range")
		}
		return nil
	}
	for _, ec := range egressCases() {
		t.Run(ec.name, func(t *testing.T) {
			spec, proxy := ec.spec(t)
			e := mustEgress(t, spec)
			tr := e.Transport(TransportConfig{Resolve: dns.resolve, Guard: guard, TLSClientConfig: tgs.tls})
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr}
			for _, u := range []string{"http://127.0.0.9:" + port + "/", "http://inside.test:" + port + "/", "https://inside.test:" + port + "/"} {
				_, _, err := get(c, u)
				var ge *GuardError
				if !errors.As(err, &ge) {
					t.Fatalf("GET %s: err = %v, want a GuardError", u, err)
				}
				if v := NewClassifier(nil).Classify(e.Response("inside.test", nil, nil, err)); v.Class != SiteError {
					t.Fatalf("guard refusal classified %v, want site-error (no penalty)", v.Class)
				}
			}
			if proxy != nil && proxy.accepted.Load() != 0 {
				t.Fatalf("proxy was contacted %d times for refused targets", proxy.accepted.Load())
			}
			// An allowed name: CONNECT and SOCKS5 get the checked IP.
			if _, _, err := get(c, tgs.url("/")); err != nil {
				t.Fatal(err)
			}
			if proxy != nil {
				seen := proxy.seen()
				if len(seen) != 1 || !strings.HasPrefix(seen[0], "127.0.0.1:") {
					t.Fatalf("proxy was asked for %v, want the checked IP 127.0.0.1", seen)
				}
			}
		})
	}
}

// TestProxyFailures: unreachable proxies, wrong credentials, garbage replies and
// refused CONNECTs are proxy faults (the egress is penalised everywhere), and the
// errors name the egress and never contain the password.
func TestProxyFailures(t *testing.T) {
	tg := startTarget(t, false)
	tgs := startTarget(t, true)
	deadAddr := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr
	}
	type failCase struct {
		name string
		spec func(t *testing.T) string
	}
	var cases []failCase
	for _, kind := range []Kind{KindHTTP, KindSOCKS5} {
		k := kind
		cases = append(cases,
			failCase{string(k) + "/down", func(t *testing.T) string {
				return "vpn=" + string(k) + "://bob:" + secretWord + "@" + deadAddr(t)
			}},
			failCase{string(k) + "/wrong password", func(t *testing.T) string {
				return startTestProxy(t, k, "bob", "right-one", "").spec("vpn", secretWord)
			}},
			failCase{string(k) + "/garbage", func(t *testing.T) string {
				return startTestProxy(t, k, "bob", secretWord, "garbage").spec("vpn", "")
			}},
		)
	}
	cases = append(cases, failCase{"http/CONNECT refused", func(t *testing.T) string {
		return startTestProxy(t, KindHTTP, "bob", secretWord, "connect-502").spec("vpn", "")
	}})
	for _, fc := range cases {
		for _, tgt := range []*target{tg, tgs} {
			scheme := "http"
			if tgt.tls != nil {
				scheme = "https"
			}
			if fc.name == "http/CONNECT refused" && scheme == "http" {
				continue // plain http is forwarded, not CONNECTed
			}
			t.Run(fc.name+"/"+scheme, func(t *testing.T) {
				e := mustEgress(t, fc.spec(t))
				tr := e.Transport(TransportConfig{Resolve: (&fakeDNS{}).resolve, TLSClientConfig: tgt.tls,
					DialTimeout: 5 * time.Second, ResponseHeaderTimeout: 10 * time.Second})
				defer tr.CloseIdleConnections()
				resp, err := (&http.Client{Transport: tr}).Get(tgt.url("/"))
				var body []byte
				if resp != nil {
					body, _ = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				r := e.Response("example.com", resp, body, err)
				if v := NewClassifier(nil).Classify(r); v.Class != ProxyFault {
					t.Fatalf("classified %v (%s), want proxy-fault; err=%v status=%d", v.Class, v.Reason, err, r.Status)
				}
				t.Logf("status %d, error: %v", r.Status, r.Err)
				if r.Err != nil {
					if strings.Contains(r.Err.Error(), secretWord) || strings.Contains(err.Error(), secretWord) {
						t.Fatalf("error shows the password: %v", r.Err)
					}
					if !strings.HasPrefix(r.Err.Error(), "egress vpn (") {
						t.Fatalf("error does not name the egress: %v", r.Err)
					}
				}
			})
		}
	}
}
