package dnscache

import (
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/crawlconsole/crawlconsole/engine/internal/testclock"
)

// heldNames is the operator's holds as the cache sees them (Options.Held).
type heldNames struct {
	mu    sync.Mutex
	names map[string]bool
}

func (h *heldNames) set(name string, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.names[name] = on
}

func (h *heldNames) held(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.names[name]
}

// TestAHeldHostsNameGetsNoQueryUntilTheHoldEnds: a host the operator paused or
// disabled gets no request of any kind, a DNS query included, though its URLs
// wait on the board (StillNeeded): its name is not prefetched, not refreshed
// ahead by the sweep, and a name queued before the hold is dropped when its turn
// comes. Once the hold ends, it is looked up again. Another name, not held, is
// asked after it each time: its answer says the cache has decided the held one.
func TestAHeldHostsNameGetsNoQueryUntilTheHoldEnds(t *testing.T) {
	const name, other = "held.example.com", "free.example.com"
	start := func(t *testing.T) (*testServer, *heldNames, *Cache, *testclock.Clock) {
		srv := newTestServer(t)
		for _, n := range []string{name, other, "slow.example.com"} {
			srv.set(n, zone{a: []string{"192.0.2.80"}, ttl: 60})
		}
		holds := &heldNames{names: map[string]bool{}}
		clock := newFakeClock()
		o := testOptions(srv, clock)
		o.StillNeeded = func(string) bool { return true } // its URLs wait on the board
		o.Held = holds.held
		o.MaxWorkers = 1 // names are asked in the order they were queued
		return srv, holds, newTestCache(t, o), clock
	}
	asked := func(srv *testServer, n string) int {
		return srv.queries(n, dns.TypeA) + srv.queries(n, dns.TypeAAAA)
	}
	t.Run("prefetched", func(t *testing.T) {
		srv, holds, c, _ := start(t)
		holds.set(name, true)
		c.Prefetch(name, other)
		waitFor(t, other+" prefetched", func() bool { return asked(srv, other) > 0 && c.View(0).Backlog == 0 })
		if n := asked(srv, name); n != 0 {
			t.Fatalf("%s, held by the operator, was asked %d times by the prefetch", name, n)
		}
		holds.set(name, false)
		c.Prefetch(name)
		waitFor(t, name+" prefetched once resumed", func() bool { return asked(srv, name) > 0 })
	})
	t.Run("held after it was queued", func(t *testing.T) {
		srv, holds, c, _ := start(t)
		release := make(chan struct{})
		srv.set("slow.example.com", zone{a: []string{"192.0.2.81"}, ttl: 60, hold: release})
		c.Prefetch("slow.example.com", name, other) // the one worker waits on slow's answer
		waitFor(t, "slow.example.com in flight", func() bool { return srv.activeNames() == 1 })
		holds.set(name, true)
		close(release)
		waitFor(t, other+" prefetched", func() bool { return asked(srv, other) > 0 && c.View(0).Backlog == 0 })
		if n := asked(srv, name); n != 0 {
			t.Fatalf("%s, held after it was queued, was asked %d times when its turn came", name, n)
		}
	})
	t.Run("refreshed ahead", func(t *testing.T) {
		srv, holds, c, clock := start(t)
		mustAddrs(t, c, name, "192.0.2.80")
		mustAddrs(t, c, other, "192.0.2.80")
		before, beforeOther := asked(srv, name), asked(srv, other)
		holds.set(name, true)
		clock.Add(55 * time.Second) // both answers near their expiry
		c.Prefetch()                // the sweep
		waitFor(t, other+" refreshed", func() bool { return asked(srv, other) > beforeOther && c.View(0).Backlog == 0 })
		if n := asked(srv, name); n != before {
			t.Fatalf("%s, held by the operator, was asked %d times by the sweep's refresh", name, n-before)
		}
		holds.set(name, false)
		clock.Add(time.Second) // the next sweep (SweepEvery)
		c.Prefetch()
		waitFor(t, name+" refreshed once resumed", func() bool { return asked(srv, name) > before })
	})
}
