package robots

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/internal/testclock"
)

func TestCacheLifetimes(t *testing.T) {
	clk := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := &Cache{TTL: 24 * time.Hour, Retry: time.Minute, Now: clk.Now}
	var fetches atomic.Int64
	answer := FromResponse(200, []byte("User-agent: *\nDisallow: /a\n"), "crawlconsole")
	fetch := func(context.Context) (*Rules, error) { fetches.Add(1); return answer, nil }
	get := func() *Rules {
		r, err := c.Get(context.Background(), "http://x", fetch)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Concurrent askers share one fetch.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); get() }()
	}
	wg.Wait()
	if fetches.Load() != 1 {
		t.Fatalf("%d fetches by 8 askers, want 1", fetches.Load())
	}
	clk.Add(23 * time.Hour)
	if get(); fetches.Load() != 1 {
		t.Fatal("rules refetched before their lifetime")
	}
	// After 24 h the rules are fetched again, and the new ones apply.
	clk.Add(2 * time.Hour)
	answer = FromResponse(200, []byte("User-agent: *\nDisallow: /b\n"), "crawlconsole")
	if r := get(); fetches.Load() != 2 || r.Allowed("/b") || !r.Allowed("/a") {
		t.Fatalf("after 25 h: %d fetches, /a %v /b %v; want 2 fetches and the new rules", fetches.Load(), r.Allowed("/a"), r.Allowed("/b"))
	}
	// The site goes down: the last good rules stand while it is retried with backoff.
	clk.Add(25 * time.Hour)
	answer = DisallowAll(503, "down")
	if r := get(); r.Unreachable || r.Allowed("/b") {
		t.Fatalf("a site down after a good fetch must keep its last rules, got %v", r)
	}
	if got := c.Expires("http://x").Sub(clk.Now()); got != time.Minute {
		t.Fatalf("first retry in %v, want 1m", got)
	}
	clk.Add(time.Minute)
	get()
	if got := c.Expires("http://x").Sub(clk.Now()); got != 2*time.Minute {
		t.Fatalf("second retry in %v, want 2m (doubling)", got)
	}
	// A 429 with Retry-After waits that long (capped at an hour), not the backoff.
	slow := DisallowAll(429, "slow down")
	slow.RetryAfter = 10 * time.Minute
	c.Get(context.Background(), "http://z", func(context.Context) (*Rules, error) { return slow, nil })
	if got := c.Expires("http://z").Sub(clk.Now()); got != 10*time.Minute {
		t.Fatalf("retry after %v, want the server's Retry-After 10m", got)
	}
	slow2 := DisallowAll(429, "slow down")
	slow2.RetryAfter = 48 * time.Hour
	c.Get(context.Background(), "http://w", func(context.Context) (*Rules, error) { return slow2, nil })
	if got := c.Expires("http://w").Sub(clk.Now()); got != time.Hour {
		t.Fatalf("retry after %v, want Retry-After 48h capped at 1h", got)
	}
	// A new origin that is down from the start: everything disallowed.
	r, _ := c.Get(context.Background(), "http://y", func(context.Context) (*Rules, error) { return DisallowAll(429, "slow down"), nil })
	if !r.Unreachable || r.Allowed("/") {
		t.Fatal("an unreachable robots.txt without an earlier copy must disallow everything")
	}
}

func TestCacheBackoffCapped(t *testing.T) {
	c := &Cache{TTL: 24 * time.Hour, Retry: time.Minute}
	for n, want := range map[int]time.Duration{1: time.Minute, 2: 2 * time.Minute, 7: 60 * time.Minute, 50: time.Hour} {
		if got := c.RetryAfter(n); got != want {
			t.Errorf("after %d failures: %v, want %v", n, got, want)
		}
	}
	short := &Cache{TTL: 10 * time.Minute, Retry: time.Minute}
	if got := short.RetryAfter(20); got != 10*time.Minute {
		t.Errorf("retry capped at %v, want the 10m lifetime", got)
	}
}

func TestCacheCancelledFetchIsNotKept(t *testing.T) {
	c := &Cache{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Get(ctx, "http://x", func(ctx context.Context) (*Rules, error) { return nil, ctx.Err() }); err == nil {
		t.Fatal("a cancelled fetch must return its error")
	}
	r, err := c.Get(context.Background(), "http://x", func(context.Context) (*Rules, error) { return AllowAll("ok"), nil })
	if err != nil || r == nil {
		t.Fatalf("the next asker must fetch again: %v %v", r, err)
	}
}
