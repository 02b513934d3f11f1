package master

import (
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A batch's life in the table: dealt (Dispatch), being published (Publishing),
// then stored in the worker's stream (Sent), taken back (Undo), or left handed out
// with its fate unknown (Unanswered).

// Batch is tasks handed to one worker incarnation.
type Batch struct {
	Node, Incarnation string
	Tasks             []frontier.Task
	// LastRequest is, by host, when the last request to it ended as far as the
	// table knows (wire.Tasks.LastRequest).
	LastRequest map[string]time.Time
	life        uint64 // the worker's life it was dealt to (node.life)
}

// Dispatch hands each live, unpaused worker tasks of its units, up to window held
// by it, and returns them by worker (in name order), one batch a worker. Each task
// gets a new lease. A worker whose batch is being published (Publishing) is dealt
// nothing until that publish resolves (Sent, Undo or Unanswered): its batches go out one at a
// time, in order, and a publish tried again for half a minute holds back that
// worker's tasks alone.
func (t *Table) Dispatch(window int) []Batch {
	var out []Batch
	for _, name := range sortedKeys(t.nodes) {
		n := t.nodes[name]
		if n.state != view.NodeActive || n.recorded != nil && !n.recorded.Load() || t.isPublishing(n) {
			continue
		}
		var tasks []frontier.Task
		var last map[string]time.Time
		units := sortedKeys(n.units)
		ready := func(u *unit) bool {
			return u != nil && u.owner == name && u.next == "" && len(u.tasks) > 0 && !u.reserved && t.dealable(u)
		}
		// hand gives the unit's next task to n, or drops it (false) when the front
		// holds it back or its URL is in flight already.
		hand := func(u *unit) bool {
			task := u.tasks[0]
			u.tasks = u.tasks[1:]
			t.pending--
			if _, out := t.inflight[task.URL]; out {
				// One hand-out of a URL at a time: the in-flight table keeps one
				// lease per URL, so a second would make the first's report late
				// and two workers fetch the page. The hand-out out ends the URL,
				// or comes back to the queue itself. No path is known to queue a
				// URL in flight; the count says if one does.
				t.doubled++
				t.front.Dropped(task)
				return false
			}
			if !t.front.Admit(&task) {
				return false
			}
			u.out++
			t.lease++
			task.Lease = t.lease
			t.inflight[task.URL] = task.Lease
			n.held[task.URL] = task
			t.front.HandedOut(task)
			tasks = append(tasks, task)
			if at := t.lastRequest(u, task.Host); !at.IsZero() {
				if last == nil {
					last = map[string]time.Time{}
				}
				last[task.Host] = at
			}
			return true
		}
		// Urgent tasks (an entry or search the operator added live; Add put them
		// first in their unit) go out now, past the window: waiting for a slot
		// would queue them behind everything the worker holds, and they are a
		// handful per command.
		for _, name := range units {
			for u := t.units[name]; ready(u) && u.tasks[0].Urgent; {
				hand(u)
			}
		}
		room := window - len(n.held)
		// Round-robin over the worker's units, so one big unit does not fill the
		// window while others wait. It goes on from the unit after the one served
		// last: a window full but for the slot or two its reports freed gets the
		// next units' tasks in turn. Started from the first unit each time, that
		// unit would take every freed slot until it ran dry, and the worker's other
		// sites and keyword shards would sit with nothing handed out meanwhile.
		if i, found := slices.BinarySearch(units, n.served); n.served != "" {
			if found {
				i++
			}
			units = slices.Concat(units[i:], units[:i])
		}
		for room > 0 {
			took := false
			for _, name := range units {
				if u := t.units[name]; ready(u) && room > 0 {
					if hand(u) {
						room--
						n.served = name
					}
					took = true
				}
			}
			if !took {
				break
			}
		}
		if len(tasks) > 0 {
			out = append(out, Batch{Node: name, Incarnation: n.inc, Tasks: tasks, LastRequest: last, life: n.life})
		}
	}
	return out
}

// SetHostPaused holds host's tasks at the master while the operator pauses it: a
// worker dealt them holds them unfetched, and with its window full of them it
// would be dealt nothing more of their unit, its other hosts stalled behind the
// paused one. Caller holds the lock.
func (t *Table) SetHostPaused(host string, paused bool) {
	if paused {
		if t.hostsPaused == nil {
			t.hostsPaused = map[string]bool{}
		}
		t.hostsPaused[host] = true
		return
	}
	delete(t.hostsPaused, host)
	for _, u := range t.units {
		u.stalled = false
	}
	t.Kick()
}

// dealable tells whether u has a task to deal now, one of a host not paused, and
// puts it first: the paused hosts' tasks in front of it go behind the others, in
// their order.
func (t *Table) dealable(u *unit) bool {
	if len(t.hostsPaused) == 0 {
		return true
	}
	if u.stalled {
		return false
	}
	i := slices.IndexFunc(u.tasks, func(task frontier.Task) bool { return !t.hostsPaused[task.Host] })
	if i < 0 {
		u.stalled = true
		return false
	}
	if i > 0 {
		u.tasks = slices.Concat(u.tasks[i:], u.tasks[:i])
	}
	return true
}

// Sent records that batch b is stored in the task stream at seq. false: the life of
// the worker it was dealt to ended meanwhile (declared dead, or restarted), its tasks
// went back to the queue, and the batch is to be dropped: the worker, rejoining
// under the same incarnation, would fetch them too.
func (t *Table) Sent(b Batch, seq uint64) bool {
	t.published(b)
	n := t.nodes[b.Node]
	if n == nil || n.inc != b.Incarnation || n.life != b.life {
		return false
	}
	n.sent = max(n.sent, seq)
	return true
}

// Undo takes back a batch that could not be sent: its tasks wait for the next
// dispatch, first in their units as they were. Nodes are never forgotten, so a
// batch's node is always found; were it not, nothing would say its tasks were
// still out, and none is requeued.
//
// Only a batch of the node's current life is taken back. A node buried while the
// publish was tried (or replaced by a new incarnation, the old one buried) had
// what it held requeued then: requeued again here, a task would wait twice and be
// dealt twice. And a node rejoined since under the same incarnation holds of the
// batch only what its join claimed (adopt), under the batch's own leases: the
// batch reached it, whatever the publish answered (stored before the connection
// failed), and taken back here that task would be dealt again while the worker
// fetches it. What the worker did not claim it drops should the batch still
// reach it: its leases are below the rejoin's first (wire.JoinReply.Since), and
// the worker fetches none of those but the ones the master kept.
func (t *Table) Undo(b Batch) {
	t.published(b)
	n := t.nodes[b.Node]
	if n == nil || n.inc != b.Incarnation || n.life != b.life {
		return
	}
	for _, task := range slices.Backward(b.Tasks) { // each goes first in line: the first last keeps the order
		if held, ok := n.held[task.URL]; !ok || held.Lease != task.Lease {
			continue
		}
		t.unhand(n, task)
		t.requeue(task)
	}
}

// Unanswered records that batch b's publish ended without saying whether the
// stream stored it: its tasks stay handed out to the worker, which may have it, and
// the worker may be dealt again. What the worker never got is reclaimed with the
// hand-outs held by nobody (idleFor). A node whose life ended meanwhile had what it
// held requeued then.
func (t *Table) Unanswered(b Batch) { t.published(b) }

// Publishing records that batch b is being published: its worker is dealt nothing
// more until Sent, Undo or Unanswered says how that ended. Only that incarnation: a new one
// (the worker restarted) drops the batch should it reach it, and is dealt at once.
func (t *Table) Publishing(b Batch) { t.publishing[b.Node] = b.Incarnation }

// isPublishing tells whether a batch of n's incarnation is being published.
func (t *Table) isPublishing(n *node) bool {
	inc, ok := t.publishing[n.name]
	return ok && inc == n.inc
}

// published records that batch b's publish resolved: its worker may be dealt
// again.
func (t *Table) published(b Batch) {
	if inc, ok := t.publishing[b.Node]; ok && inc == b.Incarnation {
		delete(t.publishing, b.Node)
		t.Kick()
	}
}
