package lanes

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// tests keep gaps tiny and check ordering, not wall time.
func TestGateExcludesAdjacentOnOneEgress(t *testing.T) {
	g := &Gate{}
	ctx := context.Background()
	tk, _ := g.Acquire(ctx, 0, "a", 1)
	acquired := make(chan string, 3)
	var wg sync.WaitGroup
	for _, c := range []struct {
		name   string
		egress int
		host   string
		parent uint64
	}{
		{"same host", 0, "a", 2},
		{"same parent", 0, "b", 1},
		{"other egress", 1, "a", 1},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, err := g.Acquire(ctx, c.egress, c.host, c.parent)
			if err == nil {
				acquired <- c.name
				g.Release(tk)
			}
		}()
	}
	if got := <-acquired; got != "other egress" {
		t.Fatalf("first through the gate was %q; only the other egress may pass while a/1 is in flight", got)
	}
	g.Release(tk)
	wg.Wait()
	close(acquired)
	n := 0
	for range acquired {
		n++
	}
	if n != 2 {
		t.Fatalf("%d adjacent requests passed after release, want 2", n)
	}
}

func TestGateMinGapAndHostInterval(t *testing.T) {
	const gap = 30 * time.Millisecond
	g := &Gate{MinGap: gap}
	ctx := context.Background()
	tk, _ := g.Acquire(ctx, 0, "a", 0)
	g.Release(tk)
	end := time.Now()
	tk, _ = g.Acquire(ctx, 0, "a", 0)
	if d := time.Since(end); d < gap {
		t.Fatalf("adjacent request left %v after the previous ended, want >= %v", d, gap)
	}
	g.Release(tk)

	iv := 40 * time.Millisecond
	h := &Gate{Interval: func(string) (time.Duration, Reason) { return iv, ReasonDelay }}
	start := time.Now()
	for e := 0; e < 3; e++ { // three egresses: no adjacency between them, only the host cap
		tk, _ := h.Acquire(ctx, e, "a", 0)
		h.Release(tk)
	}
	if d := time.Since(start); d < 2*iv {
		t.Fatalf("3 requests to one host over 3 egresses took %v, the host cap needs >= %v", d, 2*iv)
	}
}

func TestGateAcquireHonoursContext(t *testing.T) {
	g := &Gate{}
	tk, _ := g.Acquire(context.Background(), 0, "a", 0)
	defer g.Release(tk)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := g.Acquire(ctx, 0, "a", 0); done <- err }()
	cancel()
	if err := <-done; err == nil {
		t.Fatal("Acquire must return the context's error when cancelled while blocked")
	}
}

// A host handed over from another worker keeps its gap: the first request of its
// new holder waits out the gap from the end of the old holder's last request
// (Carry), though this gate has never seen the host. Before, it went at once.
func TestGateCarriesAHostsGapOver(t *testing.T) {
	t.Parallel()
	gap := 300 * time.Millisecond
	g := &Gate{Interval: func(string) (time.Duration, Reason) { return gap, ReasonDelay }}
	ended := time.Now()
	g.Carry("www.a.test", ended)
	tk, err := g.Acquire(context.Background(), 0, "www.a.test", 0)
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(ended); waited < gap {
		t.Fatalf("the new holder's first request went %v after the old holder's last, inside the host's gap of %v", waited, gap)
	}
	g.Release(tk)
}

// waiters is how many requests wait at the gate for host, from any egress.
func (g *Gate) waiters(host string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.hosts[host]; s != nil {
		return len(s.Waiting)
	}
	return 0
}

// A host's requests go through the gate in the order they came: on one egress,
// a rendered page's own requests (the page's parent) and the lane's next fetches
// (their own parents) waiting for the host's slot, one after the other; across
// egresses, when a cap makes the host take one request at a time. Before, the
// waiters woke together and raced for the slot: the lane's fetch could lose to
// the render's requests again and again, or the reverse.
func TestGateServesAHostFirstComeFirstServed(t *testing.T) {
	cases := []struct {
		name    string
		gate    *Gate
		request func(i int) (egress int, parent uint64)
	}{
		{"render and lane on one egress", &Gate{MinGap: time.Millisecond},
			func(i int) (int, uint64) { return 0, uint64(1 + i%2) }},
		{"capped host across egresses", &Gate{Interval: func(string) (time.Duration, Reason) { return time.Millisecond, ReasonDelay }},
			func(i int) (int, uint64) { return i % 3, 0 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const waiting = 6
			ctx := context.Background()
			for round := range 20 {
				holder, err := c.gate.Acquire(ctx, 0, "a", 0)
				if err != nil {
					t.Fatal(err)
				}
				order := make(chan int, waiting)
				for i := range waiting {
					go func() {
						egress, parent := c.request(i)
						tk, err := c.gate.Acquire(ctx, egress, "a", parent)
						if err != nil {
							t.Error(err)
							order <- -1
							return
						}
						order <- i
						c.gate.Release(tk)
					}()
					for c.gate.waiters("a") < i+1 { // it came: the next comes after it
						time.Sleep(time.Millisecond)
					}
				}
				c.gate.Release(holder)
				for want := range waiting {
					if got := <-order; got != want {
						t.Fatalf("round %d: request %d went through the gate in place %d; want the order they came", round, got, want)
					}
				}
			}
		})
	}
}

// The (egress, parent) line spans hosts: a request waiting out its own host's gap
// keeps its place in its parent's line but does not hold up a request with the
// same parent to a free host (a rendered page's request to a slow asset host
// held its requests to every other host for that host's Crawl-delay).
func TestGateParentLineDoesNotWaitForAnotherHostsGap(t *testing.T) {
	// An hour's gap: a request held behind it never comes back within the
	// test, so what is judged is whether the free host's request went through
	// while the other still waited, not how long it took.
	g := &Gate{MinGap: time.Millisecond, Interval: func(h string) (time.Duration, Reason) {
		if h == "slow" {
			return time.Hour, ReasonCrawlDelay
		}
		return 0, ""
	}}
	ctx := context.Background()
	tk, err := g.Acquire(ctx, 0, "slow", 7)
	if err != nil {
		t.Fatal(err)
	}
	g.Release(tk)
	slowCtx, stopSlow := context.WithCancel(ctx)
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		tk, err := g.Acquire(slowCtx, 0, "slow", 7) // waits for slow's gap, until cancelled
		if err == nil {
			g.Release(tk)
		}
	}()
	defer func() { stopSlow(); <-waited }()
	for g.waiters("slow") < 1 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond)
	// A minute is a guard, not a measure: held behind slow's gap, the request
	// would wait the hour.
	fastCtx, stopFast := context.WithTimeout(ctx, time.Minute)
	defer stopFast()
	tk, err = g.Acquire(fastCtx, 0, "fast", 7) // another host, same parent, nothing in flight
	if err != nil {
		t.Fatalf("a request to a free host waited behind one to another host waiting for its own gap: %v", err)
	}
	g.Release(tk)
	select {
	case <-waited:
		t.Fatal("the request to the slow host went through within its hour's gap")
	default:
	}
}

// The gate's cost per request: alone (no line joined), and six goroutines taking
// turns on one (egress, host).
func BenchmarkGateAcquireRelease(b *testing.B) {
	ctx := context.Background()
	b.Run("uncontended", func(b *testing.B) {
		g := &Gate{}
		b.ReportAllocs()
		for range b.N {
			tk, _ := g.Acquire(ctx, 0, "a", 1)
			g.Release(tk)
		}
	})
	b.Run("6 on one key", func(b *testing.B) {
		g := &Gate{}
		b.ReportAllocs()
		var wg sync.WaitGroup
		per := b.N/6 + 1
		for p := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range per {
					tk, _ := g.Acquire(ctx, 0, "a", uint64(1+p%2))
					g.Release(tk)
				}
			}()
		}
		wg.Wait()
	})
}

// Requests with one parent to different hosts, waiting for the parent alone,
// still go in the order they came.
func TestGateParentLineServesItsWaitersInOrder(t *testing.T) {
	g := &Gate{MinGap: time.Millisecond}
	ctx := context.Background()
	const waiting = 6
	for round := range 10 {
		holder, err := g.Acquire(ctx, 0, "x", 7)
		if err != nil {
			t.Fatal(err)
		}
		order := make(chan int, waiting)
		for i := range waiting {
			host := fmt.Sprintf("h%d", i)
			go func() {
				tk, err := g.Acquire(ctx, 0, host, 7)
				if err != nil {
					t.Error(err)
					order <- -1
					return
				}
				order <- i
				g.Release(tk)
			}()
			for g.waiters(host) < 1 {
				time.Sleep(time.Millisecond)
			}
		}
		g.Release(holder)
		for want := range waiting {
			if got := <-order; got != want {
				t.Fatalf("round %d: request %d went through the gate in place %d; want the order they came", round, got, want)
			}
		}
	}
}
