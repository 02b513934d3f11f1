// Package meter holds the running measures a crawl keeps for its console: the
// pages/s rate the header's sparkline draws, the ring of recent events the log pane
// reads, and the mean fetch time lane cost estimates start from. Each has its own
// lock, so any goroutine (a lane, the engine under its lock) may use them.
package meter

import (
	"sort"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Rate samples pages fetched once a second into a ring (the header sparkline).
type Rate struct {
	mu      sync.Mutex
	samples []float64 // pages/s, oldest first
	last    int64
	lastAt  time.Time
}

const rateSamples = 120

// RateWindow is how many of the newest samples Current's rate is the mean of.
const RateWindow = 5

// Sample records the pages fetched so far at now.
func (r *Rate) Sample(now time.Time, fetched int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.lastAt.IsZero() {
		dt := now.Sub(r.lastAt).Seconds()
		if dt > 0 {
			r.samples = append(r.samples, float64(fetched-r.last)/dt)
			if len(r.samples) > rateSamples {
				r.samples = r.samples[len(r.samples)-rateSamples:]
			}
		}
	}
	r.last, r.lastAt = fetched, now
}

// Current is the mean over the last few samples, and a copy of the history.
func (r *Rate) Current() (float64, []float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	hist := append([]float64(nil), r.samples...)
	n := min(RateWindow, len(hist))
	if n == 0 {
		return 0, hist
	}
	var sum float64
	for _, v := range hist[len(hist)-n:] {
		sum += v
	}
	return sum / float64(n), hist
}

// Events keeps the newest events for the console's log pane, numbered in order.
type Events struct {
	mu   sync.Mutex
	buf  []view.Event
	next int
	seq  uint64
}

const eventRingSize = 2048

// Add numbers e and keeps it, dropping the oldest when the ring is full.
func (r *Events) Add(e view.Event) view.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	e.Seq = r.seq
	if len(r.buf) < eventRingSize {
		r.buf = append(r.buf, e)
	} else {
		r.buf[r.next] = e
		r.next = (r.next + 1) % eventRingSize
	}
	return e
}

// Last is the number of the newest event.
func (r *Events) Last() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// Since is up to max of the newest events numbered after after, oldest first
// (all of them when max <= 0).
func (r *Events) Since(after uint64, max int) []view.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []view.Event
	n := len(r.buf)
	for i := 0; i < n; i++ {
		e := r.buf[(r.next+i)%n]
		if e.Seq > after {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	if max > 0 && len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// Cost keeps the mean fetch duration, the basis of lane cost estimates.
type Cost struct {
	mu    sync.Mutex
	n     int64
	total time.Duration
}

// Add counts one fetch that took d.
func (c *Cost) Add(d time.Duration) {
	c.mu.Lock()
	c.n++
	c.total += d
	c.mu.Unlock()
}

// Mean is the mean fetch duration, 0 before any.
func (c *Cost) Mean() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		return 0
	}
	return c.total / time.Duration(c.n)
}
