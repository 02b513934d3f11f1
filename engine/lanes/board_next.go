package lanes

import (
	"sort"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Next releases the tasks the lane took before (it has paused after them, or is
// still pausing when it ran dry) and hands it its next task; queued groups no longer
// adjacent to that task may move to new lanes (see split). A lane that has run dry
// takes over tasks from a busy lane on another egress (see steal), or else retires
// (ok=false) and its slot goes to the oldest pending tasks. Lanes opened either way
// are returned for starting.
func (b *Board) Next(l *Lane) (t frontier.Task, ok bool, opened []*Lane) {
	b.release(l)
	if l.paused || l.retired {
		return t, false, nil
	}
	if len(l.queue) == 0 && !b.steal(l) {
		return t, false, b.retire(l)
	}
	opened = b.split(l)
	t = l.queue[0]
	l.queue[0] = frontier.Task{}
	l.queue = l.queue[1:]
	l.holding = append(l.holding, t)
	l.done++
	l.tookFirst = b.first[t.URL]
	if l.tookFirst {
		delete(b.first, t.URL)
	}
	delete(b.ahead, t.URL)
	return t, true, opened
}

// StealBacklog is the backlog a lane on another egress must have before a lane that
// ran dry takes over part of it (see steal).
const StealBacklog = 2

// steal gives a lane that ran dry half the queue of the busiest lane on another
// egress, taken from its tail, before the lane retires: tasks are dealt to lanes when
// they are found, and by the time the last ones are fetched some addresses have
// finished their share while another still has a backlog of the same host (random
// pauses, tasks found late). Adjacency is per egress, so a host queued on one address
// may also be fetched from this one; a task moves only if this egress may serve its
// host and no other lane here holds its host or parent (one lane per host and parent
// on an address, as with Add). The per-host aggregate cap in Gate still bounds the
// host's load across addresses. It reports whether the lane got any task.
//
// It never applies while tasks wait for a lane (lanes.max reached): retiring then hands
// the slot to a host nobody fetches yet, which adds a host's worth of rate, where a
// second address on a host already served adds little once the per-host cap binds.
func (b *Board) steal(l *Lane) bool {
	if len(b.egresses) < 2 || b.pending.len() > 0 {
		return false
	}
	var donors []*Lane
	for _, d := range b.lanes {
		if d.Egress != l.Egress && !d.paused && len(d.queue) >= StealBacklog {
			donors = append(donors, d)
		}
	}
	sort.Slice(donors, func(i, j int) bool {
		if len(donors[i].queue) != len(donors[j].queue) {
			return len(donors[i].queue) > len(donors[j].queue)
		}
		return donors[i].ID < donors[j].ID
	})
	e := l.Egress
	free := func(t frontier.Task) bool {
		if !b.allowed(e, t.Host) || (b.Held != nil && b.Held(t.Host)) {
			return false
		}
		if o := b.byHost[e][t.Host]; o != nil && o != l {
			return false
		}
		if t.ParentHash != 0 {
			if o := b.byParent[e][t.ParentHash]; o != nil && o != l {
				return false
			}
		}
		return true
	}
	budget := splitScan // tasks looked at, so a lane running dry stays cheap on huge queues
	for _, d := range donors {
		if budget <= 0 {
			break
		}
		n := len(d.queue)
		lo := max(0, n-budget) // only the newest tasks are looked at
		take := make([]bool, n-lo)
		got := 0
		for i := n - 1; i >= lo && got < n/2; i-- {
			budget--
			if t := d.queue[i]; free(t) {
				b.unhold(d, t)
				b.hold(l, t) // binds host and parent here, so their next tasks pass free
				take[i-lo] = true
				got++
			}
		}
		if got == 0 {
			continue
		}
		kept := d.queue[:lo]
		for i, t := range d.queue[lo:] {
			if take[i] {
				l.queue = append(l.queue, t)
			} else {
				kept = append(kept, t)
			}
		}
		clear(d.queue[len(kept):n])
		d.queue = kept
		return true
	}
	return false
}

func (b *Board) release(l *Lane) {
	for _, t := range l.holding {
		b.unhold(l, t)
	}
	l.holding = l.holding[:0]
}

func (b *Board) retire(l *Lane) []*Lane {
	l.retired = true
	delete(b.lanes, l.ID)
	return b.fill()
}

// fill opens lanes for pending tasks while slots are free.
func (b *Board) fill() []*Lane {
	var opened []*Lane
	for len(b.lanes) < b.max {
		t, ok := b.pending.pop()
		if !ok {
			break
		}
		if l := b.choose(t); l != nil { // a lane opened meanwhile may already hold it
			b.join(l, t)
			continue
		}
		e := b.emptiestEgress(t)
		if e < 0 { // no egress may serve its host now: the engine defers such hosts
			b.repend(t)
			break
		}
		opened = append(opened, b.open(t, e))
	}
	return opened
}
