package dnscache

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/miekg/dns"
)

// answer is what upstream said about one host, A and AAAA together.
type answer struct {
	addrs []netip.Addr  // on success
	ttl   time.Duration // smallest record TTL on success; RFC 2308 TTL for nxdomain/no_address
	soa   bool          // ttl came from an SOA in the authority section
	kind  string        // "" on success, else a Kind
	err   error         // cause of a failure
	took  time.Duration // real time the resolution took
}

// upstream talks to the configured DNS servers with miekg/dns: UDP first, TCP when
// the UDP answer is truncated, servers tried in order until one answers definitely.
type upstream struct {
	servers  []string
	timeout  time.Duration
	skipAAAA bool
	messages atomic.Int64 // DNS messages sent, every retry and TCP fallback included

	// beforeResend, if set, runs before a UDP resend: a test's stand-in for a
	// goroutine the scheduler resumes late.
	beforeResend func()
}

// ednsSize is the EDNS0 UDP payload size of the 2020 DNS flag day: large enough for
// ordinary A/AAAA sets, small enough to avoid IP fragmentation.
const ednsSize = 1232

// maxAddrs caps the addresses kept per record type: a crawler dials one or two, and
// a hostile answer must not bloat the cache.
const maxAddrs = 16

// aaaaGrace is the least time AAAA may still take once A has answered with addresses.
const aaaaGrace = 50 * time.Millisecond

// resolve asks for A (and AAAA) records of name, a canonical host name.
func (u *upstream) resolve(ctx context.Context, name string) answer {
	start := time.Now()
	if len(u.servers) == 0 {
		return answer{kind: KindNoServers, err: errors.New("no DNS server configured"), took: time.Since(start)}
	}
	var a answer
	if u.skipAAAA {
		a = u.query(ctx, name, dns.TypeA)
	} else {
		var v4, v6 answer
		var wg sync.WaitGroup
		ctx6, cancel6 := context.WithCancel(ctx)
		defer cancel6()
		wg.Go(func() { v6 = u.query(ctx6, name, dns.TypeAAAA) })
		v4 = u.query(ctx, name, dns.TypeA)
		if len(v4.addrs) > 0 {
			// Some servers and middleboxes drop AAAA queries. With IPv4 addresses in
			// hand, give AAAA a grace period as long as A took (at least aaaaGrace)
			// rather than the full timeout, so the fetch path does not stall on it.
			t := time.AfterFunc(max(aaaaGrace, time.Since(start)), cancel6)
			defer t.Stop()
		}
		wg.Wait()
		a = combine(v4, v6)
	}
	a.took = time.Since(start)
	return a
}

// combine merges the A and AAAA answers. Any address wins; an NXDOMAIN is definite;
// "no address" needs both types to say so, otherwise the transient failure of the
// other type is reported so the name is retried rather than cached as empty.
func combine(v4, v6 answer) answer {
	switch {
	case len(v4.addrs) > 0 && len(v6.addrs) > 0:
		return answer{addrs: append(v4.addrs, v6.addrs...), ttl: min(v4.ttl, v6.ttl)}
	case len(v4.addrs) > 0:
		return v4
	case len(v6.addrs) > 0:
		return v6
	case v4.kind == KindNXDomain:
		return v4
	case v6.kind == KindNXDomain:
		return v6
	case v4.kind == KindNoAddress && v6.kind == KindNoAddress:
		v4.ttl = min(v4.ttl, v6.ttl)
		return v4
	case v4.kind == KindNoAddress:
		return v6
	case v6.kind == KindNoAddress:
		return v4
	case kindRank(v6.kind) > kindRank(v4.kind):
		return v6
	}
	return v4
}

// query asks each server in turn for one record type until one gives a definite
// answer (addresses, NXDOMAIN or no data); transient failures move on to the next.
func (u *upstream) query(ctx context.Context, name string, qtype uint16) answer {
	fqdn := dns.Fqdn(name)
	var worst answer
	for _, server := range u.servers {
		m := new(dns.Msg)
		m.SetQuestion(fqdn, qtype)
		m.RecursionDesired = true
		m.SetEdns0(ednsSize, false)

		r, err := u.exchange(ctx, "udp", server, m)
		if err == nil && r.Truncated {
			r, err = u.exchange(ctx, "tcp", server, m)
		}
		var a answer
		if err != nil {
			a = answer{kind: classify(err), err: fmt.Errorf("server %s: %w", server, err)}
		} else {
			a = interpret(r, fqdn, qtype, server)
		}
		if !transient(a.kind) {
			return a
		}
		if worst.kind == "" || kindRank(a.kind) > kindRank(worst.kind) {
			worst = a
		}
		if ctx.Err() != nil {
			break
		}
	}
	return worst
}

// exchange sends one message. Over UDP it is sent again, on the same socket, when
// half the timeout passes without an answer, and the resend waits the other half
// from when it goes out: a lost datagram (a server's receive buffer overflowing
// under a burst of prefetches, say) costs half a timeout, not a failed name; an
// answer to either copy is taken. The connection is closed when ctx ends so Close
// never waits for a full per-query timeout.
func (u *upstream) exchange(ctx context.Context, network, server string, m *dns.Msg) (*dns.Msg, error) {
	cl := &dns.Client{Net: network, Timeout: u.timeout}
	u.messages.Add(1)
	conn, err := cl.DialContext(ctx, server)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	tries := 1
	if network == "udp" {
		tries = 2
	}
	var r *dns.Msg
	for try := 1; try <= tries; try++ {
		// Each try has its own share of the timeout from when it starts, not what
		// the earlier tries left: a goroutine the scheduler resumed late would
		// otherwise find the deadline gone and never send the resend, and a lost
		// datagram on a busy box would fail a host that answers. The tries together
		// still take the timeout, plus whatever the scheduler adds.
		actx, cancel := context.WithTimeout(ctx, u.timeout/time.Duration(tries))
		r, _, err = cl.ExchangeWithConnContext(actx, m, conn)
		cancel()
		var ne net.Error
		if err == nil || ctx.Err() != nil || !errors.As(err, &ne) || !ne.Timeout() || try == tries {
			break
		}
		if u.beforeResend != nil {
			u.beforeResend()
		}
		u.messages.Add(1)
	}
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return r, err
}

// classify maps a transport or parse error onto a Kind.
func classify(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return KindTimeout
	case errors.As(err, &ne) && ne.Timeout():
		return KindTimeout
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.EADDRNOTAVAIL):
		// Nothing listens there: an unreachable server, reported as such.
		return KindNoServers
	}
	// Whatever came back could not be parsed as a DNS message (short, garbage, bad
	// rdata, closed stream mid-message).
	return KindMalformed
}

// interpret reads a parsed reply: checks that it answers the question asked, then
// maps the rcode and collects the addresses at the end of any CNAME chain.
func interpret(r *dns.Msg, fqdn string, qtype uint16, server string) answer {
	if !r.Response || len(r.Question) != 1 || !strings.EqualFold(r.Question[0].Name, fqdn) || r.Question[0].Qtype != qtype {
		return answer{kind: KindMalformed, err: fmt.Errorf("server %s: reply does not answer %s %s", server, fqdn, dns.TypeToString[qtype])}
	}
	switch r.Rcode {
	case dns.RcodeSuccess:
	case dns.RcodeNameError:
		a := negativeTTL(r)
		a.kind, a.err = KindNXDomain, fmt.Errorf("server %s: NXDOMAIN", server)
		return a
	case dns.RcodeServerFailure:
		return answer{kind: KindServFail, err: fmt.Errorf("server %s: SERVFAIL", server)}
	case dns.RcodeRefused, dns.RcodeNotImplemented:
		return answer{kind: KindRefused, err: fmt.Errorf("server %s: %s", server, dns.RcodeToString[r.Rcode])}
	case dns.RcodeFormatError:
		return answer{kind: KindMalformed, err: fmt.Errorf("server %s: FORMERR", server)}
	default:
		return answer{kind: KindServFail, err: fmt.Errorf("server %s: rcode %d", server, r.Rcode)}
	}

	// Follow the CNAME chain from the question name; the TTL of the answer is the
	// smallest TTL of the records used.
	owners := map[string]bool{strings.ToLower(fqdn): true}
	var ttl uint32 = ^uint32(0)
	var addrs []netip.Addr
	for grew := true; grew; {
		grew = false
		for _, rr := range r.Answer {
			h := rr.Header()
			if !owners[strings.ToLower(h.Name)] {
				continue
			}
			if c, ok := rr.(*dns.CNAME); ok && !owners[strings.ToLower(c.Target)] {
				owners[strings.ToLower(c.Target)] = true
				ttl = min(ttl, h.Ttl)
				grew = true
			}
		}
	}
	for _, rr := range r.Answer {
		if !owners[strings.ToLower(rr.Header().Name)] {
			continue
		}
		var ip net.IP
		switch v := rr.(type) {
		case *dns.A:
			if qtype == dns.TypeA {
				ip = v.A
			}
		case *dns.AAAA:
			if qtype == dns.TypeAAAA {
				ip = v.AAAA
			}
		}
		if addr, ok := netip.AddrFromSlice(ip); ok && len(addrs) < maxAddrs {
			addr = addr.Unmap()
			if !contains(addrs, addr) {
				addrs = append(addrs, addr)
			}
			ttl = min(ttl, rr.Header().Ttl)
		}
	}
	if len(addrs) == 0 {
		a := negativeTTL(r)
		a.kind, a.err = KindNoAddress, fmt.Errorf("server %s: no %s record", server, dns.TypeToString[qtype])
		return a
	}
	return answer{addrs: addrs, ttl: time.Duration(ttl) * time.Second}
}

// negativeTTL is the RFC 2308 §5 TTL of a negative answer: the smaller of the SOA
// record's TTL and its MINIMUM field, from the authority section.
func negativeTTL(r *dns.Msg) answer {
	for _, rr := range r.Ns {
		if soa, ok := rr.(*dns.SOA); ok {
			return answer{ttl: time.Duration(min(soa.Hdr.Ttl, soa.Minttl)) * time.Second, soa: true}
		}
	}
	return answer{}
}

func contains(addrs []netip.Addr, a netip.Addr) bool {
	for _, b := range addrs {
		if a == b {
			return true
		}
	}
	return false
}
