package sandbox

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The sandbox's egress proxies: several, each leaving from its own 127.0.0.x
// address. Each is an HTTP proxy
// (absolute-URI forwarding and CONNECT) or a SOCKS5 proxy on 127.0.0.1, optionally
// with user/password, whose outbound connections leave from its own 127.0.0.x source
// address, so the sandbox's per-IP bans and quotas see one client per proxy, as a
// real site sees one public IP per VPN. Failures can be injected per proxy at run time.

// ProxyKind is the protocol a sandbox proxy speaks.
type ProxyKind string

// Proxy kinds.
const (
	ProxyHTTP   ProxyKind = "http"
	ProxySOCKS5 ProxyKind = "socks5"
)

// ProxyFault is a failure injected into one proxy.
type ProxyFault string

// Injectable proxy failures.
const (
	ProxyHealthy     ProxyFault = ""             // works
	ProxyDown        ProxyFault = "down"         // accepts and drops every connection
	ProxyAuthRefused ProxyFault = "auth-refused" // refuses every credential (407 / SOCKS auth failure)
	ProxySlow        ProxyFault = "slow"         // waits ProxyConfig.SlowDelay before each handshake or request
	ProxyGarbage     ProxyFault = "garbage"      // answers bytes that are no protocol, then closes
)

// ProxySetup describes one sandbox proxy.
type ProxySetup struct {
	Kind     ProxyKind  // http or socks5
	User     string     // with Password: credentials the proxy requires; both empty: no auth
	Password string     //
	Source   string     // outbound source IP in 127.0.0.0/8; "" assigns the next from FirstSource
	Fault    ProxyFault // initial fault (change later with Proxy.SetFault)
}

// ProxyConfig describes the sandbox's egress proxies.
type ProxyConfig struct {
	// Proxies to start, in order. Default (nil): DefaultProxySetups().
	Proxies []ProxySetup
	// Listen is the loopback IP the proxies listen on, each on a free port (default
	// "127.0.0.1").
	Listen string
	// FirstSource is the source address of the first proxy without an explicit
	// Source; the next ones count up from it (default "127.0.0.11", so proxies leave
	// from 127.0.0.11, .12, ... while direct fetches come from 127.0.0.1).
	FirstSource string
	// SlowDelay is the wait the ProxySlow fault adds (real time, default 2s).
	SlowDelay time.Duration
	// DialTimeout bounds the proxy's outbound connects (real time, default 5s).
	DialTimeout time.Duration
	// Resolve resolves target names for forwarded http requests and SOCKS5 domain
	// targets; wire it to the sandbox DNS. Default: IP literals and "localhost" only.
	// Only loopback targets are ever dialled.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// DefaultProxySetups is four proxies, one of each kind with and without auth.
func DefaultProxySetups() []ProxySetup {
	return []ProxySetup{
		{Kind: ProxyHTTP},
		{Kind: ProxyHTTP, User: "vpn2", Password: "sandbox-pass-2"},
		{Kind: ProxySOCKS5},
		{Kind: ProxySOCKS5, User: "vpn4", Password: "sandbox-pass-4"},
	}
}

// Proxies is a running set of sandbox proxies.
type Proxies struct {
	list []*Proxy
}

// StartProxies starts every proxy in cfg on loopback; on error none is left running.
func StartProxies(cfg ProxyConfig) (*Proxies, error) {
	if cfg.Proxies == nil {
		cfg.Proxies = DefaultProxySetups()
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1"
	}
	if cfg.FirstSource == "" {
		cfg.FirstSource = "127.0.0.11"
	}
	if cfg.SlowDelay <= 0 {
		cfg.SlowDelay = 2 * time.Second
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	if cfg.Resolve == nil {
		cfg.Resolve = resolveLiteral
	}
	listen, err := netip.ParseAddr(cfg.Listen)
	if err != nil || !listen.IsLoopback() {
		return nil, fmt.Errorf("sandbox proxies: listen address %q is not a loopback IP", cfg.Listen)
	}
	next, err := netip.ParseAddr(cfg.FirstSource)
	if err != nil || !next.Is4() || !next.IsLoopback() {
		return nil, fmt.Errorf("sandbox proxies: first source %q is not an IPv4 loopback address", cfg.FirstSource)
	}
	ps := &Proxies{}
	for i, setup := range cfg.Proxies {
		src := next
		if setup.Source != "" {
			if src, err = netip.ParseAddr(setup.Source); err != nil || !src.IsLoopback() {
				ps.Close()
				return nil, fmt.Errorf("sandbox proxy %d: source %q is not a loopback IP", i+1, setup.Source)
			}
		} else {
			next = next.Next()
		}
		p, err := startProxy(i+1, setup, src, listen, cfg)
		if err != nil {
			ps.Close()
			return nil, err
		}
		ps.list = append(ps.list, p)
	}
	return ps, nil
}

// List returns the proxies in config order.
func (ps *Proxies) List() []*Proxy { return ps.list }

// Specs returns one egress SPEC per proxy, in order, as --egress takes them
// (credentials included: the crawler needs them; it masks them itself).
func (ps *Proxies) Specs() []string {
	out := make([]string, len(ps.list))
	for i, p := range ps.list {
		out[i] = p.Spec()
	}
	return out
}

// Close stops every proxy and cuts their connections.
func (ps *Proxies) Close() error {
	var errs []error
	for _, p := range ps.list {
		errs = append(errs, p.close())
	}
	return errors.Join(errs...)
}

// ProxyStats counts what one proxy saw.
type ProxyStats struct {
	Accepted     int64 // inbound client connections accepted (keep-alive keeps this low)
	Requests     int64 // forwarded requests, CONNECTs and SOCKS5 connects that were served
	AuthFailures int64 // credentials refused
	Upstream     int64 // outbound connections opened to targets
}

// Proxy is one running sandbox proxy.
type Proxy struct {
	index  int
	setup  ProxySetup
	source netip.Addr
	cfg    ProxyConfig
	ln     net.Listener
	srv    *http.Server    // http kind
	up     *http.Transport // http kind: forwarding, keep-alive to targets
	fault  atomic.Value    // ProxyFault
	stats  struct{ accepted, requests, authFail, upstream atomic.Int64 }
	closed atomic.Bool

	mu    sync.Mutex
	conns map[*trackedConn]struct{}
	wg    sync.WaitGroup
}

func startProxy(index int, setup ProxySetup, src, listen netip.Addr, cfg ProxyConfig) (*Proxy, error) {
	if setup.Kind != ProxyHTTP && setup.Kind != ProxySOCKS5 {
		return nil, fmt.Errorf("sandbox proxy %d: unknown kind %q (want http or socks5)", index, setup.Kind)
	}
	if (setup.User == "") != (setup.Password == "") {
		return nil, fmt.Errorf("sandbox proxy %d: give both user and password or neither", index)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(listen.String(), "0"))
	if err != nil {
		return nil, fmt.Errorf("sandbox proxy %d: %w", index, err)
	}
	p := &Proxy{index: index, setup: setup, source: src, cfg: cfg, conns: map[*trackedConn]struct{}{}}
	p.fault.Store(setup.Fault)
	p.ln = &faultListener{Listener: ln, p: p}
	if setup.Kind == ProxyHTTP {
		p.up = &http.Transport{DialContext: p.dialTarget, MaxIdleConnsPerHost: 16,
			IdleConnTimeout: 30 * time.Second, DisableCompression: true}
		p.srv = &http.Server{Handler: http.HandlerFunc(p.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.srv.Serve(p.ln) }()
	} else {
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.serveSOCKS() }()
	}
	return p, nil
}

// Kind is the proxy's protocol.
func (p *Proxy) Kind() ProxyKind { return p.setup.Kind }

// Addr is the proxy's listening host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Source is the address the proxy's outbound connections leave from: what the
// sandbox's HTTP server sees as the client.
func (p *Proxy) Source() netip.Addr { return p.source }

// Spec is the egress SPEC for this proxy, with its credentials.
func (p *Proxy) Spec() string {
	u := url.URL{Scheme: string(p.setup.Kind), Host: p.Addr()}
	if p.setup.User != "" {
		u.User = url.UserPassword(p.setup.User, p.setup.Password)
	}
	return u.String()
}

// Fault is the failure injected now.
func (p *Proxy) Fault() ProxyFault { return p.fault.Load().(ProxyFault) }

// SetFault injects a failure (ProxyHealthy clears it). Every fault but ProxySlow
// also cuts the connections already open, as a VPN going away or restarting broken
// would, so the next request meets the fault instead of an old keep-alive tunnel.
func (p *Proxy) SetFault(f ProxyFault) {
	p.fault.Store(f)
	if f != ProxyHealthy && f != ProxySlow {
		p.mu.Lock()
		for c := range p.conns {
			c.Conn.Close()
		}
		p.mu.Unlock()
	}
}

// Stats returns the proxy's counters.
func (p *Proxy) Stats() ProxyStats {
	return ProxyStats{Accepted: p.stats.accepted.Load(), Requests: p.stats.requests.Load(),
		AuthFailures: p.stats.authFail.Load(), Upstream: p.stats.upstream.Load()}
}

func (p *Proxy) close() error {
	if p.closed.Swap(true) {
		return nil
	}
	err := p.ln.Close()
	if p.srv != nil {
		p.srv.Close()
	}
	if p.up != nil {
		p.up.CloseIdleConnections()
	}
	p.mu.Lock()
	for c := range p.conns {
		c.Conn.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

// faultListener applies the connection-level faults (down, garbage) and tracks open
// connections so that ProxyDown and Close can cut them.
type faultListener struct {
	net.Listener
	p *Proxy
}

// garbageReply is what ProxyGarbage sends: neither HTTP nor SOCKS5.
var garbageReply = []byte("\x00\x17\xffGARBAGE FROM A BROKEN VPN\r\n\x00\xfe")

func (l *faultListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.p.stats.accepted.Add(1)
		switch l.p.Fault() {
		case ProxyDown:
			c.Close()
			continue
		case ProxyGarbage:
			c.SetDeadline(time.Now().Add(5 * time.Second))
			c.Write(garbageReply)
			c.Close()
			continue
		}
		tc := &trackedConn{Conn: c, p: l.p}
		l.p.mu.Lock()
		l.p.conns[tc] = struct{}{}
		l.p.mu.Unlock()
		return tc, nil
	}
}

type trackedConn struct {
	net.Conn
	p    *Proxy
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.p.mu.Lock()
		delete(c.p.conns, c)
		c.p.mu.Unlock()
	})
	return c.Conn.Close()
}

// slow waits SlowDelay when the slow fault is on (or until ctx ends).
func (p *Proxy) slow(ctx context.Context) {
	if p.Fault() != ProxySlow {
		return
	}
	t := time.NewTimer(p.cfg.SlowDelay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// credentialsOK checks user/password (constant time) against the setup and the
// auth-refused fault.
func (p *Proxy) credentialsOK(user, pass string) bool {
	ok := p.Fault() != ProxyAuthRefused &&
		subtle.ConstantTimeCompare([]byte(user), []byte(p.setup.User)) == 1 &&
		subtle.ConstantTimeCompare([]byte(pass), []byte(p.setup.Password)) == 1
	if !ok {
		p.stats.authFail.Add(1)
	}
	return ok
}

// dialTarget connects to a loopback target from the proxy's source address.
func (p *Proxy) dialTarget(ctx context.Context, _, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := p.cfg.Resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: p.cfg.DialTimeout, LocalAddr: &net.TCPAddr{IP: p.source.AsSlice()}}
	var errs []error
	for _, ip := range ips {
		if !ip.IsLoopback() || ip.Is4() != p.source.Is4() {
			errs = append(errs, fmt.Errorf("target %s is outside the sandbox (loopback only)", ip))
			continue
		}
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(ip.String(), port))
		if err == nil {
			p.stats.upstream.Add(1)
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("no address for %s", host)
	}
	return nil, errors.Join(errs...)
}

// resolveLiteral is the default resolver: IP literals and localhost.
func resolveLiteral(_ context.Context, host string) ([]netip.Addr, error) {
	if host == "localhost" {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return nil, &net.DNSError{Err: "sandbox proxy resolves IP literals only (set ProxyConfig.Resolve)", Name: host, IsNotFound: true}
	}
	return []netip.Addr{ip.Unmap()}, nil
}

// --- HTTP proxy ---

// hopHeaders are connection-level headers a proxy must not forward (RFC 9110 7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	p.slow(r.Context())
	if p.setup.User != "" || p.Fault() == ProxyAuthRefused {
		user, pass, _ := proxyBasicAuth(r.Header.Get("Proxy-Authorization"))
		if !p.credentialsOK(user, pass) {
			w.Header().Set("Proxy-Authenticate", `Basic realm="sandbox"`)
			http.Error(w, "proxy authentication required", http.StatusProxyAuthRequired)
			return
		}
	}
	if r.Method == http.MethodConnect {
		p.serveCONNECT(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Scheme != "http" {
		http.Error(w, "this is a proxy: send an absolute http:// URI or CONNECT", http.StatusBadRequest)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	// No replay: Go's transport sends an idempotent request again by itself when a
	// kept-alive upstream connection fails after the request went out, and the target
	// would count that as a second request from this proxy's address (squid's default,
	// retry_on_error off, does not). A second connection for one request ends it.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	var conns atomic.Int32
	out = out.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
		if conns.Add(1) > 1 {
			cancel()
		}
	}}))
	resp, err := p.up.RoundTrip(out)
	if err != nil {
		p.proxyError(w, err)
		return
	}
	defer resp.Body.Close()
	p.stats.requests.Add(1)
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// proxyError answers 502 with the Proxy-Agent marker that tells a crawler the proxy,
// not the site, failed.
func (p *Proxy) proxyError(w http.ResponseWriter, err error) {
	w.Header().Set("Proxy-Agent", "crawlconsole-sandbox-proxy/"+strconv.Itoa(p.index))
	http.Error(w, "proxy could not reach the target: "+err.Error(), http.StatusBadGateway)
}

func (p *Proxy) serveCONNECT(w http.ResponseWriter, r *http.Request) {
	target, err := p.dialTarget(r.Context(), "tcp", r.Host)
	if err != nil {
		p.proxyError(w, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		target.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	client, rw, err := hj.Hijack()
	if err != nil {
		target.Close()
		return
	}
	p.stats.requests.Add(1)
	client.SetDeadline(time.Time{})
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		client.Close()
		target.Close()
		return
	}
	splice(client, rw.Reader, target)
}

// proxyBasicAuth decodes a "Basic" Proxy-Authorization value.
func proxyBasicAuth(v string) (user, pass string, ok bool) {
	enc, found := strings.CutPrefix(v, "Basic ")
	if !found {
		return "", "", false
	}
	dec, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", "", false
	}
	return strings.Cut(string(dec), ":")
}

// splice copies both ways until either side ends, then closes both.
func splice(client net.Conn, fromClient io.Reader, target net.Conn) {
	done := make(chan struct{}, 2)
	go func() { io.Copy(target, fromClient); done <- struct{}{} }()
	go func() { io.Copy(client, target); done <- struct{}{} }()
	<-done
	client.Close()
	target.Close()
	<-done
}

// --- SOCKS5 proxy (RFC 1928, RFC 1929 user/password) ---

func (p *Proxy) serveSOCKS() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.serveSOCKSConn(c) }()
	}
}

const (
	socksVersion     = 5
	socksNoAuth      = 0x00
	socksUserPass    = 0x02
	socksNoMethod    = 0xff
	socksConnect     = 0x01
	socksATypIPv4    = 0x01
	socksATypDomain  = 0x03
	socksATypIPv6    = 0x04
	socksRepOK       = 0x00
	socksRepFailure  = 0x01
	socksRepNotAllow = 0x02
	socksRepRefused  = 0x05
	socksRepCmd      = 0x07
	socksRepAddrType = 0x08
)

func (p *Proxy) serveSOCKSConn(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(p.cfg.SlowDelay + 30*time.Second))
	br := bufio.NewReader(c)
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil || hdr[0] != socksVersion {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p.slow(ctx)
	wantAuth := p.setup.User != "" || p.Fault() == ProxyAuthRefused
	method := byte(socksNoAuth)
	if wantAuth {
		method = socksUserPass
	}
	if !strings.ContainsRune(string(methods), rune(method)) {
		c.Write([]byte{socksVersion, socksNoMethod})
		return
	}
	c.Write([]byte{socksVersion, method})
	if wantAuth && !p.socksAuth(br, c) {
		return
	}
	// Request: VER CMD RSV ATYP DST.ADDR DST.PORT
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil || req[0] != socksVersion {
		return
	}
	if req[1] != socksConnect {
		socksReply(c, socksRepCmd)
		return
	}
	host, err := readSOCKSAddr(br, req[3])
	if err != nil {
		socksReply(c, socksRepAddrType)
		return
	}
	var port [2]byte
	if _, err := io.ReadFull(br, port[:]); err != nil {
		return
	}
	addr := net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(port[:]))))
	target, err := p.dialTarget(ctx, "tcp", addr)
	if err != nil {
		rep := byte(socksRepRefused)
		if strings.Contains(err.Error(), "outside the sandbox") {
			rep = socksRepNotAllow
		}
		socksReply(c, rep)
		return
	}
	p.stats.requests.Add(1)
	if err := socksReply(c, socksRepOK); err != nil {
		target.Close()
		return
	}
	c.SetDeadline(time.Time{})
	splice(c, br, target)
}

// socksAuth runs the RFC 1929 sub-negotiation.
func (p *Proxy) socksAuth(br *bufio.Reader, c net.Conn) bool {
	readField := func() (string, bool) {
		n, err := br.ReadByte()
		if err != nil {
			return "", false
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return string(b), err == nil
	}
	ver, err := br.ReadByte()
	if err != nil || ver != 1 {
		return false
	}
	user, ok1 := readField()
	pass, ok2 := readField()
	if !ok1 || !ok2 || !p.credentialsOK(user, pass) {
		c.Write([]byte{1, socksRepFailure})
		return false
	}
	_, err = c.Write([]byte{1, socksRepOK})
	return err == nil
}

func readSOCKSAddr(br *bufio.Reader, atyp byte) (string, error) {
	switch atyp {
	case socksATypIPv4, socksATypIPv6:
		n := 4
		if atyp == socksATypIPv6 {
			n = 16
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", err
		}
		ip, _ := netip.AddrFromSlice(b)
		return ip.String(), nil
	case socksATypDomain:
		n, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", err
		}
		return string(b), nil
	}
	return "", fmt.Errorf("unknown address type %d", atyp)
}

// socksReply sends a reply with an all-zero IPv4 bound address.
func socksReply(c net.Conn, rep byte) error {
	_, err := c.Write([]byte{socksVersion, rep, 0, socksATypIPv4, 0, 0, 0, 0, 0, 0})
	return err
}
