package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/miekg/dns"
)

// The DNS server (M5's upstream): authoritative for every sandbox name, on UDP and TCP
// at one loopback port. Live hosts (and site apexes) answer A 127.0.0.1 with a per-host
// TTL from Config.DNS.TTLs; dead names answer NXDOMAIN (with the zone's SOA, whose
// minimum is the negative TTL), SERVFAIL, or nothing. Every answer waits a latency drawn
// uniformly from [LatencyMin, LatencyMax] real time (a network property: not scaled).
// Every query is counted per name in the truth. Names outside the sandbox are REFUSED.

type dnsServer struct {
	web      *Web
	truth    *Truth
	addr     string
	udp, tcp *dns.Server
}

// listenDNS binds UDP and TCP on the same loopback port; with port 0 it retries until
// a port is free for both.
func listenDNS(addr string) (net.PacketConn, net.Listener, error) {
	host, port, _ := net.SplitHostPort(addr)
	for try := 0; ; try++ {
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return nil, nil, listenError("DNS (UDP)", addr, err)
		}
		p := strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
		ln, err := net.Listen("tcp", net.JoinHostPort(host, p))
		if err == nil {
			return pc, ln, nil
		}
		pc.Close()
		if port != "0" || try >= 20 {
			return nil, nil, listenError("DNS (TCP)", net.JoinHostPort(host, p), err)
		}
	}
}

// AddrInUseError reports that a listen address of the sandbox is taken.
type AddrInUseError struct {
	// Listener is "HTTP", "DNS (UDP)", "DNS (TCP)" or "truth".
	Listener string
	// Addr is the address asked for.
	Addr string
}

// Error says which listener and address, and what to do about it.
func (e *AddrInUseError) Error() string {
	return fmt.Sprintf("sandbox: %s address %s is already in use; choose another port, or port 0 for a free one", e.Listener, e.Addr)
}

// listenError says plainly when a port is taken.
func listenError(what, addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return &AddrInUseError{Listener: what, Addr: addr}
	}
	return fmt.Errorf("sandbox: cannot listen for %s on %s: %w", what, addr, err)
}

func startDNS(pc net.PacketConn, ln net.Listener, w *Web, t *Truth) *dnsServer {
	s := &dnsServer{web: w, truth: t, addr: pc.LocalAddr().String()}
	s.udp = &dns.Server{PacketConn: pc, Handler: s}
	s.tcp = &dns.Server{Listener: ln, Handler: s}
	go s.udp.ActivateAndServe() //nolint:errcheck // returns on shutdown
	go s.tcp.ActivateAndServe() //nolint:errcheck // returns on shutdown
	return s
}

func (s *dnsServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s.udp.ShutdownContext(ctx) //nolint:errcheck // best effort on close
	s.tcp.ShutdownContext(ctx) //nolint:errcheck // best effort on close
}

// ServeDNS answers one query.
func (s *dnsServer) ServeDNS(rw dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	if len(req.Question) != 1 {
		m.Rcode = dns.RcodeFormatError
		rw.WriteMsg(m) //nolint:errcheck // the client may be gone
		return
	}
	q := req.Question[0]
	name := strings.ToLower(strings.TrimSuffix(q.Name, "."))
	s.truth.recordDNS(name)
	cfg := s.web.cfg.DNS
	lat := cfg.LatencyMin
	if span := cfg.LatencyMax - cfg.LatencyMin; span > 0 {
		lat += rand.N(span + 1)
	}
	time.Sleep(lat)

	m.Authoritative = true
	w := s.web
	switch h, d, site := w.hosts[name], w.dead[name], w.siteOfName(name); {
	case h != nil || (site != nil && name == site.Domain):
		ttl := site.hosts[0].ttl
		if h != nil {
			ttl = h.ttl
		}
		if q.Qtype == dns.TypeA || q.Qtype == dns.TypeANY {
			m.Answer = append(m.Answer, &dns.A{
				Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: uint32(w.realSeconds(ttl))},
				A:   net.IPv4(127, 0, 0, 1).To4(),
			})
		} else { // NODATA: the name exists, this type does not
			m.Ns = append(m.Ns, s.soa(site))
		}
	case d != nil && d.kind == deadTimeout:
		return // no answer at all: the client times out
	case d != nil && d.kind == deadServFail:
		m.Authoritative = false
		m.Rcode = dns.RcodeServerFailure
	case site != nil: // NXDOMAIN, dead names included
		m.Rcode = dns.RcodeNameError
		m.Ns = append(m.Ns, s.soa(site))
	default:
		m.Authoritative = false
		m.Rcode = dns.RcodeRefused
	}
	rw.WriteMsg(m) //nolint:errcheck // the client may be gone
}

// soa is the zone's SOA record; its minimum field is the negative-caching TTL.
func (s *dnsServer) soa(site *website) dns.RR {
	neg := uint32(s.web.realSeconds(s.web.cfg.DNS.NegativeTTL))
	zone := site.Domain + "."
	return &dns.SOA{
		Hdr:     dns.RR_Header{Name: zone, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: neg},
		Ns:      "ns1." + zone,
		Mbox:    "hostmaster." + zone,
		Serial:  2025010101,
		Refresh: 3600, Retry: 600, Expire: 86400,
		Minttl: neg,
	}
}

// siteOfName finds the site whose domain is name or a parent of name.
func (w *Web) siteOfName(name string) *website {
	for n := name; n != ""; {
		if s := w.domains[n]; s != nil {
			return s
		}
		i := strings.IndexByte(n, '.')
		if i < 0 {
			break
		}
		n = n[i+1:]
	}
	return nil
}
