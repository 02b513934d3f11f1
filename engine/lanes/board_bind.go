package lanes

import (
	"slices"
	"sort"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// The M1 binding in one place: where a task goes on the board (Add, choose, open,
// place; AddFirst and AddAhead in board_tiers.go) and which task a lane takes next
// (Next, steal, split, fill),
// so that one lane's turn reads, and runs, in this file.

// Placement tells the caller what Add did with a task.
type Placement struct {
	Lane    *Lane // lane the task joined or opened; nil when it waits
	Opened  bool  // a new lane was opened: the caller starts its goroutine
	Pending bool  // no lane could take it: it waits for one to retire
}

// Add places a task on a lane by the M1 rule, or parks it as pending.
func (b *Board) Add(t frontier.Task) Placement {
	if l := b.choose(t); l != nil {
		b.place(l, t)
		return Placement{Lane: l}
	}
	if len(b.lanes) < b.max && !b.held(t.Host) {
		if e := b.emptiestEgress(t); e >= 0 {
			return Placement{Lane: b.open(t, e), Opened: true}
		}
	}
	b.repend(t)
	return Placement{Pending: true}
}

// held is Held's answer, false when there is no rule.
func (b *Board) held(host string) bool { return b.Held != nil && b.Held(host) }

// repend puts a task in the pending queue, in its tier: the operator's tasks
// (AddFirst) and the articles just listed (AddAhead) keep their place ahead of the
// rest when they wait, or wait again (a lane shed under a lowered lanes.max).
func (b *Board) repend(t frontier.Task) {
	switch {
	case b.first[t.URL]:
		b.pending.PushFirst(t)
	case b.ahead[t.URL]:
		b.pending.PushAhead(t)
	default:
		b.pending.Push(t)
	}
}

// leading is how many tasks at the head of l's queue were added by AddFirst.
func (b *Board) leading(l *Lane) int {
	n := 0
	for n < len(l.queue) && b.first[l.queue[n].URL] {
		n++
	}
	return n
}

// UrgentAhead reports whether the head of l's queue is a task added by AddFirst.
func (b *Board) UrgentAhead(l *Lane) bool {
	return len(b.first) > 0 && len(l.queue) > 0 && b.first[l.queue[0].URL]
}

// PutBack returns t, the task l took last and has not fetched, to l's queue behind
// the AddFirst tasks at its head: the lane trades the task in its hand for the
// operator's. t stays held by the lane (its host and parent still bind
// adjacent tasks here), so M1 holds throughout.
func (b *Board) PutBack(l *Lane, t frontier.Task) {
	for i := len(l.holding) - 1; i >= 0; i-- {
		if l.holding[i].URL == t.URL {
			l.holding = append(l.holding[:i], l.holding[i+1:]...)
			break
		}
	}
	i := b.leading(l)
	l.queue = append(l.queue, frontier.Task{})
	copy(l.queue[i+1:], l.queue[i:])
	l.queue[i] = t
	l.done--
}

// forget drops the AddFirst and AddAhead marks of tasks taken off the board.
func (b *Board) forget(tasks []frontier.Task) {
	if len(b.first) == 0 && len(b.ahead) == 0 {
		return
	}
	for _, t := range tasks {
		delete(b.first, t.URL)
		delete(b.ahead, t.URL)
	}
}

// choose returns the lane an adjacent task must join, or nil when the task should
// open a new lane (not adjacent anywhere, or adjacent only to busy lanes while
// another egress is free of adjacency and a lane slot is open).
// allowed is Allowed's answer, true when there is no rule.
func (b *Board) allowed(e int, host string) bool { return b.Allowed == nil || b.Allowed(e, host) }

func (b *Board) choose(t frontier.Task) *Lane {
	var best *Lane
	free := false // some egress has no lane adjacent to t
	for e := range b.egresses {
		if !b.allowed(e, t.Host) {
			continue
		}
		l := b.byHost[e][t.Host] // M1: prefer the host match
		if l == nil && t.ParentHash != 0 {
			l = b.byParent[e][t.ParentHash]
		}
		if l == nil {
			free = true
			continue
		}
		if best == nil || l.Backlog() < best.Backlog() {
			best = l
		}
	}
	if best == nil {
		return nil
	}
	if free && best.Backlog() >= SpreadBacklog && len(b.lanes) < b.max {
		return nil // spread the host to an egress where it is not adjacent to anything
	}
	return best
}

// open creates a lane for t on egress e (see emptiestEgress), then pulls in every
// pending task adjacent to it. A pending task whose host another lane on e holds
// already (it is adjacent to t by parent only) joins that lane instead: the host match
// comes first (M1), and a host has one lane per egress.
func (b *Board) open(t frontier.Task, e int) *Lane {
	l := b.newLane(e)
	b.join(l, t)
	for _, p := range b.pending.TakeAdjacent(t.Host, t.ParentHash) {
		if !b.allowed(e, p.Host) {
			b.repend(p)
			continue
		}
		dst := l
		if o := b.byHost[e][p.Host]; o != nil {
			dst = o
		}
		b.join(dst, p)
	}
	return l
}

func (b *Board) newLane(e int) *Lane {
	b.nextID++
	l := &Lane{ID: b.nextID, Egress: e, hosts: map[string]int{}, parents: map[uint64]int{}}
	b.lanes[l.ID] = l
	if len(b.lanes) > b.peak {
		b.peak = len(b.lanes)
	}
	return l
}

// splitScan bounds the queue a split looks at, so Next stays cheap on huge lanes.
const splitScan = 4096

// split gives the groups of a lane's queue that are no longer adjacent to its next
// task lanes of their own on the same egress, while lane slots are free. Tasks are
// bound to a lane only through tasks it holds (M1): once the page that tied two hosts
// together (their shared parent) is fetched and released, their remaining tasks form
// separate adjacency groups, and serving those in parallel is what lanes are for.
// A group holds every queued task of its hosts and parents, so no host or parent
// ends up in two lanes of one egress.
func (b *Board) split(l *Lane) []*Lane {
	n := len(l.queue)
	if n < 2 || n > splitScan || len(b.lanes) >= b.max {
		return nil
	}
	root := make([]int, n)
	for i := range root {
		root[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for root[i] != i {
			root[i] = root[root[i]]
			i = root[i]
		}
		return i
	}
	union := func(a, c int) { root[find(a)] = find(c) }
	byHost := make(map[string]int, n)
	byParent := make(map[uint64]int, n)
	for i, t := range l.queue {
		if j, ok := byHost[t.Host]; ok {
			union(i, j)
		} else {
			byHost[t.Host] = i
		}
		if t.ParentHash != 0 {
			if j, ok := byParent[t.ParentHash]; ok {
				union(i, j)
			} else {
				byParent[t.ParentHash] = i
			}
		}
	}
	head := find(0)
	// Most lanes hold one adjacency group (one host's pages): Next calls split for
	// each task it hands out, so that case returns before copying the queue.
	one := true
	for i := 1; i < n && one; i++ {
		one = find(i) == head
	}
	if one {
		return nil
	}
	var order []int // group roots in queue order
	groups := map[int][]frontier.Task{}
	var kept []frontier.Task
	for i, t := range l.queue {
		r := find(i)
		if r == head {
			kept = append(kept, t)
			continue
		}
		if groups[r] == nil {
			order = append(order, r)
		}
		groups[r] = append(groups[r], t)
	}
	var opened []*Lane
	for _, r := range order {
		if len(b.lanes) >= b.max {
			kept = append(kept, groups[r]...)
			continue
		}
		for _, t := range groups[r] {
			b.unhold(l, t)
		}
		nl := b.newLane(l.Egress)
		for _, t := range groups[r] {
			b.join(nl, t)
		}
		opened = append(opened, nl)
	}
	l.queue = kept
	return opened
}

// emptiestEgress is the egress with the fewest lanes among those allowed to serve t's
// host and, preferably, holding nothing adjacent to t; -1 if none may serve the host.
func (b *Board) emptiestEgress(t frontier.Task) int {
	counts := make([]int, len(b.egresses))
	for _, l := range b.lanes {
		counts[l.Egress]++
	}
	best, fallback := -1, -1
	for e := range b.egresses {
		if !b.allowed(e, t.Host) {
			continue
		}
		if fallback < 0 {
			fallback = e
		}
		if b.byHost[e][t.Host] != nil || (t.ParentHash != 0 && b.byParent[e][t.ParentHash] != nil) {
			continue
		}
		if best < 0 || counts[e] < counts[best] {
			best = e
		}
	}
	if best < 0 {
		return fallback
	}
	return best
}

// place queues t on l in its place: an AddFirst task behind those at the head of
// the queue, an AddAhead task behind them and the AddAhead tasks there, any other at
// the back; so a task that waited for a lane keeps its place when a freed slot
// finds it a lane that holds its host.
func (b *Board) place(l *Lane, t frontier.Task) {
	i := len(l.queue)
	if first, ahead := b.first[t.URL], b.ahead[t.URL]; first || ahead {
		i = b.leading(l)
		for ahead && i < len(l.queue) && b.ahead[l.queue[i].URL] {
			i++
		}
	}
	l.queue = slices.Insert(l.queue, i, t)
	b.hold(l, t)
}

// join queues t at the back of l: a lane opened for t, or tasks pulled in in their
// order (a pending queue's tiers, a queue split).
func (b *Board) join(l *Lane, t frontier.Task) {
	l.queue = append(l.queue, t)
	b.hold(l, t)
}

func (b *Board) hold(l *Lane, t frontier.Task) {
	l.hosts[t.Host]++
	if b.byHost[l.Egress][t.Host] == nil {
		b.byHost[l.Egress][t.Host] = l
	}
	if t.ParentHash != 0 {
		l.parents[t.ParentHash]++
		if b.byParent[l.Egress][t.ParentHash] == nil {
			b.byParent[l.Egress][t.ParentHash] = l
		}
	}
}

func (b *Board) unhold(l *Lane, t frontier.Task) {
	if l.hosts[t.Host]--; l.hosts[t.Host] <= 0 {
		delete(l.hosts, t.Host)
		if b.byHost[l.Egress][t.Host] == l {
			delete(b.byHost[l.Egress], t.Host)
		}
	}
	if t.ParentHash != 0 {
		if l.parents[t.ParentHash]--; l.parents[t.ParentHash] <= 0 {
			delete(l.parents, t.ParentHash)
			if b.byParent[l.Egress][t.ParentHash] == l {
				delete(b.byParent[l.Egress], t.ParentHash)
			}
		}
	}
}

// Next releases the tasks the lane took before (it has paused after them, or is
// still pausing when it ran dry) and hands it its next task, the first of a host
// the operator has not paused; queued groups no longer adjacent to that task may
// move to new lanes (see split). A lane that has run dry takes over tasks from a
// busy lane on another egress (see steal), or else retires (ok=false) and its slot
// goes to the oldest pending tasks. Lanes opened either way are returned for
// starting. While more lanes are alive than lanes.max, the lane retires at once and
// gives its queue back (see shed); lanes the operator paused do not count. So does
// a lane whose queue holds only paused hosts' tasks.
func (b *Board) Next(l *Lane) (t frontier.Task, ok bool, opened []*Lane) {
	b.release(l)
	if l.paused || l.retired {
		return t, false, nil
	}
	if len(b.lanes) > b.max && b.unpaused() > b.max {
		b.shed(l)
		return t, false, nil
	}
	if len(l.queue) == 0 && !b.steal(l) {
		return t, false, b.retire(l)
	}
	opened = b.split(l)
	i := b.unheld(l)
	if i < 0 {
		// Every task queued is of a host the operator paused: a lane sitting on
		// them would keep a slot from the tasks of every other host for as long as
		// the pause. They wait for a lane again, and no lane opens for them until
		// the host is resumed (Fill).
		b.shed(l)
		return t, false, append(opened, b.fill()...)
	}
	// Taken from the head's side: the i tasks before it (i < splitScan) move up one
	// and the queue starts one later, so a lane with a long queue pays for the tasks
	// it passes over, not for its whole queue, at every turn.
	t = l.queue[i]
	copy(l.queue[1:i+1], l.queue[:i])
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

// unheld is the position of the first task in l's queue whose host the operator has
// not paused, -1 if there is none (within splitScan). A lane binds every host
// adjacent to what it holds, so one lane may serve several hosts: taking a paused
// host's task first would hold the others' tasks behind it for as long as the pause.
func (b *Board) unheld(l *Lane) int {
	if b.Held == nil {
		return 0
	}
	for i, t := range l.queue[:min(len(l.queue), splitScan)] {
		if !b.Held(t.Host) {
			return i
		}
	}
	return -1
}

// SetAside puts t, the task l took last and has not fetched, back in l's queue when
// the operator paused t's host; it reports whether it did. t stays held by the lane
// (PutBack), so its host and parent keep binding adjacent tasks here (M1) until the
// lane's next turn, where it takes another host's task or, having none, gives its
// queue back and its slot up (Next).
func (b *Board) SetAside(l *Lane, t frontier.Task) bool {
	if !b.held(t.Host) {
		return false
	}
	b.PutBack(l, t)
	return true
}

// Turn is what a lane's turn at the board gives its runner: Next's answer, and the
// lane's figures that go with it, so that the lane's front reads them in the one
// call.
type Turn struct {
	Task   frontier.Task
	OK     bool    // false: no task (the lane retired, or it is paused)
	Opened []*Lane // lanes opened on the way for pending tasks, to start
	Urgent bool    // the task is an operator's (Lane.TookUrgent)
	Done   int64   // the tasks the lane has taken (Lane.Done)
}

// Take is Next, with the lane's figures (Turn).
func (b *Board) Take(l *Lane) Turn {
	t, ok, opened := b.Next(l)
	return Turn{Task: t, OK: ok, Opened: opened, Urgent: l.tookFirst, Done: l.done}
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
	if len(b.egresses) < 2 || b.pending.Len() > 0 {
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

// shed retires a lane while more lanes are alive than lanes.max (the operator
// lowered it) and gives its queue back to the pending queue, in order: a lane whose
// hosts keep yielding tasks never runs dry, so without this the lanes above the cap
// would go on for as long as their hosts do. The lanes left under the cap take the
// tasks back as they retire (fill); the lane has released what it held, so no
// host or parent is bound to it any more (M1).
func (b *Board) shed(l *Lane) {
	for _, t := range l.queue {
		b.unhold(l, t)
		b.repend(t)
	}
	clear(l.queue)
	l.queue = nil
	l.retired = true
	delete(b.lanes, l.ID)
}

// unpaused counts the lanes that can fetch: a lane the operator paused takes no
// turn, so it is never shed, and counting it against lanes.max would shed the lanes
// that fetch beside it.
func (b *Board) unpaused() int {
	n := 0
	for _, l := range b.lanes {
		if !l.paused {
			n++
		}
	}
	return n
}

func (b *Board) retire(l *Lane) []*Lane {
	l.retired = true
	delete(b.lanes, l.ID)
	return b.fill()
}

// Fill opens lanes for the pending tasks while slots are free, and returns them for
// starting: a host the operator resumed has its tasks waiting there.
func (b *Board) Fill() []*Lane { return b.fill() }

// fill opens lanes for pending tasks while slots are free. A task no egress may
// serve now, or of a host the operator paused, is passed over, not waited on: the
// tasks behind it get the free slots, and it waits, behind them, for the next slot
// (the engine defers such hosts; a paused one is resumed).
func (b *Board) fill() []*Lane {
	var opened []*Lane
	var unserved []frontier.Task
	for len(b.lanes) < b.max {
		t, ok := b.pending.Pop()
		if !ok {
			break
		}
		if l := b.choose(t); l != nil { // a lane opened meanwhile may already hold it
			b.place(l, t)
			continue
		}
		e := -1
		if !b.held(t.Host) {
			e = b.emptiestEgress(t)
		}
		if e < 0 {
			unserved = append(unserved, t)
			continue
		}
		opened = append(opened, b.open(t, e))
	}
	for _, t := range unserved {
		b.repend(t)
	}
	return opened
}
