package sandbox

import (
	"net/http"
	"net/http/cookiejar"
	"testing"
	"time"
)

// pagesOn lists n article/post URLs of the first host that satisfies keep.
func pagesOn(t *testing.T, sb *Sandbox, n int, keep func(host string) bool) []string {
	t.Helper()
	var host string
	var out []string
	for _, p := range sbPages(sb.Web(), func(p PageInfo) bool { return p.Kind == "article" || p.Kind == "post" }) {
		if host == "" && keep(p.Host) {
			host = p.Host
		}
		if p.Host == host {
			out = append(out, p.URL)
		}
		if len(out) == n {
			return out
		}
	}
	t.Fatalf("no host with %d pages passes the filter (found %d)", n, len(out))
	return nil
}

// A fragile host answers each request later the more requests it started within
// its window. The truth records the latency the host added (Slowed), so the test
// judges the host's decisions, not the wall clock of a loaded machine: with a window
// far longer than the requests take, every request counts, and each answer is
// slower than the one before.
func TestFragileHostSlowsWithTheRateItReceives(t *testing.T) {
	t.Parallel() // its own sandbox; it waits on the service and throttle times it set
	const service = 20 * time.Millisecond
	sb := sbStart(t, func(c *Config) {
		c.AntiBot.Enabled = false
		c.Load = LoadConfig{FragileShare: 0.5, Service: service, Window: time.Minute}
	})
	urls := pagesOn(t, sb, 12, sb.Fragile)
	c := sbClient(sb, "")
	for _, u := range urls { // back to back: far more than the host can take
		sbGet(t, c, u)
	}
	reqs := sb.Truth().Requests()
	if len(reqs) != len(urls) {
		t.Fatalf("the truth holds %d requests, want %d", len(reqs), len(urls))
	}
	if reqs[0].Slowed != service {
		t.Fatalf("an idle fragile host added %v, want its %v service time", reqs[0].Slowed, service)
	}
	for i, q := range reqs {
		if took := q.End.Sub(q.Start); took < q.Slowed {
			t.Fatalf("request %d took %v, less than the %v its host added", i, took, q.Slowed)
		}
		if i > 0 && q.Slowed <= reqs[i-1].Slowed {
			t.Fatalf("request %d was slowed %v, not more than request %d's %v: the host does not feel the rate", i, q.Slowed, i-1, reqs[i-1].Slowed)
		}
	}
	healthy := pagesOn(t, sb, 1, func(h string) bool { return !sb.Fragile(h) })
	sbGet(t, c, healthy[0])
	reqs = sb.Truth().Requests()
	if d := reqs[len(reqs)-1].Slowed; d != 0 {
		t.Fatalf("a healthy host was slowed %v", d)
	}
}

// One client fetching back to back keeps a fragile host busy S/L of the time, so
// its latency L tends to 2S: the load model, on a simulated clock.
func TestFragileLatencyUnderOneBackToBackClientTendsToTwiceService(t *testing.T) {
	const service, window = 20 * time.Millisecond, 200 * time.Millisecond
	l := &load{cfg: LoadConfig{FragileShare: 1, Service: service, Window: window}.withDefaults(), starts: map[*vhost][]time.Time{}}
	h := &vhost{name: "fragile.test"}
	at := time.Unix(0, 0)
	var d time.Duration
	for i := 0; i < 200; i++ {
		d = l.latency(h, at)
		if i == 0 && d != service {
			t.Fatalf("idle: %v, want %v", d, service)
		}
		at = at.Add(d) // the next request starts when this answer ends
	}
	if d < 3*service/2 || d > 5*service/2 {
		t.Fatalf("after 200 back-to-back requests the latency is %v, want about 2 x %v", d, service)
	}
}

func TestThrottlingHostAnswers429WithoutRetryAfterThenRecovers(t *testing.T) {
	t.Parallel() // its own sandbox; it waits on the service and throttle times it set
	const period = 300 * time.Millisecond
	sb := sbStart(t, func(c *Config) {
		c.AntiBot.Enabled = false
		c.Load = LoadConfig{ThrottleShare: 0.3, ThrottleFor: period}
	})
	urls := pagesOn(t, sb, 3, sb.Throttling)
	c := sbClient(sb, "")
	began := time.Now()
	r := sbGet(t, c, urls[0])
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "" {
		t.Fatalf("first request: %d Retry-After %q, want 429 without Retry-After", r.status, r.header.Get("Retry-After"))
	}
	sbWait(t, 5*time.Second, "the throttling host to recover", func() bool {
		r = sbGet(t, c, urls[1])
		if r.status == http.StatusOK && time.Since(began) < period {
			t.Fatalf("recovered after %v, before its %v throttle period", time.Since(began), period)
		}
		return r.status == http.StatusOK
	})
	n := 0
	for _, q := range sb.Truth().Requests() {
		if q.Throttled {
			n++
		}
	}
	if n < 1 {
		t.Fatal("the truth log marks no request as throttled")
	}
}

// The cookie rule bans an address that keeps fetching without its cookie, or with
// another address's, and lets one that returns it fetch on.
func TestCookieRuleBansVisitorsWithoutTheirCookie(t *testing.T) {
	for _, c := range []struct {
		name    string
		client  func(sb *Sandbox) []*http.Client // taken in turn
		banned  bool
		pages   int
		strikes int
	}{
		{"no jar", func(sb *Sandbox) []*http.Client {
			return []*http.Client{sbClient(sb, "127.0.0.2")}
		}, true, 8, 3},
		{"jar", func(sb *Sandbox) []*http.Client {
			c := sbClient(sb, "127.0.0.2")
			c.Jar, _ = cookiejar.New(nil)
			return []*http.Client{c}
		}, false, 8, 3},
		{"one jar per address", func(sb *Sandbox) []*http.Client {
			a, b := sbClient(sb, "127.0.0.2"), sbClient(sb, "127.0.0.3")
			a.Jar, _ = cookiejar.New(nil)
			b.Jar, _ = cookiejar.New(nil)
			return []*http.Client{a, b}
		}, false, 12, 3},
		{"one jar shared by two addresses", func(sb *Sandbox) []*http.Client {
			jar, _ := cookiejar.New(nil)
			a, b := sbClient(sb, "127.0.0.2"), sbClient(sb, "127.0.0.3")
			a.Jar, b.Jar = jar, jar // each visit carries the other address's session
			return []*http.Client{a, b}
		}, true, 12, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb := sbStart(t, func(cfg *Config) {
				cfg.AntiBot.Enabled = false
				cfg.Load = LoadConfig{CookieRule: true, CookieStrikes: c.strikes}
			})
			urls := pagesOn(t, sb, c.pages, func(string) bool { return true })
			clients := c.client(sb)
			if r := sbGet(t, clients[0], urls[0]); r.status != http.StatusOK || r.header.Get("Set-Cookie") == "" {
				t.Fatalf("first visit: %d, Set-Cookie %q", r.status, r.header.Get("Set-Cookie"))
			}
			for i, u := range urls[1:] {
				sbGet(t, clients[(i+1)%len(clients)], u)
			}
			bans := sb.Truth().Bans()
			if got := len(bans) > 0; got != c.banned {
				t.Fatalf("banned = %v (%+v), want %v", got, bans, c.banned)
			}
			if c.banned && bans[0].Reason != BanCookie {
				t.Fatalf("ban reason %q, want %q", bans[0].Reason, BanCookie)
			}
		})
	}
}
