// Package lanes is the lane side of a crawl: adjacency lanes (M1), the politeness
// gate, and the Runner that runs each lane over the port it defines from a front
// (Front: tasks in, outcomes out), with robots.txt, retries, the refusal judge and
// routing over egresses (subpackage route), and the DNS cache's glue (dns.go).
//
// A site flags an IP as a bot when, within a short window, that IP requests many
// "adjacent" pages: pages on the same host, or pages linked from the same parent page.
// The Board binds every task to a lane so that adjacent tasks are fetched serially by
// one lane, with a random human-like pause between requests, while unrelated tasks are
// fetched in parallel by other lanes.
//
// The rule (M1), judged per egress address because that is what a server sees:
//   - a task is adjacent to a lane when its host is a host the lane holds, or its
//     parent hash is a parent hash the lane holds (the hash of the seed's parent, 0,
//     binds nothing);
//   - adjacent: it joins that lane, preferring the host match when the host and the
//     parent point at different lanes;
//   - not adjacent: it opens a new lane, up to Max; beyond that it waits (pending)
//     until a lane retires;
//   - a lane holds the host and parent of every task it has queued, in flight, or just
//     fetched and is still pausing after; lanes that run dry retire.
//
// With several egresses a host may be served by one lane per egress: when every lane a
// task is adjacent to has a backlog, and some egress has no lane adjacent to the task,
// a new lane opens there (the per-host aggregate cap in Gate keeps the site's load
// unchanged); and a lane that runs dry first takes over half the longest backlog on
// another egress that it is not adjacent to on its own (see steal), retiring only
// when there is none. With one egress neither happens and the rule above is exact.
package lanes

import (
	"fmt"
	"sort"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// SpreadBacklog is the backlog a lane must have before a host spreads to another
// egress (only when several egresses exist).
const SpreadBacklog = 2

// Lane is one serial fetcher bound to one egress. Its fields are owned by the Board
// and read only under the Board's lock (use Board.View for a copy).
type Lane struct {
	ID      int
	Egress  int // index into the Board's egress list
	queue   []frontier.Task
	holding []frontier.Task // tasks taken by the lane and not yet released
	hosts   map[string]int  // host -> tasks held (queued + taken)
	parents map[uint64]int  // parent hash -> tasks held
	paused  bool
	retired bool
	done    int64

	tookFirst bool // the task taken last was added by AddFirst
}

// TookUrgent reports whether the task the lane took last was added by AddFirst.
func (l *Lane) TookUrgent() bool { return l.tookFirst }

// Backlog is the number of tasks queued in the lane.
func (l *Lane) Backlog() int { return len(l.queue) }

// Paused reports whether the operator paused the lane.
func (l *Lane) Paused() bool { return l.paused }

// Done is the number of tasks the lane has taken.
func (l *Lane) Done() int64 { return l.done }

// Retired reports whether the lane ran dry and gave up its slot.
func (l *Lane) Retired() bool { return l.retired }

// Board assigns tasks to lanes (M1). It is not safe for concurrent use; the engine
// guards it with one mutex.
type Board struct {
	max      int
	egresses []string
	nextID   int
	lanes    map[int]*Lane
	byHost   []map[string]*Lane // per egress: host -> lane holding it
	byParent []map[uint64]*Lane // per egress: parent hash -> lane holding it
	pending  pendingQueue
	peak     int
	first    map[string]bool // URLs added by AddFirst and not yet taken
	ahead    map[string]bool // URLs added by AddAhead and not yet taken

	// Allowed, if set, says whether egress may serve host now (M3: no pair ban, no
	// proxy-fault cooldown). Lanes on other egresses are not joined and no lane opens
	// there for the host.
	Allowed func(egress int, host string) bool
	// Held, if set, says the operator paused host: a lane that runs dry does not take
	// over its tasks (it would only sit on them; see steal).
	Held func(host string) bool
}

func (b *Board) allowed(e int, host string) bool { return b.Allowed == nil || b.Allowed(e, host) }

// NewBoard returns a Board for max lanes over the named egresses (at least one; the
// default egress is the host's own address).
func NewBoard(max int, egresses []string) *Board {
	if len(egresses) == 0 {
		egresses = []string{"direct"}
	}
	b := &Board{max: max, egresses: append([]string(nil), egresses...), lanes: map[int]*Lane{}}
	for range b.egresses {
		b.byHost = append(b.byHost, map[string]*Lane{})
		b.byParent = append(b.byParent, map[uint64]*Lane{})
	}
	b.pending.init()
	return b
}

// Placement tells the caller what Add did with a task.
type Placement struct {
	Lane    *Lane // lane the task joined or opened; nil when it waits
	Opened  bool  // a new lane was opened: the caller starts its goroutine
	Pending bool  // no lane could take it: it waits for one to retire
}

// Add places a task on a lane by the M1 rule, or parks it as pending.
func (b *Board) Add(t frontier.Task) Placement {
	if l := b.choose(t); l != nil {
		b.join(l, t)
		return Placement{Lane: l}
	}
	if len(b.lanes) < b.max {
		if e := b.emptiestEgress(t); e >= 0 {
			return Placement{Lane: b.open(t, e), Opened: true}
		}
	}
	b.pending.push(t)
	return Placement{Pending: true}
}

// AddFirst is Add for a task the operator asked for now (a keyword or site added
// while the crawl runs): when it joins a lane it goes to the head of the
// lane's queue, behind other such tasks, so it is that lane's next fetch; a lane
// waiting with an ordinary task in hand may trade it for this one (UrgentAhead,
// PutBack). M1 is unchanged: the lane, its egress and its pause are the same as with
// Add.
func (b *Board) AddFirst(t frontier.Task) Placement {
	if b.first == nil {
		b.first = map[string]bool{}
	}
	b.first[t.URL] = true
	if l := b.choose(t); l != nil {
		i := b.leading(l)
		l.queue = append(l.queue, frontier.Task{})
		copy(l.queue[i+1:], l.queue[i:])
		l.queue[i] = t
		b.hold(l, t)
		return Placement{Lane: l}
	}
	return b.Add(t)
}

// AddAhead is Add for a task a feed or sitemap has just listed as new (an article
// published since its last read): when it joins a lane it goes ahead of the lane's
// ordinary tasks (due reads, revisits, links of pages), behind the AddFirst tasks and
// the AddAhead tasks already there, so the articles a read finds are fetched in the
// order listed before the lane's next read; when it finds no lane it waits in the
// pending queue's first tier, which new lanes take from before the rest. M1 is
// unchanged, as with AddFirst.
func (b *Board) AddAhead(t frontier.Task) Placement {
	if b.ahead == nil {
		b.ahead = map[string]bool{}
	}
	b.ahead[t.URL] = true
	if l := b.choose(t); l != nil {
		i := b.leading(l)
		for i < len(l.queue) && b.ahead[l.queue[i].URL] {
			i++
		}
		l.queue = append(l.queue, frontier.Task{})
		copy(l.queue[i+1:], l.queue[i:])
		l.queue[i] = t
		b.hold(l, t)
		return Placement{Lane: l}
	}
	if len(b.lanes) < b.max {
		if e := b.emptiestEgress(t); e >= 0 {
			return Placement{Lane: b.open(t, e), Opened: true}
		}
	}
	b.pending.pushAhead(t)
	return Placement{Pending: true}
}

// repend puts back in the pending queue, in its tier, a task taken from it.
func (b *Board) repend(t frontier.Task) {
	if b.ahead[t.URL] {
		b.pending.pushAhead(t)
		return
	}
	b.pending.push(t)
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
	for _, p := range b.pending.takeAdjacent(t.Host, t.ParentHash) {
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

// SetMax changes lanes.max; raising it opens lanes for pending tasks (returned).
func (b *Board) SetMax(n int) ([]*Lane, error) {
	if n < 1 {
		return nil, fmt.Errorf("lanes must be at least 1 (got %d)", n)
	}
	b.max = n
	return b.fill(), nil
}

// Max is lanes.max.
func (b *Board) Max() int { return b.max }

// Len is the number of live lanes.
func (b *Board) Len() int { return len(b.lanes) }

// Peak is the most lanes alive at once.
func (b *Board) Peak() int { return b.peak }

// Pending is the number of tasks waiting for a lane.
func (b *Board) Pending() int { return b.pending.len() }

// Queued is the number of tasks waiting, in lanes or pending.
func (b *Board) Queued() int {
	n := b.pending.len()
	for _, l := range b.lanes {
		n += len(l.queue)
	}
	return n
}

// Holds reports whether any task of host is queued, pending or in hand.
func (b *Board) Holds(host string) bool {
	for e := range b.egresses {
		if b.byHost[e][host] != nil {
			return true
		}
	}
	return b.pending.hasHost(host)
}

// Lane returns a live lane by ID.
func (b *Board) Lane(id int) (*Lane, bool) {
	l, ok := b.lanes[id]
	return l, ok
}

// SetPaused pauses or resumes one lane. A paused lane keeps its tasks and bindings.
func (b *Board) SetPaused(id int, paused bool) error {
	l, ok := b.lanes[id]
	if !ok {
		return fmt.Errorf("no lane %d", id)
	}
	l.paused = paused
	return nil
}

// Egresses returns the egress names, in order.
func (b *Board) Egresses() []string { return b.egresses }

// SetEgress moves a lane, with everything it holds, to another egress (rebalance).
// It fails if the target egress already has a lane adjacent to what this lane holds.
func (b *Board) SetEgress(id, egress int) error {
	l, ok := b.lanes[id]
	if !ok {
		return fmt.Errorf("no lane %d", id)
	}
	if egress < 0 || egress >= len(b.egresses) {
		return fmt.Errorf("no egress %d", egress)
	}
	if egress == l.Egress {
		return nil
	}
	for h := range l.hosts {
		if o := b.byHost[egress][h]; o != nil && o != l {
			return fmt.Errorf("lane %d: host %s is already bound to lane %d on %s", id, h, o.ID, b.egresses[egress])
		}
	}
	for p := range l.parents {
		if o := b.byParent[egress][p]; o != nil && o != l {
			return fmt.Errorf("lane %d: a parent page is already bound to lane %d on %s", id, o.ID, b.egresses[egress])
		}
	}
	for h := range l.hosts {
		if b.byHost[l.Egress][h] == l {
			delete(b.byHost[l.Egress], h)
		}
		b.byHost[egress][h] = l
	}
	for p := range l.parents {
		if b.byParent[l.Egress][p] == l {
			delete(b.byParent[l.Egress], p)
		}
		b.byParent[egress][p] = l
	}
	l.Egress = egress
	return nil
}

// LaneView is a copy of one lane's bindings for display.
type LaneView struct {
	ID      int
	Egress  string
	Hosts   map[string]int
	Parents map[uint64]int
	Queued  int
	Done    int64
	Paused  bool
}

// View copies every live lane, by ID.
func (b *Board) View() []LaneView {
	out := make([]LaneView, 0, len(b.lanes))
	for _, l := range b.lanes {
		v := LaneView{ID: l.ID, Egress: b.egresses[l.Egress], Queued: len(l.queue), Done: l.done, Paused: l.paused,
			Hosts: make(map[string]int, len(l.hosts)), Parents: make(map[uint64]int, len(l.parents))}
		for h, n := range l.hosts {
			v.Hosts[h] = n
		}
		for p, n := range l.parents {
			v.Parents[p] = n
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
