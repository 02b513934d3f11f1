package dnscache

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// N concurrent lookups of one name reach the sandbox's DNS server as one resolution:
// one A and one AAAA query, as the server itself counts them (M5: no duplicate
// lookups while one is in flight).
func TestConcurrentLookupsOneQueryAtTheSandbox(t *testing.T) {
	cfg := sandbox.DefaultConfig()
	cfg.Hosts = 8
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = 0, 20*time.Millisecond // far below the resend-at-half-timeout
	sb, err := sandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	host := sb.Info().Sites[0].Hosts[0]
	o := DefaultOptions()
	o.Servers = []string{sb.DNSAddr()}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.LookupAddrs(context.Background(), host); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := sb.Truth().DNSQueries()[host]; n != 2 {
		t.Fatalf("50 concurrent lookups of %s: the sandbox DNS server saw %d queries, want 2 (one A, one AAAA)", host, n)
	}
}
