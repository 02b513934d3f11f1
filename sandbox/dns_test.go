package sandbox

import (
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func dnsQuery(t *testing.T, sb *Sandbox, net, name string, qtype uint16, timeout time.Duration) (*dns.Msg, time.Duration, error) {
	t.Helper()
	c := &dns.Client{Net: net, Timeout: timeout}
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	return c.Exchange(m, sb.DNSAddr())
}

func TestDNSAnswersFailuresAndTTLs(t *testing.T) {
	t.Parallel()
	const scale = 10
	sb := sbStart(t, func(c *Config) {
		c.Scale = scale
		c.DNS.LatencyMin, c.DNS.LatencyMax = 0, time.Millisecond
		c.DNS.NXDomainShare, c.DNS.ServFailShare, c.DNS.TimeoutShare = 0.1, 0.1, 0.1
	})
	w := sb.Web()
	want := map[uint32]bool{}
	for _, ttl := range sb.Config().DNS.TTLs {
		want[uint32(w.realSeconds(ttl))] = true
	}
	t.Run("every host resolves to loopback with a scaled TTL", func(t *testing.T) {
		seen := map[uint32]int{}
		for _, s := range w.Sites() {
			for _, h := range s.Hosts {
				m, _, err := dnsQuery(t, sb, "udp", h, dns.TypeA, 5*time.Second)
				if err != nil || m.Rcode != dns.RcodeSuccess || len(m.Answer) != 1 {
					t.Fatalf("%s: %v %v", h, err, m)
				}
				a := m.Answer[0].(*dns.A)
				if !a.A.IsLoopback() || !want[a.Hdr.Ttl] {
					t.Fatalf("%s: A %v TTL %d; want 127.0.0.1 and a TTL in %v", h, a.A, a.Hdr.Ttl, want)
				}
				seen[a.Hdr.Ttl]++
			}
		}
		if len(seen) < 2 {
			t.Errorf("TTLs %v: want a mix", seen)
		}
	})
	dead := map[string][]string{}
	for name, kind := range w.DeadHosts() {
		dead[kind] = append(dead[kind], name)
	}
	for _, k := range dead {
		sort.Strings(k)
	}
	t.Run("NXDOMAIN carries the zone SOA with the scaled negative TTL", func(t *testing.T) {
		if len(dead["nxdomain"]) == 0 {
			t.Fatal("no NXDOMAIN names")
		}
		for _, name := range append(dead["nxdomain"], "no-such-host."+w.Sites()[0].Domain) {
			m, _, err := dnsQuery(t, sb, "udp", name, dns.TypeA, 5*time.Second)
			if err != nil || m.Rcode != dns.RcodeNameError || len(m.Ns) != 1 {
				t.Fatalf("%s: %v %v", name, err, m)
			}
			soa, ok := m.Ns[0].(*dns.SOA)
			if !ok || soa.Minttl != uint32(w.realSeconds(sb.Config().DNS.NegativeTTL)) {
				t.Fatalf("%s: authority %v", name, m.Ns)
			}
		}
	})
	t.Run("SERVFAIL", func(t *testing.T) {
		for _, name := range dead["servfail"] {
			m, _, err := dnsQuery(t, sb, "udp", name, dns.TypeA, 5*time.Second)
			if err != nil || m.Rcode != dns.RcodeServerFailure {
				t.Fatalf("%s: %v %v", name, err, m)
			}
		}
	})
	t.Run("timeouts never answer", func(t *testing.T) {
		if len(dead["timeout"]) == 0 {
			t.Fatal("no timeout names")
		}
		for _, name := range dead["timeout"] {
			if m, _, err := dnsQuery(t, sb, "udp", name, dns.TypeA, 300*time.Millisecond); err == nil {
				t.Fatalf("%s answered: %v", name, m)
			}
		}
	})
	t.Run("AAAA is NODATA, foreign names are refused, TCP works", func(t *testing.T) {
		www := w.Sites()[0].Hosts[0]
		if m, _, err := dnsQuery(t, sb, "udp", www, dns.TypeAAAA, 5*time.Second); err != nil || m.Rcode != dns.RcodeSuccess || len(m.Answer) != 0 {
			t.Fatalf("AAAA %s: %v %v", www, err, m)
		}
		if m, _, err := dnsQuery(t, sb, "udp", "example.org", dns.TypeA, 5*time.Second); err != nil || m.Rcode != dns.RcodeRefused {
			t.Fatalf("example.org: %v %v", err, m)
		}
		if m, _, err := dnsQuery(t, sb, "tcp", www, dns.TypeA, 5*time.Second); err != nil || len(m.Answer) != 1 {
			t.Fatalf("TCP %s: %v %v", www, err, m)
		}
	})
	t.Run("dead names are linked from entry pages", func(t *testing.T) {
		linked := 0
		for _, p := range w.Pages() {
			if p.Kind == KindDead {
				linked++
				if par, ok := w.Page(p.Parent); !ok || par.Kind != KindEntry {
					t.Errorf("dead %s: parent %s", p.URL, p.Parent)
				}
			}
		}
		if linked != len(w.DeadHosts()) {
			t.Errorf("%d dead pages, %d dead names", linked, len(w.DeadHosts()))
		}
	})
}

func TestDNSLatencyAndQueryCounts(t *testing.T) {
	t.Parallel() // its own sandbox; it waits out the configured latencies, asserting their least time and spread
	const lo, hi = 30 * time.Millisecond, 90 * time.Millisecond
	sb := sbStart(t, func(c *Config) { c.DNS.LatencyMin, c.DNS.LatencyMax = lo, hi })
	names := sb.Info().Sites[0].Hosts
	// Four lanes of ten queries in a row: quick, yet a CPU stall on a loaded machine
	// can only bunch up the few queries in flight at that moment, not all of them.
	const lanes, perLane = 4, 10
	rtts := make([]time.Duration, lanes*perLane)
	errs := make([]error, lanes*perLane)
	sent := map[string]int{}
	for i := range rtts {
		sent[names[i%len(names)]]++
	}
	var wg sync.WaitGroup
	for l := 0; l < lanes; l++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := l; i < len(rtts); i += lanes {
				_, rtts[i], errs[i] = dnsQuery(t, sb, "udp", names[i%len(names)], dns.TypeA, 10*time.Second)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("query %d: %v", i, err)
		}
	}
	sort.Slice(rtts, func(i, j int) bool { return rtts[i] < rtts[j] })
	if rtts[0] < lo {
		t.Errorf("fastest answer %v, below LatencyMin %v", rtts[0], lo)
	}
	// 40 uniform draws over 60 ms all within 20 ms of each other: probability < 1e-15.
	if spread := rtts[len(rtts)-1] - rtts[0]; spread < (hi-lo)/3 {
		t.Errorf("latencies %v..%v: no spread, want a distribution over %v..%v", rtts[0], rtts[len(rtts)-1], lo, hi)
	}
	if med := rtts[len(rtts)/2]; med > hi+time.Second {
		t.Errorf("median latency %v, far above LatencyMax %v", med, hi)
	}
	got := sb.Truth().DNSQueries()
	for name, n := range sent {
		if got[name] != n {
			t.Errorf("%s: truth counts %d queries, sent %d", name, got[name], n)
		}
	}
	if sb.Truth().DNSTotal() != 40 {
		t.Errorf("total %d, sent 40", sb.Truth().DNSTotal())
	}
}
