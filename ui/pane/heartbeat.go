package pane

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// heartbeatLateDefault is the heartbeat age counted late when the snapshot does not
// give the period: two periods of the default 5s (M4, seed 003). A worker past it
// has missed a beat; the master declares it dead at its own timeout and deals its
// hosts to the others.
const heartbeatLateDefault = 10 * time.Second

// HeartbeatLate is the age past which a worker's heartbeat is late: two of the
// crawl's heartbeat periods (every), or two of the default 5s when unknown.
func HeartbeatLate(every time.Duration) time.Duration {
	if every > 0 {
		return 2 * every
	}
	return heartbeatLateDefault
}

// HeartbeatAge is how long before now (the snapshot's clock, the master's, so a
// console on another machine is not fooled by clock skew) n's last heartbeat came,
// whether it never came, and whether it is late. A worker that left sends none,
// rightly, and is never late. The Nodes pane and `ctl status` both judge by it.
func HeartbeatAge(n view.Node, now time.Time, every time.Duration) (age time.Duration, never, late bool) {
	if n.Heartbeat.IsZero() {
		return 0, true, true
	}
	age = max(now.Sub(n.Heartbeat), 0)
	return age, false, age > HeartbeatLate(every) && n.State != view.NodeLeft
}
