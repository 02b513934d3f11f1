package testclock

import (
	"sync"
	"testing"
	"time"
)

// The clock reads what it was set to, and moves by exactly what the tests add,
// from several goroutines at once.
func TestClockMovesOnlyWhenMoved(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := New(t0)
	if !c.Now().Equal(t0) {
		t.Fatalf("new clock reads %v, want %v", c.Now(), t0)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Add(time.Second) })
	}
	wg.Wait()
	if got := c.Now().Sub(t0); got != 10*time.Second {
		t.Fatalf("moved %v by ten adds of a second", got)
	}
}
