package dnscache

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/crawlconsole/crawlconsole/engine/internal/testclock"
)

// zone is how the test DNS server answers one name.
type zone struct {
	a, aaaa    []string
	ttl        uint32
	rcode      int           // dns.RcodeSuccess unless set
	soaTTL     uint32        // SOA in the authority section of negative answers (0: none)
	soaMin     uint32        //
	delay      time.Duration // upstream latency
	hold       chan struct{} // if set, answers wait until it is closed
	truncUDP   bool          // UDP answers come back truncated (TC) and empty
	junk       bool          // reply with an unparsable message
	wrongName  bool          // reply about another name
	silent     bool          // never reply
	silentAAAA bool          // never reply to AAAA queries
	lose       int           // the first lose queries of each type get no reply (lost datagrams)
}

// testServer is a miekg/dns server on 127.0.0.1 (UDP and TCP on one port) with
// controllable answers that counts what it is asked.
type testServer struct {
	addr string

	mu        sync.Mutex
	zones     map[string]zone   // by lower-case FQDN
	counts    map[string]int    // "name/TYPE/proto" -> queries
	active    map[string]int    // names being answered now
	maxActive int               // most distinct names answered at once
	seen      map[string]string // lower-case FQDN -> name as received
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	s := &testServer{zones: map[string]zone{}, counts: map[string]int{}, active: map[string]int{}, seen: map[string]string{}}
	var pc net.PacketConn
	var ln net.Listener
	for attempt := 0; ; attempt++ {
		var err error
		pc, err = net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln, err = net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			break
		}
		pc.Close()
		if attempt == 20 {
			t.Fatalf("no free UDP+TCP port pair: %v", err)
		}
	}
	s.addr = pc.LocalAddr().String()
	udp := &dns.Server{PacketConn: pc, Handler: s}
	tcp := &dns.Server{Listener: ln, Handler: s}
	started := make(chan struct{}, 2)
	udp.NotifyStartedFunc = func() { started <- struct{}{} }
	tcp.NotifyStartedFunc = func() { started <- struct{}{} }
	go udp.ActivateAndServe()
	go tcp.ActivateAndServe()
	<-started
	<-started
	t.Cleanup(func() {
		s.mu.Lock()
		for name, z := range s.zones { // release held answers so the servers can stop
			if z.hold != nil {
				select {
				case <-z.hold:
				default:
					close(z.hold)
				}
				z.hold = nil
				s.zones[name] = z
			}
		}
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		udp.ShutdownContext(ctx)
		tcp.ShutdownContext(ctx)
	})
	return s
}

// set makes the server answer name (any case, with or without final dot) as z says.
func (s *testServer) set(name string, z zone) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.zones[strings.ToLower(dns.Fqdn(name))] = z
}

// queries counts the queries of one type for name, over UDP and TCP.
func (s *testServer) queries(name string, qtype uint16) int {
	return s.count(name, qtype, "udp") + s.count(name, qtype, "tcp")
}

func (s *testServer) count(name string, qtype uint16, proto string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[strings.ToLower(dns.Fqdn(name))+"/"+dns.TypeToString[qtype]+"/"+proto]
}

// total counts every query received.
func (s *testServer) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.counts {
		n += c
	}
	return n
}

// activeNames is how many distinct names are being answered right now.
func (s *testServer) activeNames() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.active)
}

func (s *testServer) peakActive() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxActive
}

// ServeDNS answers one query according to the zone of its name.
func (s *testServer) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	if len(r.Question) != 1 {
		return
	}
	q := r.Question[0]
	name := strings.ToLower(q.Name)
	proto := "udp"
	if _, ok := w.RemoteAddr().(*net.TCPAddr); ok {
		proto = "tcp"
	}
	s.mu.Lock()
	s.counts[name+"/"+dns.TypeToString[q.Qtype]+"/"+proto]++
	if z := s.zones[name]; s.counts[name+"/"+dns.TypeToString[q.Qtype]+"/"+proto] <= z.lose {
		s.mu.Unlock()
		return
	}
	s.seen[name] = q.Name
	z, known := s.zones[name]
	s.active[name]++
	s.maxActive = max(s.maxActive, len(s.active))
	s.mu.Unlock()
	// The name stops being active before the reply is written, so the client can
	// never move on to its next name while this one still counts.
	var once sync.Once
	finish := func() {
		once.Do(func() {
			s.mu.Lock()
			if s.active[name]--; s.active[name] == 0 {
				delete(s.active, name)
			}
			s.mu.Unlock()
		})
	}
	defer finish()
	w = finishingWriter{w, finish}

	if z.hold != nil {
		<-z.hold
	}
	if z.delay > 0 {
		time.Sleep(z.delay) // simulated upstream latency, not test synchronisation
	}
	if z.silent || z.silentAAAA && q.Qtype == dns.TypeAAAA {
		return
	}
	if z.junk {
		// The right ID, then a header promising records that never come.
		w.Write([]byte{byte(r.Id >> 8), byte(r.Id), 0x81, 0x80, 0, 1, 0, 3, 0, 0, 0, 0, 3, 'f', 'o'})
		return
	}
	m := new(dns.Msg)
	m.SetReply(r)
	if !known {
		m.Rcode = dns.RcodeNameError
		m.Ns = []dns.RR{soa(q.Name, 300, 300)}
		w.WriteMsg(m)
		return
	}
	m.Rcode = z.rcode
	if z.wrongName {
		m.Question[0].Name = "someone-else.example."
	}
	if z.rcode == dns.RcodeSuccess {
		ips := z.a
		if q.Qtype == dns.TypeAAAA {
			ips = z.aaaa
		}
		for _, ip := range ips {
			rr, err := dns.NewRR(q.Name + " " + strconv.FormatUint(uint64(z.ttl), 10) + " IN " + dns.TypeToString[q.Qtype] + " " + ip)
			if err != nil {
				panic(err)
			}
			m.Answer = append(m.Answer, rr)
		}
	}
	if len(m.Answer) == 0 && z.soaTTL > 0 {
		m.Ns = []dns.RR{soa(q.Name, z.soaTTL, z.soaMin)}
	}
	if z.truncUDP && proto == "udp" {
		m.Truncated = true
		m.Answer = nil
	}
	w.WriteMsg(m)
}

// finishingWriter runs finish before anything is written.
type finishingWriter struct {
	dns.ResponseWriter
	finish func()
}

func (f finishingWriter) WriteMsg(m *dns.Msg) error   { f.finish(); return f.ResponseWriter.WriteMsg(m) }
func (f finishingWriter) Write(b []byte) (int, error) { f.finish(); return f.ResponseWriter.Write(b) }

func soa(name string, ttl, minimum uint32) dns.RR {
	return &dns.SOA{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: ttl},
		Ns: "ns.example.", Mbox: "hostmaster.example.", Serial: 1, Refresh: 3600, Retry: 600, Expire: 86400, Minttl: minimum}
}

// newFakeClock is the injectable Options.Now: TTLs and expiry move only when a
// test advances it.
func newFakeClock() *testclock.Clock {
	return testclock.New(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
}

func testOptions(srv *testServer, clock *testclock.Clock) Options {
	o := DefaultOptions()
	o.Servers = []string{srv.addr}
	o.Timeout = 3 * time.Second
	o.SlowThreshold = 2 * time.Second
	o.MinTTL, o.MaxTTL = 60*time.Second, time.Hour
	o.NegMinTTL, o.NegMaxTTL = 30*time.Second, time.Hour
	o.RetryBase, o.RetryMax = 10*time.Second, 10*time.Minute
	o.SweepEvery = time.Second
	o.Now = clock.Now
	return o
}

func newTestCache(t *testing.T, o Options) *Cache {
	t.Helper()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// waitFor polls cond until it holds, failing after a deadline generous enough for a
// loaded two-core box running the whole suite (a guard, never what decides a test).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
