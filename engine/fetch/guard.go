package fetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"
)

// Guard refuses targets on loopback, private, link-local, multicast and unspecified
// addresses (server-side request forgery: a crawled page must not steer the crawler
// into the crawl box's own network or a cloud metadata service), unless a range was
// opened with --allow-private. It is checked on the resolved address, before every
// dial — so also after every redirect.
type Guard struct {
	allow []netip.Prefix
}

// blocked lists special-purpose ranges that netip's predicates (loopback, private,
// link-local, multicast, unspecified) do not cover.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),      // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved
	netip.MustParsePrefix("255.255.255.255/32"), // broadcast
	netip.MustParsePrefix("64:ff9b::/96"),       // NAT64 can reach private IPv4
	netip.MustParsePrefix("64:ff9b:1::/48"),     // local-use NAT64 (RFC 8215), likewise
	netip.MustParsePrefix("fec0::/10"),          // deprecated site-local
}

// NewGuard builds a guard that lets the given CIDR ranges through (--allow-private).
// A bad range is an error naming it.
func NewGuard(allow []string) (*Guard, error) {
	g := &Guard{}
	for _, s := range allow {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			if a, err2 := netip.ParseAddr(strings.TrimSpace(s)); err2 == nil {
				p = netip.PrefixFrom(a, a.BitLen())
			} else {
				return nil, fmt.Errorf("--allow-private %q: not a CIDR range like 127.0.0.0/8 or 10.1.2.0/24", s)
			}
		}
		g.allow = append(g.allow, p.Masked())
	}
	return g, nil
}

// BlockedError says a target address was refused by the guard.
type BlockedError struct {
	Host string
	Addr netip.Addr
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("refused to connect to %s (%s): loopback/private/link-local targets are blocked; allow a range with --allow-private CIDR (crawl, master and worker take it at start)", e.Host, e.Addr)
}

// Check returns a *BlockedError if ip may not be dialled.
func (g *Guard) Check(host string, ip netip.Addr) error {
	ip = ip.Unmap()
	for _, p := range g.allow {
		if p.Contains(ip) {
			return nil
		}
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsUnspecified() || !ip.IsValid() {
		return &BlockedError{Host: host, Addr: ip}
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return &BlockedError{Host: host, Addr: ip}
		}
	}
	// IPv6 forms that carry an IPv4 address a gateway or the stack may reach: the
	// embedded address is judged as itself (::127.0.0.1 is loopback in disguise).
	for _, v4 := range embeddedIPv4(ip) {
		if err := g.Check(host, v4); err != nil {
			return &BlockedError{Host: host, Addr: ip}
		}
	}
	return nil
}

var (
	ipv4Compatible = netip.MustParsePrefix("::/96")     // deprecated ::a.b.c.d
	sixToFour      = netip.MustParsePrefix("2002::/16") // 6to4: 2002:AABB:CCDD::
	teredo         = netip.MustParsePrefix("2001::/32") // server in bits 32-63, client XOR-ed in the last 32
)

// embeddedIPv4 returns the IPv4 addresses an IPv6 address carries in the forms
// above (none for others; NAT64's prefixes are blocked whole).
func embeddedIPv4(ip netip.Addr) []netip.Addr {
	if !ip.Is6() {
		return nil
	}
	b := ip.As16()
	v4 := func(x, y, z, w byte) netip.Addr { return netip.AddrFrom4([4]byte{x, y, z, w}) }
	switch {
	case ipv4Compatible.Contains(ip):
		return []netip.Addr{v4(b[12], b[13], b[14], b[15])}
	case sixToFour.Contains(ip):
		return []netip.Addr{v4(b[2], b[3], b[4], b[5])}
	case teredo.Contains(ip):
		return []netip.Addr{v4(b[4], b[5], b[6], b[7]), v4(^b[12], ^b[13], ^b[14], ^b[15])}
	}
	return nil
}

// Resolver turns a host name into addresses; the engine's is the DNS prefetch cache
// (M5, engine/dnscache).
type Resolver interface {
	LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error)
}

// Dialer dials through the resolver and the guard, from an optional local source
// address (a bind: egress). net/http never resolves names itself when it dials
// through here.
type Dialer struct {
	Resolver Resolver
	Guard    *Guard
	Local    netip.Addr    // source address; zero for the default route
	Timeout  time.Duration // connect timeout
	// Dial replaces the final TCP dial (tests count dials with it).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Allowed resolves host and returns the addresses the guard lets through, or the
// guard's (or the resolver's) error when there are none.
func (d *Dialer) Allowed(ctx context.Context, host string) ([]netip.Addr, error) {
	addrs, err := d.Resolver.LookupAddrs(ctx, host)
	if err != nil {
		return nil, &DNSError{Host: host, Err: err}
	}
	var firstBlock error
	var allowed []netip.Addr
	for _, a := range addrs {
		if err := d.Guard.Check(host, a); err != nil {
			if firstBlock == nil {
				firstBlock = err
			}
			continue
		}
		allowed = append(allowed, a)
	}
	if len(allowed) == 0 {
		if firstBlock != nil {
			return nil, firstBlock
		}
		return nil, &DNSError{Host: host, Err: fmt.Errorf("no addresses")}
	}
	return allowed, nil
}

// DialContext resolves address's host, refuses blocked targets before any packet is
// sent, then dials the first allowed address that answers.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	allowed, err := d.Allowed(ctx, host)
	if err != nil {
		return nil, err
	}
	dial := d.Dial
	if dial == nil {
		nd := &net.Dialer{Timeout: d.Timeout, KeepAlive: 30 * time.Second}
		if d.Local.IsValid() {
			nd.LocalAddr = &net.TCPAddr{IP: d.Local.AsSlice()}
		}
		dial = nd.DialContext
	}
	var lastErr error
	for _, a := range allowed {
		c, err := dial(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// DNSError is a failed resolution on the fetch path.
type DNSError struct {
	Host string
	Err  error
}

func (e *DNSError) Error() string { return fmt.Sprintf("resolve %s: %v", e.Host, e.Err) }
func (e *DNSError) Unwrap() error { return e.Err }
