package lanes

import (
	"context"
	"sync"
	"time"
)

// Gate is the last line of politeness before a request leaves. Lanes already fetch
// adjacent pages serially; the Gate also covers what lane assignment alone cannot:
//   - per egress address, no two requests to the same host or with the same parent
//     page are in flight at once, and one starts at least MinGap after the previous
//     adjacent one ended (M1 is judged per address: that is what a server sees) — this
//     holds even across lanes, e.g. when a task joined its host's lane while another
//     lane on the same address holds its parent, or right after a lane retired;
//   - per host, across all addresses, requests start at least Interval(host) apart
//     (the aggregate per-host cap, raised by robots.txt Crawl-delay).
type Gate struct {
	// MinGap is the shortest pause between adjacent requests on one address
	// (lanes.delay_min).
	MinGap time.Duration
	// Interval returns the aggregate gap for a host (1/host_rate, or the robots.txt
	// Crawl-delay if larger); nil or 0 means no cap.
	Interval func(host string) time.Duration
	// Now is the clock (tests inject one).
	Now func() time.Time

	mu    sync.Mutex
	keys  map[gateKey]*keyState
	slots map[string]time.Time // host -> earliest start of its next request
	ops   int
}

type gateKey struct {
	egress int
	host   string // "" for a parent key
	parent uint64
}

type keyState struct {
	inflight int
	lastEnd  time.Time
	free     chan struct{} // closed when inflight drops to 0
}

// Ticket is what Acquire hands out; give it back to Release when the request ends.
type Ticket struct {
	egress int
	host   string
	parent uint64
}

func (g *Gate) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func (g *Gate) state(k gateKey) *keyState {
	if g.keys == nil {
		g.keys = map[gateKey]*keyState{}
		g.slots = map[string]time.Time{}
	}
	s := g.keys[k]
	if s == nil {
		s = &keyState{}
		g.keys[k] = s
	}
	return s
}

// Acquire blocks until a request to host (found on the page whose hash is parent)
// may leave from egress, then reserves it. It returns ctx's error if ctx ends first.
func (g *Gate) Acquire(ctx context.Context, egress int, host string, parent uint64) (Ticket, error) {
	hk := gateKey{egress: egress, host: host}
	pk := gateKey{egress: egress, parent: parent}
	for {
		g.mu.Lock()
		now := g.now()
		hs := g.state(hk)
		var ps *keyState
		if parent != 0 {
			ps = g.state(pk)
		}
		var busy chan struct{}
		switch {
		case hs.inflight > 0:
			busy = hs.free
		case ps != nil && ps.inflight > 0:
			busy = ps.free
		}
		var wait time.Duration
		if busy == nil {
			wait = hs.lastEnd.Add(g.MinGap).Sub(now)
			if ps != nil {
				wait = max(wait, ps.lastEnd.Add(g.MinGap).Sub(now))
			}
			wait = max(wait, g.slots[host].Sub(now))
		}
		if busy == nil && wait <= 0 {
			g.take(hs)
			if ps != nil {
				g.take(ps)
			}
			if iv := g.interval(host); iv > 0 {
				g.slots[host] = now.Add(iv)
			}
			g.sweep(now)
			g.mu.Unlock()
			return Ticket{egress: egress, host: host, parent: parent}, nil
		}
		g.mu.Unlock()
		if busy != nil {
			select {
			case <-busy:
			case <-ctx.Done():
				return Ticket{}, ctx.Err()
			}
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Ticket{}, ctx.Err()
		}
	}
}

func (g *Gate) take(s *keyState) {
	if s.inflight == 0 {
		s.free = make(chan struct{})
	}
	s.inflight++
}

func (g *Gate) interval(host string) time.Duration {
	if g.Interval == nil {
		return 0
	}
	return g.Interval(host)
}

// Release ends the request a ticket was given for.
func (g *Gate) Release(t Ticket) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.give(gateKey{egress: t.egress, host: t.host}, now)
	if t.parent != 0 {
		g.give(gateKey{egress: t.egress, parent: t.parent}, now)
	}
}

func (g *Gate) give(k gateKey, now time.Time) {
	s := g.keys[k]
	if s == nil || s.inflight == 0 {
		return
	}
	s.inflight--
	s.lastEnd = now
	if s.inflight == 0 {
		close(s.free)
	}
}

// sweep drops state that can no longer delay anyone, every few thousand acquires.
func (g *Gate) sweep(now time.Time) {
	g.ops++
	if g.ops%4096 != 0 {
		return
	}
	for k, s := range g.keys {
		if s.inflight == 0 && now.Sub(s.lastEnd) > g.MinGap {
			delete(g.keys, k)
		}
	}
	for h, t := range g.slots {
		if t.Before(now) {
			delete(g.slots, h)
		}
	}
}
