package lanes_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
)

// offsetClock is real time plus an offset the test moves forward: the robots.txt
// cache's waits pass without the test sleeping.
type offsetClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *offsetClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *offsetClock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// TestASiteWhoseRobotsTxtLeadsToAHeldHostGoesOnAtTheHoldsEnd: site A's robots.txt
// redirects to host B, which the operator paused or disabled. The hop is not
// sent, and that is no answer from A: A's robots.txt is not asked again while the
// hold lasts (the same redirect would answer), and its retry does not grow.
// Resumed or enabled, B is asked at A's next page, and the page is fetched: A
// does not wait out a retry that doubled at each try of a long hold (an hour at
// most).
func TestASiteWhoseRobotsTxtLeadsToAHeldHostGoesOnAtTheHoldsEnd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		hold, lift func(r *lanes.Runner, host string)
	}{
		{"paused", pause, func(r *lanes.Runner, host string) {
			r.Mu.Lock()
			r.SetHostPaused(host, false)
			r.Mu.Unlock()
		}},
		{"disabled", disable, func(r *lanes.Runner, host string) { r.Pool.Enable(host) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			robotsBehindAHeldHost(t, c.hold, c.lift)
		})
	}
}

// robotsBehindAHeldHost runs A's page during B's hold (hold), then after its end
// (lift).
func robotsBehindAHeldHost(t *testing.T, hold, lift func(r *lanes.Runner, host string)) {
	var bRobots, aRobots atomic.Int32
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			bRobots.Add(1)
		}
		w.Write([]byte("User-agent: *\nAllow: /\n"))
	}))
	t.Cleanup(b.Close)
	const held = "b.example"
	bURL, err := url.Parse(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	bPort := bURL.Port()
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			aRobots.Add(1)
			http.Redirect(w, r, "http://"+held+":"+bPort+"/robots.txt", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	t.Cleanup(a.Close)

	clk := &offsetClock{}
	opts := config.DefaultOptions()
	opts.Now = clk.now
	opts.Lanes.Max = 2
	opts.Lanes.DelayMin, opts.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	opts.Fetch.Retries = 0
	opts.HostRate = 0
	opts.Egress = []string{"bind:127.0.0.1"}
	f := &markingFront{}
	r := loopbackRunner(t, &opts, f, &f.fakeFront)
	hold(r, held)

	origin := a.URL
	page := frontier.Task{URL: a.URL + "/page", Host: "127.0.0.1"}
	run := func() {
		p := r.Board.Add(page)
		if p.Lane == nil {
			t.Fatal("the task found no lane")
		}
		r.Run(lanes.NewSlot(p.Lane))
	}
	// A's pages come due again and again during the hold (each time its
	// robots.txt's retry, if any, has passed).
	const tries = 5
	for range tries {
		if until := r.Robots.Expires(origin); until.After(clk.now()) {
			clk.advance(until.Sub(clk.now()))
		}
		run()
	}
	if n := aRobots.Load(); n != 1 || bRobots.Load() != 0 || r.Robots.Failures(origin) != 0 {
		t.Errorf("during the hold, %d turns of A's page: A's robots.txt asked %d times, the held host %d, counted %d failures in a row; want asked once, the held host never, no failure (A did not fail to answer)",
			tries, n, bRobots.Load(), r.Robots.Failures(origin))
	}
	if len(f.delivered) != 0 {
		t.Fatalf("A's page was delivered during the hold (%+v)", f.delivered)
	}

	lift(r, held)
	deferred := len(f.deferred)
	wait := r.Robots.Expires(origin).Sub(clk.now())
	run()
	if bRobots.Load() != 1 || len(f.delivered) != 1 || f.delivered[0].Res == nil || f.delivered[0].Res.Status != http.StatusOK {
		t.Errorf("A's page at its first turn after the hold: the freed host's robots.txt asked %d times, the page delivered %d times (deferred %d more); want both once (A's robots.txt waited %v more)",
			bRobots.Load(), len(f.delivered), len(f.deferred)-deferred, wait.Round(time.Second))
	}
}
