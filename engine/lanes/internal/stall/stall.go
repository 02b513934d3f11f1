// Package stall measures the crawler's own stalls, told apart from a slow server:
// the time its process stood still, which the lanes' gate discounts from an
// answer's response time before the rising-latency back-off reads it.
package stall

import (
	"sync"
	"sync/atomic"
	"time"
)

// An answer's response time is measured by the crawler. When the crawler's own
// process is starved of CPU (a loaded box, a test beside other tests, a stop of the
// world), its answers look slow because it did not run to read them, not because
// the server took long: every host seems to slow down at once. The rising-latency
// back-off must not punish hosts for that, so the gate discounts from each answer
// the time the crawler itself stood still during it.
//
// The measure is a hiccup probe (as jHiccup and Node's event-loop lag do): a
// goroutine asks to wake every stallPeriod and counts how late it woke. A process
// that is not running cannot wake on time; one that waits on a slow server can. The
// probe runs only while a request is in flight somewhere in the process (and
// stallLinger after), so an idle crawler pays nothing; while crawling it costs one
// timer wake-up every stallPeriod and no allocation per answer.
//
// A wake-up sees only the stall it falls in, from where it was due: one that
// began and ended while the probe slept is not seen, and one that began well
// before the wake-up was due is seen only in part. At one wake-up every 10 ms a
// long stall is counted nearly whole, but a box at a load of 10 to 20 stops a
// process in slices of milliseconds, and of a process stopped 10 ms in every 11 a
// tenth to a fifth was counted. So once a wake-up is late by half a period, the
// probe wakes every stallDense for stallDenseFor (each such wake-up extends it):
// a process that stands still often is looked at often, and a stall is seen from
// at most a stallDense after it began. A calm process keeps paying one wake-up a
// period.
const (
	stallPeriod = 10 * time.Millisecond
	// stallSlack: a wake-up later than this counts in full; below it, timer
	// granularity and ordinary scheduling are noise, not a stall.
	stallSlack  = 2 * time.Millisecond
	stallLinger = time.Second
	// stallDense is the probe's period for stallDenseFor after a wake-up late by
	// stallDenseAfter or more. Half a period late, not the slack: a loaded box
	// wakes a sleeper a few milliseconds late often, and waking every 2 ms on
	// each of those cost two to three times the probe's calm price (1.4% of a
	// core at a load of 10) for stalls too short to matter.
	stallDense      = 2 * time.Millisecond
	stallDenseFor   = 100 * time.Millisecond
	stallDenseAfter = stallPeriod / 2
)

// Meter sums how late its probe woke up: the time the process stood still.
type Meter struct {
	total   atomic.Int64 // nanoseconds stalled, since the process started
	holders atomic.Int64 // requests in flight that want the probe running
	running atomic.Bool

	// sleep and now are the probe's clock (tests replace them before the first hold).
	sleep func(time.Duration)
	now   func() time.Time
	mu    sync.Mutex // serialises starting the probe
}

// Process is the process-wide meter: starvation is the process's, not a gate's,
// so every gate shares one probe.
var Process = &Meter{sleep: time.Sleep, now: time.Now}

// Stalled is the total time the process stood still so far (monotonic).
func (m *Meter) Stalled() time.Duration { return time.Duration(m.total.Load()) }

// Hold says a request is in flight: the probe runs until every hold is released
// and stallLinger has passed.
func (m *Meter) Hold() {
	m.holders.Add(1)
	if m.running.Load() {
		return
	}
	m.mu.Lock()
	if m.running.CompareAndSwap(false, true) {
		go m.probe()
	}
	m.mu.Unlock()
}

// Release ends one Hold.
func (m *Meter) Release() { m.holders.Add(-1) }

// late is how much of one wake-up, due at due and seen at woke, counts as a stall.
func late(due, woke time.Time) time.Duration {
	if d := woke.Sub(due); d > stallSlack {
		return d
	}
	return 0
}

func (m *Meter) probe() {
	idleSince := time.Time{}
	var dense time.Time // until when the probe wakes every stallDense
	for {
		period := stallPeriod
		start := m.now()
		if start.Before(dense) {
			period = stallDense
		}
		due := start.Add(period)
		m.sleep(period)
		woke := m.now()
		if l := late(due, woke); l > 0 {
			m.total.Add(int64(l))
			if l >= stallDenseAfter {
				dense = woke.Add(stallDenseFor)
			}
		}
		if m.holders.Load() > 0 {
			idleSince = time.Time{}
			continue
		}
		if idleSince.IsZero() {
			idleSince = woke
			continue
		}
		if woke.Sub(idleSince) < stallLinger {
			continue
		}
		// Stop, unless a hold came in meanwhile and saw the probe still running.
		m.mu.Lock()
		m.running.Store(false)
		again := m.holders.Load() > 0
		if again {
			m.running.Store(true)
		}
		m.mu.Unlock()
		if !again {
			return
		}
		idleSince = time.Time{}
	}
}
