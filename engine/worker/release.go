package worker

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Releases. The master moves a unit away from this worker by asking it to hand
// back the unit's tasks on its board (wire.OpRelease); the unit moves once every
// task the master counts handed out of it came back or reported. The release is a
// request and the tasks come in batches over the task stream, two paths that do
// not keep each other's order: a batch the master handed out before the release
// can reach the board after it. Placed, its tasks would wait for this worker's
// lanes, which may be busy for long (a slow host holding them), and the unit would
// sit with no worker fetching it. So the worker remembers, by unit, the last
// lease the master had handed out when it asked (wire.Control.Lease), and hands
// back the tasks of that unit numbered up to it that a batch brings later. A
// unit dealt back to this worker afterwards is handed out under later leases and
// placed as any other.
//
// A budget's recall is a release that names hosts and no unit (the units stay
// here): it asks for the queued tasks of those hosts, handed out before a page
// budget was set or lowered, so they are counted against it. A batch on its way
// would escape it the same way, so the worker remembers the recalled hosts too,
// with the master's last lease, and hands back their tasks numbered up to it.

// releasedKept is how long the worker remembers a release: far longer than a
// batch takes to come (the stream delivers one again after wire.TaskAckWait), and
// it bounds the memory a long crawl's moves take.
const releasedKept = 20 * wire.TaskAckWait

// released is a unit released: its tasks numbered up to upTo are the master's.
type released struct {
	upTo uint64
	at   time.Time
}

// release carries out the master's release: the tasks of c.Units on c.Hosts
// waiting on the board are handed back (returned, and sent again with the
// heartbeats until the master confirms them), and so are those a batch brings
// later under a lease up to c.Lease. A release with no unit (a budget's recall)
// is of every task on c.Hosts, waiting now or brought later under such a lease.
func (n *Node) release(c *wire.Control) []frontier.Task {
	n.placeMu.Lock()
	defer n.placeMu.Unlock()
	if c.Lease > 0 {
		now := time.Now()
		if len(c.Units) > 0 {
			n.released = remember(n.released, c.Units, c.Lease, now)
		} else {
			n.recalled = remember(n.recalled, c.Hosts, c.Lease, now)
		}
	}
	tasks := n.lanes.Release(c.Hosts, c.Units)
	n.handBack(tasks)
	return tasks
}

// remember records that the master took back names (units or hosts) up to lease
// upTo, and forgets the releases older than releasedKept.
func remember(m map[string]released, names []string, upTo uint64, now time.Time) map[string]released {
	if m == nil {
		m = map[string]released{}
	}
	for name, r := range m {
		if now.Sub(r.at) > releasedKept {
			delete(m, name)
		}
	}
	for _, name := range names {
		m[name] = released{upTo: max(upTo, m[name].upTo), at: now}
	}
	return m
}

// unreleased splits a batch's tasks into those to place and those the master took
// back after they were handed out, their unit released or their host recalled (to
// hand back). Caller holds n.placeMu.
func (n *Node) unreleased(tasks []frontier.Task) (place, back []frontier.Task) {
	if len(n.released) == 0 && len(n.recalled) == 0 {
		return tasks, nil
	}
	takenBack := func(r released, ok bool, t frontier.Task) bool { return ok && t.Lease != 0 && t.Lease <= r.upTo }
	for _, t := range tasks {
		r, ok := n.released[wire.UnitOf(t)]
		h, hok := n.recalled[t.Host]
		if takenBack(r, ok, t) || takenBack(h, hok, t) {
			back = append(back, t)
		} else {
			place = append(place, t)
		}
	}
	return place, back
}

// handBack queues tasks for the master with the heartbeats (wire.Heartbeat.HandedBack).
func (n *Node) handBack(tasks []frontier.Task) {
	if len(tasks) == 0 {
		return
	}
	n.mu.Lock()
	n.handedBack = append(n.handedBack, tasks...)
	n.mu.Unlock()
}
