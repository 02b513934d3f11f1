package lanes

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/lanes/internal/stall"
	"github.com/crawlconsole/crawlconsole/engine/lanes/internal/waitline"
)

// Gate is the last line of politeness before a request leaves. Lanes already fetch
// adjacent pages serially; the Gate also covers what lane assignment alone cannot:
//   - per egress address, no two requests to the same host or with the same parent
//     page are in flight at once, and one starts at least MinGap after the previous
//     adjacent one ended (M1 is judged per address: that is what a server sees) — this
//     holds even across lanes, e.g. when a task joined its host's lane while another
//     lane on the same address holds its parent, or right after a lane retired;
//   - per host, across all addresses, the gap as the server sees it: from the end of
//     one response to the start of the next request to that host, whichever egress
//     sends it. The gap is the largest of the aggregate host cap
//     (1/host_rate), the robots.txt Crawl-delay, delay_factor × the host's last
//     response time and the host's overload back-off (politeness.go). While the gap
//     holds a cap or a back-off, one request at a time goes to the host;
//   - first come, first served: requests waiting for one (egress, host) or one
//     (egress, parent) go in the order they came, and so do the requests to a
//     host taken one at a time across egresses. A rendered page's own requests and
//     the lane's next fetch to the host wait in one line, so neither can starve the
//     other (woken together, they raced for the slot). An urgent request goes
//     ahead of ordinary ones, behind urgent ones that came before it. The
//     (egress, parent) line spans hosts, so a request in it holds it only while
//     the parent is all it waits for: one waiting out its own host's gap, slot
//     or earlier requests does not hold up a request with that parent to a free
//     host.
//
// Lock order: the Gate never calls out (Interval) while it holds its own lock, so a
// caller may hold its own lock around Gap.
type Gate struct {
	// MinGap is the shortest pause between adjacent requests on one address
	// (lanes.delay_min).
	MinGap time.Duration
	// Interval returns the aggregate gap for a host and why (ReasonDelay for
	// 1/host_rate, ReasonCrawlDelay for a larger robots.txt Crawl-delay); nil or 0
	// means no cap.
	Interval func(host string) (time.Duration, Reason)
	// Adapt configures the adaptive terms (delay factor, overload back-off); the zero
	// value turns them off.
	Adapt Adaptive
	// Pacer, when set, adds another pacing policy's gap (benchmarks plug baselines in
	// here, e.g. a Scrapy-AutoThrottle-like one); nil: none.
	Pacer Pacer
	// Now is the clock (tests inject one).
	Now func() time.Time
	// Stalled is the total time the crawler's own process stood still so far,
	// on the real clock like the answers' response times (internal/stall):
	// the rising-latency signal discounts what of an answer's time was the
	// crawler's and not the server's. nil: the process-wide hiccup probe.
	Stalled func() time.Duration

	mu    sync.Mutex
	keys  map[gateKey]*keyState
	hosts map[string]*hostState
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
	free     chan struct{} // closed when inflight drops to 0; made by freed, for a waiter
	waitline.Line
}

// freed is the channel closed when the key's requests in flight end. It is made
// only when a request comes to wait on them: most requests to a key end before
// another one asks, and a channel made for each would be two allocations a fetch.
func (s *keyState) freed() chan struct{} {
	if s.free == nil {
		s.free = make(chan struct{})
	}
	return s.free
}

// Ticket is what Acquire hands out; give it back to Release (or Finish) when the
// request ends.
type Ticket struct {
	egress int
	host   string
	parent uint64
	start  time.Time

	stalled time.Duration // the crawler's stalls so far, at Acquire
	probe   bool          // holds the process's stall probe
}

func (g *Gate) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func (g *Gate) init() {
	if g.keys == nil {
		g.keys = map[gateKey]*keyState{}
		g.hosts = map[string]*hostState{}
	}
}

func (g *Gate) state(k gateKey) *keyState {
	g.init()
	s := g.keys[k]
	if s == nil {
		s = &keyState{}
		g.keys[k] = s
	}
	return s
}

func (g *Gate) host(h string) *hostState {
	g.init()
	s := g.hosts[h]
	if s == nil {
		s = &hostState{}
		g.hosts[h] = s
	}
	return s
}

// Acquire blocks until a request to host (found on the page whose hash is parent)
// may leave from egress, then reserves it. It returns ctx's error if ctx ends first.
func (g *Gate) Acquire(ctx context.Context, egress int, host string, parent uint64) (Ticket, error) {
	return g.AcquireWith(ctx, Wait{}, egress, host, parent)
}

// ErrStopped is AcquireWith's answer when its Wait.Stop fired first.
var ErrStopped = errors.New("lanes: wait stopped")

// Wait says how a request waits at the gate (see AcquireWith).
type Wait struct {
	// Stop, when it fires, ends the wait with ErrStopped (nothing reserved): the
	// lane has a more urgent task to send instead.
	Stop <-chan struct{}
	// Urgent goes first: while an urgent request waits for a host, no ordinary one to
	// that host is let through, so the operator's task takes the host's next slot.
	// Politeness is unchanged: the same gaps hold, only the order differs.
	Urgent bool
}

// AcquireWith is Acquire with a way of waiting: it may be stopped early, and an
// urgent request takes the host's next slot ahead of ordinary ones.
func (g *Gate) AcquireWith(ctx context.Context, w Wait, egress int, host string, parent uint64) (Ticket, error) {
	hk := gateKey{egress: egress, host: host}
	pk := gateKey{egress: egress, parent: parent}
	if w.Urgent {
		g.mu.Lock()
		g.host(host).urge(1)
		g.mu.Unlock()
		defer func() {
			g.mu.Lock()
			g.host(host).urge(-1)
			g.mu.Unlock()
		}()
	}
	// A request that cannot go at once joins its keys' lines, and leaves them
	// when it goes or gives up (me is nil until then). A key with a waiter is
	// never swept: its state stays the one it joined.
	var me *waitline.Waiter
	var hs, ps *keyState
	var agg *hostState
	leave := func() { // g.mu held
		hs.Leave(me)
		if ps != nil {
			ps.Leave(me)
		}
		agg.Leave(me)
		me = nil
	}
	defer func() {
		if me != nil {
			g.mu.Lock()
			leave()
			g.mu.Unlock()
		}
	}()
	for {
		iv, ivWhy := g.interval(host) // outside g.mu: Interval takes the caller's locks
		g.mu.Lock()
		now := g.now()
		hs, ps, agg = g.state(hk), nil, g.host(host)
		if parent != 0 {
			ps = g.state(pk)
		}
		agg.interval, agg.intervalWhy = iv, ivWhy
		serial := agg.serial(now, g.Adapt)
		// What of its own host holds the request: a slot in flight, requests to
		// the host that came first, or the host's gap.
		var busy chan struct{}
		switch {
		case hs.inflight > 0:
			busy = hs.freed()
		case agg.inflight > 0 && serial:
			busy = agg.freed() // the server sees one request at a time, then the gap
		case !w.Urgent && agg.urgent > 0:
			busy = agg.urgentDone // the operator's request goes first
		}
		if busy == nil {
			busy = hs.Ahead(me, w.Urgent, false)
		}
		if busy == nil && serial {
			busy = agg.Ahead(me, w.Urgent, false) // across egresses, when the host takes one at a time
		}
		var wait time.Duration
		if busy == nil {
			wait = hs.lastEnd.Add(g.MinGap).Sub(now)
			if !agg.lastEnd.IsZero() {
				gap, _ := agg.gap(now, g.Adapt)
				if g.Pacer != nil {
					gap = max(gap, g.Pacer.Gap(host))
				}
				wait = max(wait, agg.lastEnd.Add(gap).Sub(now))
			}
		}
		hostHeld := busy != nil || wait > 0
		// Then the parent: its slot, the requests with that parent that came
		// first and wait for the parent alone, and its gap.
		if busy == nil && ps != nil {
			switch {
			case ps.inflight > 0:
				busy = ps.freed()
			default:
				busy = ps.Ahead(me, w.Urgent, true)
			}
			if busy == nil {
				wait = max(wait, ps.lastEnd.Add(g.MinGap).Sub(now))
			}
		}
		if busy == nil && wait <= 0 {
			if me != nil {
				leave()
			}
			g.take(hs)
			if ps != nil {
				g.take(ps)
			}
			agg.take()
			g.sweep(now)
			t := Ticket{egress: egress, host: host, parent: parent, start: now}
			t.stalled, t.probe = g.stallsFrom()
			g.mu.Unlock()
			return t, nil
		}
		if me != nil {
			if hostHeld && !me.HostHeld && ps != nil {
				ps.Nudge() // those behind it in the parent's line may go now
			}
			me.HostHeld = hostHeld
		}
		if me == nil {
			me = &waitline.Waiter{Urgent: w.Urgent, HostHeld: hostHeld}
			hs.Join(me)
			if ps != nil {
				ps.Join(me)
			}
			agg.Join(me)
		}
		g.mu.Unlock()
		if busy != nil {
			select {
			case <-busy:
			case <-ctx.Done():
				return Ticket{}, ctx.Err()
			case <-w.Stop:
				return Ticket{}, ErrStopped
			}
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Ticket{}, ctx.Err()
		case <-w.Stop:
			t.Stop()
			return Ticket{}, ErrStopped
		}
	}
}

// stallsFrom starts counting the crawler's stalls for a request leaving now: the
// stalls so far, and whether the request holds the process's probe. Only the
// rising-latency back-off reads them.
func (g *Gate) stallsFrom() (time.Duration, bool) {
	switch {
	case g.Adapt.BackoffMin <= 0:
		return 0, false
	case g.Stalled != nil:
		return g.Stalled(), false
	}
	stall.Process.Hold()
	return stall.Process.Stalled(), true
}

func (g *Gate) stalled() time.Duration {
	if g.Stalled != nil {
		return g.Stalled()
	}
	return stall.Process.Stalled()
}

func (g *Gate) take(s *keyState) {
	s.inflight++
}

func (g *Gate) interval(host string) (time.Duration, Reason) {
	if g.Interval == nil {
		return 0, ""
	}
	return g.Interval(host)
}

// Release ends the request a ticket was given for, without telling the gate how the
// server answered (no response: the request was never sent, or it was cancelled).
func (g *Gate) Release(t Ticket) { g.Finish(t, Response{}) }

// Finish ends the request a ticket was given for and feeds the server's answer to
// the host's adaptive gap: its response time, and whether it signals overload.
func (g *Gate) Finish(t Ticket, r Response) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.give(gateKey{egress: t.egress, host: t.host}, now)
	if t.parent != 0 {
		g.give(gateKey{egress: t.egress, parent: t.parent}, now)
	}
	var stalled time.Duration
	if t.probe || g.Stalled != nil {
		stalled = g.stalled() - t.stalled
	}
	if t.probe {
		stall.Process.Release()
	}
	if hs := g.hosts[t.host]; hs != nil {
		hs.give(now, t.start, r, g.Adapt, stalled)
	}
	if g.Pacer != nil && (r.Status != 0 || r.Timeout) {
		lat := r.Latency
		if lat == 0 {
			lat = now.Sub(t.start)
		}
		if lat > 0 {
			g.Pacer.Observe(t.host, r, lat)
		}
	}
}

func (g *Gate) give(k gateKey, now time.Time) {
	s := g.keys[k]
	if s == nil || s.inflight == 0 {
		return
	}
	s.inflight--
	s.lastEnd = now
	if s.inflight == 0 && s.free != nil {
		close(s.free)
		s.free = nil
	}
}

// Carry tells the gate that the last request to host from elsewhere (another
// worker, which held the host before this one) ended at end: the host's gap counts
// from there if that is later than its own last response.
func (g *Gate) Carry(host string, end time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if hs := g.host(host); end.After(hs.lastEnd) {
		hs.lastEnd = end
	}
}

// Gap is a host's current gap between the end of one response and the start of the
// next request, and the term that sets it (for the Lanes and Groups panes). A host
// the gate has not seen yet has the lane delay as its gap.
func (g *Gate) Gap(host string) (time.Duration, Reason) {
	g.mu.Lock()
	defer g.mu.Unlock()
	hs := g.hosts[host]
	if hs == nil {
		if g.MinGap > 0 {
			return g.MinGap, ReasonDelay
		}
		return 0, ""
	}
	gap, why := hs.gap(g.now(), g.Adapt)
	if g.MinGap > gap {
		return g.MinGap, ReasonDelay
	}
	return gap, why
}

// sweep drops state that can no longer delay anyone, every few thousand acquires.
func (g *Gate) sweep(now time.Time) {
	g.ops++
	if g.ops%4096 != 0 {
		return
	}
	for k, s := range g.keys {
		if s.inflight == 0 && len(s.Waiting) == 0 && now.Sub(s.lastEnd) > g.MinGap {
			delete(g.keys, k)
		}
	}
	for h, s := range g.hosts {
		if s.idle(now, g.Adapt) {
			delete(g.hosts, h)
		}
	}
}

// HostInterval is the aggregate floor of the gap between two requests to one host
// over all egresses: 1/host_rate, raised by robots.txt Crawl-delay, and which of
// the two it is (the gate's Interval).
func (r *Runner) HostInterval(host string) (time.Duration, Reason) {
	var iv time.Duration
	if r.Opts.HostRate > 0 {
		iv = time.Duration(float64(time.Second) / r.Opts.HostRate)
	}
	r.Mu.Lock()
	cd := r.crawlDelay[host]
	r.Mu.Unlock()
	if cd > iv {
		return cd, ReasonCrawlDelay
	}
	if iv > 0 {
		return iv, ReasonDelay
	}
	return 0, ""
}
