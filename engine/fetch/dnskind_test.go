package fetch

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// TestNamesThatDoNotResolveCountAsDNS: a crawl fetches through an egress's transport,
// which resolves with the DNS cache; a name that does not resolve is a dns error in
// the stats and in "robots.txt not fetched (dns)", not "other".
func TestNamesThatDoNotResolveCountAsDNS(t *testing.T) {
	for _, c := range []struct {
		name     string
		resolve  func(context.Context, string) ([]netip.Addr, error)
		notFound bool // a definite answer: not retried
	}{
		{"nxdomain", func(_ context.Context, host string) ([]netip.Addr, error) {
			return nil, &dnscache.LookupError{Host: host, Kind: dnscache.KindNXDomain}
		}, true},
		{"servfail", func(_ context.Context, host string) ([]netip.Addr, error) {
			return nil, &dnscache.LookupError{Host: host, Kind: dnscache.KindServFail}
		}, false},
		{"no addresses", func(context.Context, string) ([]netip.Addr, error) { return nil, nil }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			direct, err := egress.ParseSpec("bind:127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			tr := egress.New(direct).Transport(egress.TransportConfig{Resolve: c.resolve})
			g, err := NewGuard(nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{UserAgent: "t", ConnectTimeout: time.Second, RequestTimeout: 5 * time.Second, MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}}
			f := New(context.Background(), cfg, &Dialer{Guard: g}, tr)
			t.Cleanup(f.Close)
			_, err = f.Fetch("http://gone.example/page", nil)
			if got := Kind(err); got != KindDNS {
				t.Errorf("page: kind %q (%v), want %q", got, err, KindDNS)
			}
			if NameNotFound(err) != c.notFound {
				t.Errorf("page: NameNotFound = %v (%v), want %v", !c.notFound, err, c.notFound)
			}
			r := f.FetchRobots(context.Background(), "http://gone.example", "t")
			if !strings.Contains(r.Note, "robots.txt not fetched (dns)") {
				t.Errorf("robots: %q, want it to say robots.txt not fetched (dns)", r.Note)
			}
		})
	}
}

// TestALookupCutShortIsNoDNSError: a lookup ended by the crawl's stop or by the
// request's deadline counts as canceled or timeout, as the same cut elsewhere does,
// not as a DNS failure.
func TestALookupCutShortIsNoDNSError(t *testing.T) {
	for _, c := range []struct {
		cause error
		want  string
	}{{context.Canceled, KindCanceled}, {context.DeadlineExceeded, KindTimeout}} {
		err := &url.Error{Op: "Get", URL: "http://a.test/", Err: &dnscache.LookupError{Host: "a.test", Kind: dnscache.KindTimeout, Err: c.cause}}
		if got := Kind(err); got != c.want {
			t.Errorf("a lookup cut by %v: kind %q, want %q", c.cause, got, c.want)
		}
	}
}
