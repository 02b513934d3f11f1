package lanes

import (
	"sync"
	"sync/atomic"
	"time"
)

// The crawler's own stalls, told apart from a slow server.
//
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
const (
	stallPeriod = 10 * time.Millisecond
	// stallSlack: a wake-up later than this counts in full; below it, timer
	// granularity and ordinary scheduling are noise, not a stall.
	stallSlack  = 2 * time.Millisecond
	stallLinger = time.Second
)

// stallMeter sums how late its probe woke up: the time the process stood still.
type stallMeter struct {
	total   atomic.Int64 // nanoseconds stalled, since the process started
	holders atomic.Int64 // requests in flight that want the probe running
	running atomic.Bool

	// sleep and now are the probe's clock (tests replace them before the first hold).
	sleep func(time.Duration)
	now   func() time.Time
	mu    sync.Mutex // serialises starting the probe
}

// processStalls is the process-wide meter: starvation is the process's, not a
// gate's, so every gate shares one probe.
var processStalls = &stallMeter{sleep: time.Sleep, now: time.Now}

// Stalled is the total time the process stood still so far (monotonic).
func (m *stallMeter) Stalled() time.Duration { return time.Duration(m.total.Load()) }

// hold says a request is in flight: the probe runs until every hold is released
// and stallLinger has passed.
func (m *stallMeter) hold() {
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

// release ends one hold.
func (m *stallMeter) release() { m.holders.Add(-1) }

// late is how much of one wake-up, due at due and seen at woke, counts as a stall.
func late(due, woke time.Time) time.Duration {
	if d := woke.Sub(due); d > stallSlack {
		return d
	}
	return 0
}

func (m *stallMeter) probe() {
	idleSince := time.Time{}
	for {
		due := m.now().Add(stallPeriod)
		m.sleep(stallPeriod)
		woke := m.now()
		m.total.Add(int64(late(due, woke)))
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
