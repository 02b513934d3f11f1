package dnscache

import (
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func TestMalformedAndTruncatedAnswers(t *testing.T) {
	cases := []struct {
		name     string
		zone     zone
		wantKind string
		wantTCP  int
	}{
		{"garbage bytes", zone{junk: true}, KindMalformed, 0},
		{"answer for another name", zone{wrongName: true, a: []string{"192.0.2.1"}, ttl: 60}, KindMalformed, 0},
		{"FORMERR", zone{rcode: dns.RcodeFormatError}, KindMalformed, 0},
		{"REFUSED", zone{rcode: dns.RcodeRefused}, KindRefused, 0},
		{"truncated over UDP, complete over TCP", zone{truncUDP: true, a: []string{"192.0.2.77"}, ttl: 60}, "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTestServer(t)
			clock := newFakeClock()
			srv.set("odd.example.com", tc.zone)
			c := newTestCache(t, testOptions(srv, clock))
			addrs, err := lookup(t, c, "odd.example.com")
			if kindOf(err) != tc.wantKind {
				t.Fatalf("err = %v, want kind %q", err, tc.wantKind)
			}
			if tc.wantKind == "" && (len(addrs) != 1 || addrs[0].String() != "192.0.2.77") {
				t.Fatalf("addrs = %v, want the TCP answer", addrs)
			}
			if n := srv.count("odd.example.com", dns.TypeA, "tcp"); n != tc.wantTCP {
				t.Fatalf("%d TCP queries, want %d", n, tc.wantTCP)
			}
		})
	}
}

func TestNamesRejectedBeforeAnyQuery(t *testing.T) {
	label64 := strings.Repeat("a", 64)
	long := strings.Repeat("abcdefghi.", 25) + "example" // 257 bytes
	cases := []struct {
		name, host, kind string
	}{
		{"label over 63", label64 + ".example.com", KindNameTooLong},
		{"name over 253", long, KindNameTooLong},
		{"megabyte name", strings.Repeat("a.", 1<<19), KindNameTooLong},
		{"empty label", "www..example.com", KindMalformed},
		{"space", "www example.com", KindMalformed},
		{"empty", "", KindMalformed},
		{"bad IDN", "xn--a.example\u200d.com", KindMalformed},
	}
	srv := newTestServer(t)
	c := newTestCache(t, testOptions(srv, newFakeClock()))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lookup(t, c, tc.host)
			if kindOf(err) != tc.kind {
				t.Fatalf("err = %v, want kind %s", err, tc.kind)
			}
			if len(err.Error()) > 300 {
				t.Fatalf("error message of %d bytes; absurd names must be clipped", len(err.Error()))
			}
		})
	}
	if n := srv.total(); n != 0 {
		t.Fatalf("%d queries reached the server for names that cannot exist", n)
	}
	if s := c.Stats(); s.Rejected != int64(len(cases)) || s.Lookups != s.Rejected {
		t.Fatalf("stats %+v: want every lookup counted as rejected", s)
	}
	// The limits themselves are fine.
	ok := strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61)
	srv.set(ok, zone{a: []string{"192.0.2.9"}, ttl: 60})
	mustAddrs(t, c, ok, "192.0.2.9")
}

func TestIDNQueriedAsPunycodeAndSharesEntry(t *testing.T) {
	srv := newTestServer(t)
	srv.set("xn--bcher-kva.example", zone{a: []string{"192.0.2.44"}, ttl: 300})
	c := newTestCache(t, testOptions(srv, newFakeClock()))

	mustAddrs(t, c, "Bücher.example.", "192.0.2.44")
	for _, spelling := range []string{"bücher.example", "XN--BCHER-KVA.example", "xn--bcher-kva.example."} {
		mustAddrs(t, c, spelling, "192.0.2.44")
	}
	if n := srv.queries("xn--bcher-kva.example", dns.TypeA); n != 1 {
		t.Fatalf("%d A queries, want 1 shared by every spelling", n)
	}
	if srv.total() != 2 { // A and AAAA
		t.Fatalf("server saw %d queries; the Unicode name must never be sent", srv.total())
	}
}

func TestIPLiteralsAreNotLookups(t *testing.T) {
	srv := newTestServer(t)
	c := newTestCache(t, testOptions(srv, newFakeClock()))
	for _, host := range []string{"127.0.0.1", "::1", "[2001:db8::1]", "::ffff:192.0.2.1"} {
		addrs, err := lookup(t, c, host)
		if err != nil || len(addrs) != 1 {
			t.Fatalf("%s: %v %v", host, addrs, err)
		}
	}
	if s := c.Stats(); s.Lookups != 0 || srv.total() != 0 {
		t.Fatalf("IP literals counted: %+v, %d queries", s, srv.total())
	}
}

func TestServerFailover(t *testing.T) {
	dead := closedUDPAddr(t)
	live := newTestServer(t)
	live.set("www.example.com", zone{a: []string{"192.0.2.3"}, ttl: 60})
	sick := newTestServer(t)
	sick.set("www.example.com", zone{rcode: dns.RcodeServerFailure})

	cases := []struct {
		name     string
		servers  []string
		wantKind string
	}{
		{"dead then live", []string{dead, live.addr}, ""},
		{"SERVFAIL then live", []string{sick.addr, live.addr}, ""},
		{"only dead", []string{dead}, KindNoServers},
		{"dead and sick: the more telling kind", []string{dead, sick.addr}, KindServFail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions(live, newFakeClock())
			o.Servers = tc.servers
			o.Timeout = 500 * time.Millisecond
			c := newTestCache(t, o)
			addrs, err := lookup(t, c, "www.example.com")
			if kindOf(err) != tc.wantKind {
				t.Fatalf("err = %v, want kind %q", err, tc.wantKind)
			}
			if tc.wantKind == "" && len(addrs) != 1 {
				t.Fatalf("addrs = %v", addrs)
			}
		})
	}
}

func closedUDPAddr(t *testing.T) string {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	return addr
}

func TestNoServersAndBadServerOptions(t *testing.T) {
	o := DefaultOptions()
	o.ResolvConf = t.TempDir() + "/missing-resolv.conf"
	c := newTestCache(t, o)
	if _, err := lookup(t, c, "www.example.com"); kindOf(err) != KindNoServers {
		t.Fatalf("err = %v, want no_servers", err)
	}

	for _, bad := range []string{"dns.example.com", "127.0.0.1:99999", "[::1", ""} {
		o := DefaultOptions()
		o.Servers = []string{bad}
		if _, err := New(o); err == nil {
			t.Errorf("New accepted DNS server %q", bad)
		}
	}
	o = DefaultOptions()
	o.Servers = []string{"127.0.0.1", "[::1]:5353", "::1"}
	c2 := newTestCache(t, o)
	if got := c2.opts.Servers; !slices.Equal(got, []string{"127.0.0.1:53", "[::1]:5353", "[::1]:53"}) {
		t.Fatalf("servers = %v", got)
	}
}

func TestGarbageServerNeverPanics(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	rng := rand.New(rand.NewPCG(4, 2))
	var mu sync.Mutex
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 2 {
				continue
			}
			mu.Lock()
			reply := make([]byte, rng.IntN(600))
			for i := range reply {
				reply[i] = byte(rng.Uint32())
			}
			if len(reply) >= 2 && rng.IntN(4) > 0 { // mostly with the right ID, so it gets parsed
				reply[0], reply[1] = buf[0], buf[1]
			}
			mu.Unlock()
			pc.WriteTo(reply, from)
		}
	}()
	o := DefaultOptions()
	o.Servers = []string{pc.LocalAddr().String()}
	o.Timeout = 100 * time.Millisecond
	o.Now = newFakeClock().Now
	c := newTestCache(t, o)
	for i := range 30 {
		host := fmt.Sprintf("h%d.example.com", i)
		_, err := lookup(t, c, host)
		if k := kindOf(err); k != KindMalformed && k != KindTimeout {
			t.Fatalf("%s: %v, want malformed or timeout", host, err)
		}
	}
}

func TestAnswerSizeCapped(t *testing.T) {
	r := new(dns.Msg)
	r.SetQuestion("big.example.com.", dns.TypeA)
	r.Response = true
	for i := range 200 {
		r.Answer = append(r.Answer, mustRR(t, fmt.Sprintf("big.example.com. 60 IN A 10.0.%d.%d", i/250, i%250)))
	}
	if a := interpret(r, "big.example.com.", dns.TypeA, "test"); len(a.addrs) != maxAddrs {
		t.Fatalf("kept %d addresses, want %d", len(a.addrs), maxAddrs)
	}
}
