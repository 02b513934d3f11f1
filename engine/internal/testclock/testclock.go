// Package testclock is a clock that moves only when a test moves it, for code that
// takes its time from an injected Now (cache lifetimes, TTLs, leases): what depends
// on the time is then tested without waiting for it.
package testclock

import (
	"sync"
	"time"
)

// Clock is a time a test sets and moves; safe for use by several goroutines.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a clock that reads t until it is moved.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
