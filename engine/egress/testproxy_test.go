package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testProxy is a minimal HTTP (forward + CONNECT) or SOCKS5 proxy for these tests:
// it counts accepted client connections and records what targets it was asked for.
type testProxy struct {
	kind       Kind
	user, pass string
	mode       string // "", "garbage", "connect-502"
	ln         net.Listener
	accepted   atomic.Int64
	up         *http.Transport

	mu      sync.Mutex
	targets []string // CONNECT / SOCKS5 targets, or Host of forwarded requests
	open    map[net.Conn]bool
	wg      sync.WaitGroup
}

func startTestProxy(t *testing.T, kind Kind, user, pass, mode string) *testProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &testProxy{kind: kind, user: user, pass: pass, mode: mode, ln: ln,
		up: &http.Transport{MaxIdleConnsPerHost: 4, DialContext: dialTestName}, open: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.up.CloseIdleConnections()
		p.mu.Lock()
		for c := range p.open {
			c.Close() // cut tunnels the client still keeps alive
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// spec is the egress spec for this proxy with the given password ("" = the right one).
func (p *testProxy) spec(name, pass string) string {
	if pass == "" {
		pass = p.pass
	}
	auth := ""
	if p.user != "" {
		auth = p.user + ":" + pass + "@"
	}
	return name + "=" + string(p.kind) + "://" + auth + p.ln.Addr().String()
}

// dialTestName dials like a proxy resolving names on its side: example.com and
// *.test are 127.0.0.1.
func dialTestName(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, _ := net.SplitHostPort(addr)
	if host == "example.com" || strings.HasSuffix(host, ".test") {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func (p *testProxy) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

func (p *testProxy) record(target string) {
	p.mu.Lock()
	p.targets = append(p.targets, target)
	p.mu.Unlock()
}

func (p *testProxy) serve() {
	defer p.wg.Done()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		p.mu.Lock()
		p.open[c] = true
		p.mu.Unlock()
		conns.Add(1)
		go func() {
			defer conns.Done()
			defer func() {
				c.Close()
				p.mu.Lock()
				delete(p.open, c)
				p.mu.Unlock()
			}()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			if p.mode == "garbage" {
				c.Write([]byte("\x00\x01garbage\r\n\r\n"))
				return
			}
			if p.kind == KindSOCKS5 {
				p.serveSOCKS(c)
			} else {
				p.serveHTTP(c)
			}
		}()
	}
}

func (p *testProxy) authOK(h http.Header) bool {
	if p.user == "" {
		return true
	}
	v, _ := strings.CutPrefix(h.Get("Proxy-Authorization"), "Basic ")
	dec, _ := base64.StdEncoding.DecodeString(v)
	return string(dec) == p.user+":"+p.pass
}

// serveHTTP handles a keep-alive connection of proxy requests.
func (p *testProxy) serveHTTP(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if !p.authOK(req.Header) {
			io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n")
			continue
		}
		if req.Method == http.MethodConnect {
			p.record(req.Host)
			if p.mode == "connect-502" {
				io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
				return
			}
			up, err := net.Dial("tcp", req.Host)
			if err != nil {
				io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
				return
			}
			io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
			pipe(c, br, up)
			return
		}
		p.record(req.Host)
		req.RequestURI = ""
		req.Header.Del("Proxy-Authorization")
		resp, err := p.up.RoundTrip(req)
		if err != nil {
			io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nProxy-Agent: testproxy\r\nContent-Length: 0\r\n\r\n")
			continue
		}
		err = resp.Write(c)
		resp.Body.Close()
		if err != nil {
			return
		}
	}
}

func pipe(c net.Conn, fromClient io.Reader, up net.Conn) {
	c.SetDeadline(time.Time{})
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, fromClient); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
	<-done
}

// serveSOCKS is RFC 1928 CONNECT with RFC 1929 user/password.
func (p *testProxy) serveSOCKS(c net.Conn) {
	br := bufio.NewReader(c)
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil || h[0] != 5 {
		return
	}
	methods := make([]byte, h[1])
	io.ReadFull(br, methods)
	if p.user == "" {
		c.Write([]byte{5, 0})
	} else {
		c.Write([]byte{5, 2})
		ver, _ := br.ReadByte()
		ul, _ := br.ReadByte()
		u := make([]byte, ul)
		io.ReadFull(br, u)
		pl, _ := br.ReadByte()
		pw := make([]byte, pl)
		io.ReadFull(br, pw)
		if ver != 1 || string(u) != p.user || string(pw) != p.pass {
			c.Write([]byte{1, 1})
			return
		}
		c.Write([]byte{1, 0})
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil {
		return
	}
	var host string
	switch req[3] {
	case 1, 4:
		b := make([]byte, map[byte]int{1: 4, 4: 16}[req[3]])
		io.ReadFull(br, b)
		ip, _ := netip.AddrFromSlice(b)
		host = ip.String()
	case 3:
		n, _ := br.ReadByte()
		b := make([]byte, n)
		io.ReadFull(br, b)
		host = "name:" + string(b)
	}
	var port [2]byte
	io.ReadFull(br, port[:])
	target := net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(port[:]))))
	p.record(target)
	up, err := net.Dial("tcp", target)
	if err != nil {
		c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	pipe(c, br, up)
}
