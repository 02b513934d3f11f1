package lanes

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
)

// fakeClock is real time plus an offset the test moves forward: a response "takes"
// 300 ms without the test sleeping, and the gate still waits on real timers.
// A frozen clock does not move by itself (exact gaps).
type fakeClock struct {
	mu     sync.Mutex
	off    time.Duration
	frozen bool
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		return epoch.Add(c.off)
	}
	return time.Now().Add(c.off)
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// The host gap is kept as the server sees it, from the end of one response
// to the start of the next request, across egresses. A gate that spaced request
// starts by the interval would let a request on a second egress leave the moment a
// slow response on the first ended.
func TestGateHostGapRunsFromEndOfResponseAcrossEgresses(t *testing.T) {
	const iv, took = 200 * time.Millisecond, 300 * time.Millisecond
	for _, c := range []struct {
		name  string
		adapt Adaptive
		why   Reason
	}{
		{"fixed policy", Adaptive{}, ReasonDelay},
		{"adaptive policy (latency term below the cap)", Adaptive{DelayFactor: 0.5}, ReasonDelay},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := &fakeClock{}
			g := &Gate{Now: clk.now, Adapt: c.adapt, Interval: func(string) (time.Duration, Reason) { return iv, ReasonDelay }}
			ctx := context.Background()
			tk, _ := g.Acquire(ctx, 0, "h", 0)
			clk.advance(took) // a slow response on egress 0
			g.Finish(tk, Response{Status: 200})
			end := clk.now()
			tk, _ = g.Acquire(ctx, 1, "h", 0) // egress 1: no adjacency with egress 0
			if gap := clk.now().Sub(end); gap < iv {
				t.Fatalf("request on egress 1 started %v after the response on egress 0 ended, want >= %v", gap, iv)
			}
			g.Release(tk)
			if gap, why := g.Gap("h"); gap != iv || why != c.why {
				t.Fatalf("Gap = %v %q, want %v %q", gap, why, iv, c.why)
			}
		})
	}
}

// With a cap, a second request to the host on another egress waits for the first
// response to end: the server sees one request at a time.
func TestGateCappedHostIsSerialAcrossEgresses(t *testing.T) {
	g := &Gate{Interval: func(string) (time.Duration, Reason) { return time.Millisecond, ReasonDelay }}
	ctx := context.Background()
	tk, _ := g.Acquire(ctx, 0, "h", 0)
	got := make(chan struct{})
	go func() {
		tk2, _ := g.Acquire(ctx, 1, "h", 0)
		g.Release(tk2)
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a request to a capped host left on egress 1 while one was in flight on egress 0")
	case <-time.After(50 * time.Millisecond): // the refusal to pass is what is tested
	}
	g.Release(tk)
	<-got
}

// Heritrix's delay factor: the gap after a response is factor × its response time.
func TestGateDelayFactorFollowsLatency(t *testing.T) {
	clk := &fakeClock{frozen: true}
	g := &Gate{Now: clk.now, Adapt: Adaptive{DelayFactor: 4, BackoffMax: 10 * time.Second}}
	for _, c := range []struct {
		took time.Duration
		want time.Duration
	}{
		{100 * time.Millisecond, 400 * time.Millisecond},
		{500 * time.Millisecond, 2 * time.Second},
		{10 * time.Second, 10 * time.Second}, // capped at BackoffMax
		{50 * time.Millisecond, 200 * time.Millisecond},
	} {
		tk, _ := g.Acquire(context.Background(), 0, "h", 0)
		clk.advance(c.took)
		g.Finish(tk, Response{Status: 200})
		if gap, why := g.Gap("h"); gap != c.want || why != ReasonLatency {
			t.Fatalf("after a %v response: gap %v %q, want %v latency", c.took, gap, why, c.want)
		}
		clk.advance(c.want) // wait it out so the next Acquire passes at once
	}
}

// Overload signals back off exponentially with jitter, capped; calm answers halve
// the back-off and a quiet period forgives it; a Retry-After is the server's own
// wait (obeyed elsewhere), not a back-off.
func TestGateBackoffAndForgiveness(t *testing.T) {
	a := Adaptive{BackoffMin: time.Second, BackoffMax: 6 * time.Second, ForgiveAfter: time.Minute, Jitter: func() float64 { return 0.5 }}
	type step struct {
		r    Response
		wait time.Duration // clock moves this far before the answer
		gap  time.Duration
		why  Reason
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"429 without Retry-After doubles, capped, with jitter", []step{
			{r: Response{Status: http.StatusTooManyRequests}, gap: 1250 * time.Millisecond, why: ReasonBackoff},
			{r: Response{Status: http.StatusTooManyRequests}, wait: 2 * time.Second, gap: 2500 * time.Millisecond, why: ReasonBackoff},
			{r: Response{Status: http.StatusServiceUnavailable}, wait: 3 * time.Second, gap: 5 * time.Second, why: ReasonBackoff},
			{r: Response{Timeout: true}, wait: 6 * time.Second, gap: 6 * time.Second, why: ReasonBackoff},
			{r: Response{Status: 200}, wait: 6 * time.Second, gap: 4 * time.Second, why: ReasonBackoff}, // calm: halved (level 3, no jitter)
			{r: Response{Status: 200}, wait: time.Minute, gap: 0},                                       // quiet for ForgiveAfter: forgiven
		}},
		{"429 with Retry-After is not a back-off", []step{
			{r: Response{Status: http.StatusTooManyRequests, RetryAfter: true}, gap: 0},
		}},
		{"latency rising over three answers is a signal", []step{
			{r: Response{Status: 200, Latency: 50 * time.Millisecond}, gap: 0},
			{r: Response{Status: 200, Latency: 50 * time.Millisecond}, gap: 0},
			{r: Response{Status: 200, Latency: 900 * time.Millisecond}, gap: 0},
			{r: Response{Status: 200, Latency: 900 * time.Millisecond}, gap: 0},
			{r: Response{Status: 200, Latency: 900 * time.Millisecond}, gap: 1250 * time.Millisecond, why: ReasonBackoff},
		}},
		{"one slow answer is not", []step{
			{r: Response{Status: 200, Latency: 20 * time.Millisecond}, gap: 0},
			{r: Response{Status: 200, Latency: 2 * time.Second}, gap: 0},
			{r: Response{Status: 200, Latency: 20 * time.Millisecond}, gap: 0},
			{r: Response{Status: 200, Latency: 2 * time.Second}, gap: 0},
		}},
		{"no answer teaches nothing", []step{
			{r: Response{}, gap: 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := &fakeClock{frozen: true}
			g := &Gate{Now: clk.now, Adapt: a}
			for i, s := range c.steps {
				clk.advance(s.wait)
				tk, err := g.Acquire(context.Background(), 0, "h", 0)
				if err != nil {
					t.Fatal(err)
				}
				g.Finish(tk, s.r)
				if gap, why := g.Gap("h"); gap != s.gap || why != s.why {
					t.Fatalf("step %d (%+v): gap %v %q, want %v %q", i, s.r, gap, why, s.gap, s.why)
				}
			}
		})
	}
}

// A crawler starved of CPU reads every answer late: a loopback host looks three
// times slower, three times in a row, though the server answered as fast as ever.
// The time the crawler itself stood still while the request was out is not the
// server's, so a healthy host is not backed off; a server that really slows down is
// backed off at the same answer and by the same gap as on a crawler that runs.
func TestGateRisingLatencyDiscountsTheCrawlersOwnStalls(t *testing.T) {
	a := Adaptive{BackoffMin: time.Second, BackoffMax: 6 * time.Second, ForgiveAfter: time.Minute, Jitter: func() float64 { return 0.5 }}
	type answer struct {
		lat   time.Duration // the response time the crawler measured
		stall time.Duration // how long the crawler stood still meanwhile
	}
	usual := []answer{{lat: 20 * time.Millisecond}, {lat: 20 * time.Millisecond}}
	slow := func(lat, stall time.Duration) []answer {
		return append(append([]answer{}, usual...), answer{lat, stall}, answer{lat, stall}, answer{lat, stall})
	}
	for _, c := range []struct {
		name    string
		answers []answer
		backoff bool
	}{
		{"starved crawler, healthy host", slow(900*time.Millisecond, 885*time.Millisecond), false},
		{"starved crawler, host slower by less than the floor", slow(900*time.Millisecond, 820*time.Millisecond), false},
		{"crawler that runs, slowing host", slow(900*time.Millisecond, 0), true},
		{"crawler stalled a little, slowing host", slow(900*time.Millisecond, 300*time.Millisecond), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := &fakeClock{frozen: true}
			var stalled time.Duration
			g := &Gate{Now: clk.now, Adapt: a, Stalled: func() time.Duration { return stalled }}
			for i, ans := range c.answers {
				tk, err := g.Acquire(context.Background(), 0, "h", 0)
				if err != nil {
					t.Fatal(err)
				}
				stalled += ans.stall
				g.Finish(tk, Response{Status: 200, Latency: ans.lat})
				gap, why := g.Gap("h")
				last := i == len(c.answers)-1
				switch {
				case c.backoff && last:
					if gap != 1250*time.Millisecond || why != ReasonBackoff {
						t.Fatalf("after the third slow answer: gap %v %q, want 1.25s backoff (BackoffMin with its jitter)", gap, why)
					}
				case why == ReasonBackoff:
					t.Fatalf("answer %d (%v, %v of it the crawler's own stall): host backed off for %v", i, ans.lat, ans.stall, gap)
				}
			}
		})
	}
}
