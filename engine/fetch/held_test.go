package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// TestASameHostRedirectHopToAHostHeldDuringItsPauseIsNotSent: a same-host redirect
// hop waits the politeness pause (lanes.delay_min..max, seconds) before it leaves;
// the operator may hold the host meanwhile. The hop is then not sent: a page's
// 3xx stands (the front records the redirect and queues its target, which waits
// for the hold's end), robots.txt's is unreachable for now (HeldError), a
// rendered page's resource fails. The host sees no request after the hold.
func TestASameHostRedirectHopToAHostHeldDuringItsPauseIsNotSent(t *testing.T) {
	var held atomic.Bool
	var after atomic.Int32 // requests the server read after the hold
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if held.Load() {
			after.Add(1)
		}
		switch r.URL.Path {
		case "/a", "/robots.txt", "/res":
			http.Redirect(w, r, r.URL.Path+"-moved", http.StatusFound)
		case "/robots.txt-moved":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>moved here</html>")
		}
	}))
	defer srv.Close()
	start := func(t *testing.T) *Fetcher {
		held.Store(false)
		after.Store(0)
		cfg := Config{UserAgent: "crawlconsole-test", ConnectTimeout: 2 * time.Second, RequestTimeout: 30 * time.Second,
			MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"},
			RedirectPause: func() time.Duration { held.Store(true); return 0 }, // the hold comes during the hop's pause
			Held:          func(string) bool { return held.Load() }}
		f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
		return f
	}
	t.Run("page", func(t *testing.T) {
		f := start(t)
		res, err := f.Fetch(srv.URL+"/a", nil)
		if after.Load() != 0 {
			t.Fatalf("the host, held during the redirect hop's pause, was asked %d times after the hold", after.Load())
		}
		if res == nil || res.Status != http.StatusFound || res.Header.Get("Location") != "/a-moved" {
			t.Fatalf("fetch: %+v, %v; want the 302 to /a-moved standing (its target queued, to wait for the hold's end)", res, err)
		}
	})
	t.Run("robots.txt", func(t *testing.T) {
		f := start(t)
		r := f.FetchRobots(t.Context(), srv.URL, "crawlconsole")
		if after.Load() != 0 {
			t.Fatalf("the host, held during robots.txt's redirect hop's pause, was asked %d times after the hold", after.Load())
		}
		if _, ok := errors.AsType[*HeldError](r.Err); !ok || !r.Unreachable {
			t.Fatalf("robots.txt unreachable %v (%v); want unreachable for a HeldError", r.Unreachable, r.Err)
		}
	})
	t.Run("a rendered page's resource", func(t *testing.T) {
		f := start(t)
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+"/res", nil)
		if err != nil {
			t.Fatal(err)
		}
		f.Resource(t.Context(), req)
		if after.Load() != 0 {
			t.Fatalf("the host, held during a resource's redirect hop's pause, was asked %d times after the hold", after.Load())
		}
	})
}

// lookups counts the names a resolver was asked for.
type lookups struct {
	Resolver
	mu    sync.Mutex
	names map[string]int
}

func (l *lookups) LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	l.mu.Lock()
	l.names[host]++
	l.mu.Unlock()
	return l.Resolver.LookupAddrs(ctx, host)
}

// TestARedirectToAHeldHostDoesNotLookItsNameUp: a page redirecting to another
// host is recorded as the redirect and its target queued (the lane rule decides
// who fetches it); the SSRF guard checks the target's addresses at once, but not
// those of a host the operator holds, which gets no traffic from us, its name's
// lookup included. The guard judges it when its own task is fetched.
func TestARedirectToAHeldHostDoesNotLookItsNameUp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://held.test/moved", http.StatusMovedPermanently)
	}))
	defer srv.Close()
	res := &lookups{Resolver: mapResolver{"held.test": {netip.MustParseAddr("127.0.0.1")}}, names: map[string]int{}}
	cfg := Config{UserAgent: "crawlconsole-test", ConnectTimeout: 2 * time.Second, RequestTimeout: 30 * time.Second,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"},
		Held: func(host string) bool { return host == "held.test" }}
	f, _ := testFetcher(t, res, []string{"127.0.0.0/8"}, cfg)
	got, err := f.Fetch(srv.URL+"/a", nil)
	if got == nil || got.Status != http.StatusMovedPermanently || got.Header.Get("Location") != "http://held.test/moved" {
		t.Fatalf("fetch: %+v, %v; want the 301 to http://held.test/moved standing (its target queued, to wait for the hold's end)", got, err)
	}
	res.mu.Lock()
	defer res.mu.Unlock()
	if n := res.names["held.test"]; n > 0 {
		t.Fatalf("held.test, held by the operator, had its name looked up %d times for a redirect to it", n)
	}
}

// TestAResendToAHostHeldMeanwhileIsNotSent: when a kept-alive connection fails
// after the server read a request, net/http sends the request again on a new
// connection by itself, below every check the crawl makes before a request
// leaves. The operator may have held the host meanwhile (the server hung up as
// its owner asked to be left alone): the resend is then not sent, on the direct
// transport as on an egress's, and the fetch answers a HeldError (the lane puts
// the task back to wait for the hold's end). b going out on a's connection is
// keep-alive at work: without it, b would be answered on a connection of its own.
func TestAResendToAHostHeldMeanwhileIsNotSent(t *testing.T) {
	bind, err := egress.ParseSpec("bind:127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, route := range []string{"direct", "egress"} {
		t.Run(route, func(t *testing.T) {
			var held atomic.Bool
			srv := newHangUpServer(t)
			srv.hangingUp = func() { held.Store(true) }
			cfg := Config{UserAgent: "crawlconsole-test", ConnectTimeout: 2 * time.Second, RequestTimeout: 30 * time.Second,
				MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"},
				Held: func(string) bool { return held.Load() }}
			g, err := NewGuard([]string{"127.0.0.0/8"})
			if err != nil {
				t.Fatal(err)
			}
			d := &Dialer{Resolver: mapResolver{}, Guard: g, Timeout: time.Second}
			var tr *http.Transport
			if route == "egress" {
				tr = egress.New(bind).Transport(egress.TransportConfig{Refuse: HeldRefusal(cfg.Held)})
			}
			f := New(t.Context(), cfg, d, tr)
			t.Cleanup(f.Close)
			base := "http://" + srv.ln.Addr().String()
			if _, err := f.Fetch(base+"/a", nil); err != nil { // opens the connection
				t.Fatal(err)
			}
			_, err = f.Fetch(base+"/b", nil) // on the kept-alive connection: read, hung up, the host held
			if n := len(srv.times()); n != 2 {
				t.Fatalf("the server saw %d requests, want 2 (a, then b hung up as the host was held): net/http sent b again to a held host", n)
			}
			if _, ok := errors.AsType[*HeldError](err); !ok {
				t.Fatalf("fetch of b: %v; want a HeldError (the task waits for the hold's end)", err)
			}
		})
	}
}
