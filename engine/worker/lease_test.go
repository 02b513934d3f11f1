package worker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/internal/testclock"
)

// A request waits while the worker's lease has run out on its own clock, and goes
// once a heartbeat renews the lease; one for a hand-out the rejoin's master did not
// take back is dropped; a master that grants no lease holds nothing.
func TestLeaseHoldsRequestsOnceItRunsOut(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Unix(1700000000, 0))
	l := NewLease(clock.Now)
	ctx := context.Background()
	if err := l.Wait(ctx, 1); err != nil {
		t.Fatalf("no lease granted yet (a master without leases): %v", err)
	}
	l.Grant(clock.Now(), 3*time.Second)
	if err := l.Wait(ctx, 1); err != nil {
		t.Fatalf("within the lease: %v", err)
	}
	clock.Add(3 * time.Second) // paused past the lease
	done := make(chan error, 1)
	go func() { done <- l.Wait(ctx, 1) }()
	lost := make(chan error, 1)
	go func() { lost <- l.Wait(ctx, 2) }()
	select {
	case err := <-done:
		t.Fatalf("a request went with the lease run out: %v", err)
	default:
	}
	// A late reply to a heartbeat sent before the pause renews nothing.
	l.Grant(clock.Now().Add(-3*time.Second), 3*time.Second)
	// The rejoin: hand-out 2 went to another worker; then the lease is granted again.
	l.Lose([]uint64{2})
	if err := <-lost; !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("the lost hand-out: %v, want ErrLeaseLost", err)
	}
	select {
	case err := <-done:
		t.Fatalf("a request went before the lease was renewed: %v", err)
	default:
	}
	l.Grant(clock.Now(), 3*time.Second)
	if err := <-done; err != nil {
		t.Fatalf("after the renewal: %v", err)
	}
	clock.Add(time.Hour)
	l.Grant(clock.Now(), 0) // a master without leases
	if err := l.Wait(ctx, 1); err != nil {
		t.Fatalf("no lease: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	l.Grant(clock.Now().Add(-time.Minute), time.Second) // run out
	cancel()
	if err := l.Wait(cctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("a closed worker's wait: %v", err)
	}
}

// A request's bound ends when the worker's lease runs out unrenewed, not before: a
// renewal on the way moves its end. Bound after the end is cut at once, and once
// the lease is renewed a request is bound anew; with no lease granted nothing
// bounds it.
func TestLeaseBoundEndsWhenTheLeaseRunsOut(t *testing.T) {
	t.Parallel()
	l := NewLease(nil)
	if b := l.Bound(); b != nil {
		t.Fatal("a bound with no lease granted (a master without leases)")
	}
	l.Grant(time.Now(), 100*time.Millisecond)
	b := l.Bound()
	l.Grant(time.Now(), 300*time.Millisecond) // a heartbeat renews it
	until, _ := l.Until()
	select {
	case <-b.Done():
	case <-time.After(time.Minute):
		t.Fatal("the request's bound outlived the lease by a minute")
	}
	if now := time.Now(); now.Before(until) {
		t.Fatalf("the request was cut %v before the renewed lease's end", until.Sub(now))
	}
	select {
	case <-l.Bound().Done():
	case <-time.After(time.Minute):
		t.Fatal("a request bound after the lease ran out was not cut")
	}
	l.Grant(time.Now(), time.Hour)
	if err := l.Bound().Err(); err != nil {
		t.Fatalf("a request bound under a renewed lease: %v", err)
	}
}
