package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"golang.org/x/net/proxy"
)

// TransportConfig is what the engine gives every egress transport: its dial hooks
// (DNS through M5's cache, the SSRF guard), timeouts and TLS settings. Zero fields
// take the defaults noted on each.
type TransportConfig struct {
	// Resolve returns the addresses of a target host. Default: net.DefaultResolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Guard refuses target addresses the crawl must not reach (SSRF guard); it sees
	// every resolved target address before any dial or proxy request. Default: allow.
	Guard func(netip.Addr) error
	// DialTimeout bounds one TCP connect, to a target or to a proxy. Default 10s.
	DialTimeout time.Duration
	// ProxyHandshakeTimeout bounds the CONNECT or SOCKS5 exchange. Default 10s.
	ProxyHandshakeTimeout time.Duration
	// TLSHandshakeTimeout bounds the target's TLS handshake. Default 10s.
	TLSHandshakeTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for response headers. Default 30s.
	ResponseHeaderTimeout time.Duration
	// IdleConnTimeout closes keep-alive connections idle this long. Default 90s.
	IdleConnTimeout time.Duration
	// MaxIdleConnsPerHost is the keep-alive pool per target (per proxy for http
	// forwarding). Default 8: lanes fetch serially, so a few per host suffice (M1).
	MaxIdleConnsPerHost int
	// TLSClientConfig is cloned for target TLS. Default: Go's defaults.
	TLSClientConfig *tls.Config
	// Refuse, when set, judges every attempt at a request before its name is
	// looked up or a connection taken: net/http asks the transport's Proxy func
	// before each attempt, a redirect's hop and a request it sends again by
	// itself on a new connection included. An error stops the attempt unsent
	// (the operator's holds: a held host gets no request of any kind). nil: none.
	Refuse func(req *http.Request) error
}

func (c TransportConfig) withDefaults() TransportConfig {
	if c.Resolve == nil {
		c.Resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if c.Guard == nil {
		c.Guard = func(netip.Addr) error { return nil }
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.DialTimeout, 10*time.Second)
	def(&c.ProxyHandshakeTimeout, 10*time.Second)
	def(&c.TLSHandshakeTimeout, 10*time.Second)
	def(&c.ResponseHeaderTimeout, 30*time.Second)
	def(&c.IdleConnTimeout, 90*time.Second)
	if c.MaxIdleConnsPerHost <= 0 {
		c.MaxIdleConnsPerHost = 8
	}
	return c
}

// ProxyError is a failure of the egress itself rather than of the site: the proxy
// was unreachable, refused the credentials (407), could not or would not CONNECT
// (e.g. 502), or answered something that is not the protocol. Classify makes it a
// ProxyFault, which penalises the egress for every host. Its text names the egress
// and never holds the password.
type ProxyError struct {
	Egress string // egress name
	Proxy  string // masked spec of the egress
	Op     string // "dial", "connect", "socks5", "forward"
	Status int    // HTTP status of a refused CONNECT, else 0
	Err    error  // underlying error (may be nil when Status says it all)
}

// Error names the egress, the step and the cause.
func (e *ProxyError) Error() string {
	msg := fmt.Sprintf("egress %s (%s): proxy %s failed", e.Egress, e.Proxy, e.Op)
	if e.Status != 0 {
		msg += fmt.Sprintf(": %d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap gives the underlying error (e.g. a net.OpError or context.DeadlineExceeded).
func (e *ProxyError) Unwrap() error { return e.Err }

// IsProxyError reports whether err (as returned by an egress transport, possibly
// wrapped by http.Client) is a failure of the proxy rather than of the site.
func IsProxyError(err error) bool {
	var pe *ProxyError
	if errors.As(err, &pe) {
		return true
	}
	// http.Transport wraps failures on the way to a forwarding proxy this way.
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "proxyconnect"
}

// GuardError is a target address refused by the SSRF guard; nothing was sent.
type GuardError struct {
	Host string
	Addr netip.Addr
	Err  error
}

// Error says which host and address were refused and why.
func (e *GuardError) Error() string {
	return fmt.Sprintf("target %s (%s) refused: %v", e.Host, e.Addr, e.Err)
}

// Unwrap gives the guard's reason.
func (e *GuardError) Unwrap() error { return e.Err }

// Egress is one usable egress: its spec and, once asked for, its keep-alive
// transport. Safe for concurrent use.
type Egress struct {
	spec Spec

	once sync.Once
	tr   *http.Transport
}

// New makes an Egress from a parsed spec.
func New(spec Spec) *Egress { return &Egress{spec: spec} }

// Name is the egress's name (e1, ...).
func (e *Egress) Name() string { return e.spec.Name }

// Spec returns the egress's spec (which prints masked).
func (e *Egress) Spec() Spec { return e.spec }

// String is "NAME=masked spec".
func (e *Egress) String() string { return e.spec.Name + "=" + e.spec.Masked() }

// Transport returns the egress's one keep-alive transport, built from base on the
// first call; later calls return the same transport and ignore base. Every request
// through it leaves by this egress: bind sets the dialer's LocalAddr, socks5 tunnels
// each connection, http uses CONNECT for https and forwarding for http. Keep-alive
// works through every kind (forwarding keeps one pool to the proxy for all hosts).
func (e *Egress) Transport(base TransportConfig) *http.Transport {
	e.once.Do(func() { e.tr = e.newTransport(base.withDefaults()) })
	return e.tr
}

// CloseIdle closes the egress's idle keep-alive connections (e.g. on removal).
func (e *Egress) CloseIdle() {
	if e.tr != nil {
		e.tr.CloseIdleConnections()
	}
}

// MaxResponseHeaderBytes bounds the header block of a response every transport of
// the crawl reads (HTTP/1 and HTTP/2's SETTINGS_MAX_HEADER_LIST_SIZE). Real servers
// send a few KiB, a site with many cookies some tens; browsers give up at 256 KiB
// (Chromium) and curl at 300 KiB. Go's default is 10 MB a response, which a server
// flooding headers makes the crawl read and then walk (cookies, block-page checks).
const MaxResponseHeaderBytes = 1 << 20

// ReadBufferSize is the buffer every transport of the crawl reads a connection
// through. A response that does not fit in it takes one more read(2) for its rest:
// with Go's 4 KiB default, a page of some 3.8 KiB or more with its header did (a
// third of the throughput bench's pages, by strace); 8 KiB holds the header and
// body of most pages, a few KiB a connection.
const ReadBufferSize = 8 << 10

func (e *Egress) newTransport(c TransportConfig) *http.Transport {
	t := &http.Transport{
		TLSHandshakeTimeout:    c.TLSHandshakeTimeout,
		ResponseHeaderTimeout:  c.ResponseHeaderTimeout,
		IdleConnTimeout:        c.IdleConnTimeout,
		MaxIdleConnsPerHost:    c.MaxIdleConnsPerHost,
		MaxIdleConns:           c.MaxIdleConnsPerHost * 64,
		ExpectContinueTimeout:  time.Second,
		ForceAttemptHTTP2:      true,
		MaxResponseHeaderBytes: MaxResponseHeaderBytes,
		ReadBufferSize:         ReadBufferSize,
	}
	if c.TLSClientConfig != nil {
		t.TLSClientConfig = c.TLSClientConfig.Clone()
	}
	d := &dialer{egress: e, cfg: c}
	switch e.spec.Kind {
	case KindBind:
		d.local = netip.MustParseAddr(e.spec.Address)
		t.DialContext = d.dialBind
	case KindSOCKS5:
		t.DialContext = d.dialSOCKS5
	case KindHTTP:
		// http targets: absolute-URI forwarding to the proxy (Proxy returns its URL
		// after the local guard check; DialContext then only ever reaches the proxy).
		// https targets: Proxy returns nil and DialTLSContext tunnels with CONNECT.
		proxyURL := &url.URL{Scheme: "http", Host: e.spec.Address}
		if e.spec.User != "" {
			proxyURL.User = url.UserPassword(e.spec.User, e.spec.Secret.Reveal())
		}
		t.Proxy = func(req *http.Request) (*url.URL, error) {
			if c.Refuse != nil {
				if err := c.Refuse(req); err != nil {
					return nil, err // before the guard's lookup of the name
				}
			}
			if req.URL.Scheme != "http" {
				return nil, nil
			}
			if _, err := d.resolveGuarded(req.Context(), req.URL.Hostname()); err != nil {
				return nil, err
			}
			return proxyURL, nil
		}
		t.DialContext = d.dialProxy
		t.DialTLSContext = d.dialCONNECTTLS
	}
	if t.Proxy == nil && c.Refuse != nil {
		// A Proxy func that names no proxy keeps the transport's keep-alive pool
		// as it is (colly's SetProxyFunc would turn keep-alive off).
		refuse := c.Refuse
		t.Proxy = func(req *http.Request) (*url.URL, error) { return nil, refuse(req) }
	}
	return t
}

// dialer holds one egress's dial logic; it implements the guard-then-dial rule.
type dialer struct {
	egress *Egress
	cfg    TransportConfig
	local  netip.Addr // bind only
}

func (d *dialer) proxyErr(op string, status int, err error) error {
	return &ProxyError{Egress: d.egress.spec.Name, Proxy: d.egress.spec.Masked(), Op: op, Status: status, Err: err}
}

// resolveGuarded resolves host (an IP literal is used as is) and keeps the addresses
// the guard allows; it fails if none is left.
func (d *dialer) resolveGuarded(ctx context.Context, host string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip.Unmap()}
	} else {
		addrs, err = d.cfg.Resolve(ctx, host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	var allowed []netip.Addr
	var refused error
	for _, a := range addrs {
		a = a.Unmap()
		if err := d.cfg.Guard(a); err != nil {
			refused = &GuardError{Host: host, Addr: a, Err: err}
			continue
		}
		allowed = append(allowed, a)
	}
	if len(allowed) == 0 {
		return nil, refused
	}
	return allowed, nil
}

// targets resolves and guards the host of addr ("host:port"), returning "ip:port"s.
func (d *dialer) targets(ctx context.Context, addr string) ([]string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := d.resolveGuarded(ctx, host)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ips))
	for _, ip := range ips {
		if d.local.IsValid() && ip.Is4() != d.local.Is4() {
			continue // a v4 source cannot reach a v6 target and vice versa
		}
		out = append(out, net.JoinHostPort(ip.String(), port))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("egress %s: no %s address for %s", d.egress.spec.Name, family(d.local), host)
	}
	return out, nil
}

func family(a netip.Addr) string {
	if a.Is4() {
		return "IPv4"
	}
	return "IPv6"
}

// firstDial tries each target in order and returns the first connection.
func firstDial(ctx context.Context, targets []string, dial func(ctx context.Context, target string) (net.Conn, error)) (net.Conn, error) {
	var errs []error
	for _, t := range targets {
		c, err := dial(ctx, t)
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil || IsProxyError(err) {
			break // a broken proxy will not get better with the next address
		}
	}
	return nil, errors.Join(errs...)
}

// dialBind dials the target directly, leaving from the egress's local address.
func (d *dialer) dialBind(ctx context.Context, network, addr string) (net.Conn, error) {
	targets, err := d.targets(ctx, addr)
	if err != nil {
		return nil, err
	}
	nd := &net.Dialer{Timeout: d.cfg.DialTimeout, KeepAlive: 30 * time.Second,
		LocalAddr: &net.TCPAddr{IP: d.local.AsSlice()}}
	return firstDial(ctx, targets, func(ctx context.Context, t string) (net.Conn, error) {
		return nd.DialContext(ctx, "tcp", t)
	})
}

// dialProxy opens a TCP connection to the proxy itself.
func (d *dialer) dialProxy(ctx context.Context, _, _ string) (net.Conn, error) {
	nd := &net.Dialer{Timeout: d.cfg.DialTimeout, KeepAlive: 30 * time.Second}
	c, err := nd.DialContext(ctx, "tcp", d.egress.spec.Address)
	if err != nil {
		return nil, d.proxyErr("dial", 0, err)
	}
	return c, nil
}

// dialSOCKS5 tunnels to the checked target IP through the SOCKS5 proxy.
func (d *dialer) dialSOCKS5(ctx context.Context, network, addr string) (net.Conn, error) {
	targets, err := d.targets(ctx, addr)
	if err != nil {
		return nil, err
	}
	var auth *proxy.Auth
	if d.egress.spec.User != "" {
		auth = &proxy.Auth{User: d.egress.spec.User, Password: d.egress.spec.Secret.Reveal()}
	}
	sd, err := proxy.SOCKS5("tcp", d.egress.spec.Address, auth, contextDialerFunc(func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.dialProxy(ctx, "", "")
	}))
	if err != nil {
		return nil, d.proxyErr("socks5", 0, err)
	}
	cd := sd.(proxy.ContextDialer)
	return firstDial(ctx, targets, func(ctx context.Context, t string) (net.Conn, error) {
		hctx, cancel := context.WithTimeout(ctx, d.cfg.DialTimeout+d.cfg.ProxyHandshakeTimeout)
		defer cancel()
		c, err := cd.DialContext(hctx, "tcp", t)
		if err != nil {
			var pe *ProxyError
			if errors.As(err, &pe) {
				return nil, pe // our own dial error, inside x/net's wrapper
			}
			return nil, d.proxyErr("socks5", 0, socksCause(err))
		}
		return c, nil
	})
}

// socksCause drops x/net's net.OpError wrapper (its text repeats addresses we
// already name) but keeps the cause.
func socksCause(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

type contextDialerFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (f contextDialerFunc) Dial(network, addr string) (net.Conn, error) {
	return f(context.Background(), network, addr)
}

func (f contextDialerFunc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

// dialCONNECTTLS tunnels to the checked target IP with CONNECT, then does the target's
// TLS handshake (server name from the request, not the IP).
func (d *dialer) dialCONNECTTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	targets, err := d.targets(ctx, addr)
	if err != nil {
		return nil, err
	}
	raw, err := firstDial(ctx, targets, d.connectTunnel)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{}
	if d.cfg.TLSClientConfig != nil {
		cfg = d.cfg.TLSClientConfig.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	if len(cfg.NextProtos) == 0 {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	tc := tls.Client(raw, cfg)
	hctx, cancel := context.WithTimeout(ctx, d.cfg.TLSHandshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, err
	}
	return tc, nil
}

// connectTunnel asks the HTTP proxy to CONNECT to target ("ip:port").
func (d *dialer) connectTunnel(ctx context.Context, target string) (net.Conn, error) {
	c, err := d.dialProxy(ctx, "", "")
	if err != nil {
		return nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, d.cfg.ProxyHandshakeTimeout)
	defer cancel()
	conn, status, err := httpConnect(hctx, c, target, d.egress.spec.User, d.egress.spec.Secret)
	if err != nil || status/100 != 2 {
		c.Close()
		if err == nil {
			return nil, d.proxyErr("connect", status, nil)
		}
		return nil, d.proxyErr("connect", 0, err)
	}
	return conn, nil
}
