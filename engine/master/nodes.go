package master

import (
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/master/internal/moves"
	"github.com/crawlconsole/crawlconsole/engine/master/internal/nodetable"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Joined is what a join did.
type Joined struct {
	Grants  []wire.Egress       // egresses granted from the account table
	Moves   moves.Count         // units that move (to the worker, or between others)
	Release map[string][]string // the units each worker is to hand back
	// Kept are the leases of the claimed tasks taken back (lease.go: adopt), and
	// LastRequest when the last request to their hosts ended.
	Kept        []uint64
	LastRequest map[string]time.Time
	// Since is the first lease the new life can be handed (wire.JoinReply.Since).
	Since uint64
	// Paused: the worker is paused by the operator (held here, or carried by its
	// join), dealt no unit while another worker is active.
	Paused bool
}

// Join takes a worker's join: a new name is a new worker; a known name with a new
// incarnation restarted, and what its last life held goes back to the queue first.
// A rejoin (the same incarnation: the master restarted, or declared it dead) claims
// what the worker still holds, and the master takes back what nobody else holds.
// The worker is granted perNode egresses from the account table (those it held
// already, on a repeated join). The units are spread again over the active workers
// (spread: a paused one is left out): moves are those that move, release the units
// each worker is to hand back (they move once it reported their tasks).
func (t *Table) Join(j *wire.Join, now time.Time, perNode int) Joined {
	var r Joined
	if old := t.nodes[j.Node]; old != nil && old.inc != j.Incarnation && old.state != view.NodeDead {
		t.bury(old)
	}
	n := t.nodes[j.Node]
	if n == nil || n.inc != j.Incarnation {
		n = &node{name: j.Node, inc: j.Incarnation, joined: now, units: map[string]bool{}, held: map[string]frontier.Task{}}
		if old := t.nodes[j.Node]; old != nil {
			n.results, n.late = old.results, old.late
			n.refusedBefore = old.refusedBefore + old.hb.Refused
		}
		t.nodes[j.Node] = n
	}
	n.state, n.heard = view.NodeActive, now
	t.holdPause(j.Node, j.Paused)
	if t.nodesPaused[j.Node] {
		n.state = view.NodePaused
	}
	if n.leaving {
		// Declared dead during its leave (late heartbeats), it rejoins to report
		// the fetches in its hand: it takes no task, unit or egress any more.
		n.state = view.NodeLeaving
	}
	n.hb = wire.Heartbeat{Node: j.Node, Incarnation: j.Incarnation, LanesMax: j.LanesMax, Egresses: j.Egresses}
	r.Kept, r.LastRequest = t.adopt(n, j.Holding) // before the spread: its units stay its own
	t.joinedAgain(j.Node, now)
	if t.accounts != nil && !n.leaving {
		if len(n.grants) == 0 {
			if perNode <= 0 {
				perNode = 2
			}
			n.grants = t.accounts.Assign(j.Node, perNode)
		}
		for _, name := range n.grants {
			if a, ok := t.accounts.Account(name); ok {
				r.Grants = append(r.Grants, wire.Grant(a))
			}
		}
	}
	r.Moves, r.Release = t.spread()
	r.Paused = n.state == view.NodePaused
	r.Since = t.lease + 1 // every hand-out of this life is numbered after the join
	t.Kick()
	return r
}

// Left tells whether worker name's incarnation inc left: its final leave was
// taken. A join of that incarnation is refused (OnJoin): the worker is closing, and
// a rejoin sent before its final leave (its heartbeat answered "unknown" while it
// was taken for dead) and read after it would show it leaving for good.
func (t *Table) Left(name, inc string) bool {
	n := t.nodes[name]
	return n != nil && n.inc == inc && n.left
}

// Recording holds back every deal to worker name (joined) until recorded is
// called: the link calls it once the node table saved at the join is committed.
// recorded may be called from any goroutine.
func (t *Table) Recording(name string) (recorded func()) {
	rec := new(atomic.Bool)
	t.nodes[name].recorded = rec
	return func() {
		rec.Store(true)
		t.Kick()
	}
}

// Heartbeat records a worker's sign of life and what it reports; known is false
// for an incarnation the table does not know alive (the worker joins again).
func (t *Table) Heartbeat(hb wire.Heartbeat, now time.Time) (known bool) {
	n := t.nodes[hb.Node]
	if n == nil || n.inc != hb.Incarnation || n.state == view.NodeDead {
		return false
	}
	n.heard = now
	live := make(map[int]bool, len(hb.Rows))
	for i := range hb.Rows {
		live[hb.Rows[i].ID] = true
		hb.Rows[i].ID = t.lanes.ID(hb.Node, hb.Rows[i].ID)
	}
	t.lanes.Forget(hb.Node, live)
	n.hb = hb
	lanes := 0
	for _, o := range t.nodes {
		if o.state != view.NodeDead {
			lanes += o.hb.Lanes
		}
	}
	t.lanesPeak = max(t.lanesPeak, lanes)
	t.holdPause(hb.Node, hb.Paused)
	if n.live() {
		n.state = view.NodeActive
		if t.nodesPaused[hb.Node] {
			n.state = view.NodePaused
		}
	}
	return true
}

// Leave takes a worker's leave. A leave is two requests: the hand-back of what the
// worker had not fetched, then the final one once its fetches reported. first is
// true at the first of the incarnation (the leave is logged once, even when the
// worker was declared dead and rejoined between the two), with back the tasks it
// handed back, or, when the hand-back never came, those the final one makes the
// master take back.
func (t *Table) Leave(l *wire.Leave) (first bool, back int) {
	n := t.nodes[l.Node]
	if n == nil || n.inc != l.Incarnation {
		return false, 0
	}
	if n.state == view.NodeDead {
		// Declared dead while it finished its leave: what it held went back to
		// the queue then, and it left all the same.
		n.left = n.left || l.Final && n.leaving
		return false, 0
	}
	first = !n.leaving
	n.state, n.leaving = view.NodeLeaving, true
	back = t.takeBack(n, l.Tasks)
	// Its units go to others as soon as it reported what it still fetches.
	for name := range n.units {
		if u := t.units[name]; u != nil && u.owner == n.name && u.next == "" {
			if want := t.pick(name); want != "" {
				u.next = want
				if u.out == 0 {
					t.moveUnit(name, u)
				}
			}
		}
	}
	if l.Final {
		if first {
			back += len(n.held) // bury queues them again
		}
		t.bury(n)
		n.left = true
	}
	t.Kick()
	return first, back
}

// Buried is a worker BuryDead declared dead, and the task stream's sequence up to
// which the batches sent to the life that ended are to be purged (0: none was sent).
type Buried struct {
	Name    string
	PurgeTo uint64
}

// BuryDead declares dead the workers silent past timeout.
func (t *Table) BuryDead(now time.Time, timeout time.Duration) []Buried {
	var dead []Buried
	for _, n := range t.nodes {
		if n.state != view.NodeDead && now.Sub(n.heard) > timeout {
			t.expire(n)
			t.bury(n)
			dead = append(dead, Buried{n.name, n.purgeTo})
		}
	}
	if len(dead) > 0 {
		t.Kick()
	}
	return dead
}

// bury marks a worker dead: what it held goes back to the queue, its units to the
// others, its egresses back to the account table.
func (t *Table) bury(n *node) {
	n.state = view.NodeDead
	n.life++
	n.purgeTo, n.sent = n.sent, 0
	for _, task := range heldBack(n) {
		t.unhand(n, task)
		t.requeue(task)
	}
	for name := range n.units {
		if u := t.units[name]; u != nil && u.owner == n.name {
			u.owner, u.next = "", ""
			if len(u.tasks) > 0 {
				t.own(name, u)
			}
		}
		delete(n.units, name)
	}
	if t.accounts != nil {
		for _, g := range n.grants {
			t.accounts.Release(g)
		}
		n.grants = nil
	}
}

// Live tells whether name is a worker not dead.
func (t *Table) Live(name string) bool {
	n := t.nodes[name]
	return n != nil && n.state != view.NodeDead
}

// LiveNames are the workers not dead.
func (t *Table) LiveNames() []string {
	var names []string
	for name, n := range t.nodes {
		if n.state != view.NodeDead {
			names = append(names, name)
		}
	}
	return names
}

// SetPaused records the operator's pause or resume of a worker: the master holds
// it until the operator changes it, whatever the worker's restarts and rejoins. A
// resumed worker gets its share of the units again, as at a join (moved and
// release as Join's): while paused it was dealt no new one, and a join or a restart
// in the pause gave its own to the others.
func (t *Table) SetPaused(name string, paused bool) (moved moves.Count, release map[string][]string) {
	t.nodesPaused[name] = paused
	n := t.nodes[name]
	if n != nil && n.live() {
		n.state = view.NodeActive
		if paused {
			n.state = view.NodePaused
		}
	}
	if !paused && n != nil && n.state == view.NodeActive {
		moved, release = t.spread()
	}
	t.Kick()
	return moved, release
}

// holdPause holds again the operator's pause a worker says it is under (its join or
// heartbeat) when this master recorded no pause or resume of it: it was paused in
// the master's earlier life.
func (t *Table) holdPause(name string, paused bool) {
	if _, held := t.nodesPaused[name]; !held && paused {
		t.nodesPaused[name] = true
	}
}

// NodePaused tells whether the operator paused worker name; held is false when
// this master recorded no pause or resume of it (a worker paused in the master's
// earlier life keeps its own pause, and its heartbeat says it: Heartbeat).
func (t *Table) NodePaused(name string) (paused, held bool) {
	paused, held = t.nodesPaused[name]
	return paused, held
}

// Claim grants a worker whose egresses were all refused one more from the account
// table, if one is free (nil: none).
func (t *Table) Claim(c *wire.Claim) (*wire.Egress, error) {
	n := t.nodes[c.Node]
	switch {
	case n == nil || n.inc != c.Incarnation || n.state == view.NodeDead:
		return nil, errors.New("unknown worker")
	case t.accounts == nil:
		return nil, errors.New("the master has no egress account table")
	}
	name, ok := t.accounts.Claim(c.Node)
	if !ok {
		return nil, nil
	}
	a, ok := t.accounts.Account(name)
	if !ok {
		return nil, nil
	}
	n.grants = append(n.grants, name)
	g := wire.Grant(a)
	return &g, nil
}

// Ungrant takes an egress off the worker it was granted to and returns that worker
// ("" for none).
func (t *Table) Ungrant(egress string) (holder string) {
	for _, n := range t.nodes {
		if i := slices.Index(n.grants, egress); i >= 0 {
			holder = n.name
			n.grants = slices.Delete(n.grants, i, i+1)
		}
	}
	return holder
}

// LanesPeak is the most lanes the live workers reported alive at once.
func (t *Table) LanesPeak() int { return t.lanesPeak }

// NodesJSON is the node table as `stats --json` reads it from the store's meta table.
func (t *Table) NodesJSON() ([]byte, error) {
	var rows []nodetable.Row
	for _, name := range sortedKeys(t.nodes) {
		n := t.nodes[name]
		rows = append(rows, nodetable.Row{Name: n.name, State: n.shown(), Heartbeat: n.heard, Joined: n.joined,
			Hosts: len(n.units), Results: n.results, Late: n.late})
	}
	// A worker the last life knew live that has not rejoined this one may still
	// fetch that life's URLs under its lease, until this life's grace period ends:
	// a next life started before then waits for it too (LiveNodes), or it would end
	// its grace period once the others rejoined and queue those URLs again.
	if !t.graceOver && t.waiting > 0 {
		for _, name := range sortedKeys(t.awaiting) {
			if t.nodes[name] == nil {
				rows = append(rows, nodetable.Row{Name: name, State: nodetable.Awaited})
			}
		}
	}
	return json.Marshal(rows)
}

// LiveNodes are the workers a node table saved by NodesJSON shows neither dead nor
// left (nodetable.Live).
func LiveNodes(data []byte) []string { return nodetable.Live(data) }

// Stats is the master's part of the stats object (without the rejected messages,
// which the transport counts).
func (t *Table) Stats() *view.ClusterStats {
	cs := &view.ClusterStats{Nodes: map[string]view.NodeStats{}, LateResults: t.late, Reclaimed: t.reclaimed, Doubled: t.doubled}
	for name, n := range t.nodes {
		cs.Nodes[name] = view.NodeStats{State: n.shown(), Results: n.results, Late: n.late, Hosts: len(n.units)}
	}
	return cs
}

// spread evens out the units over the active workers after a join: units left
// without an owner get one, and within each kind of unit (unitKind: news sites, each
// social site's keyword shards) the worker holding the most gives units with work
// waiting to the one holding the fewest until they differ by one at most (moving as
// little as possible). Evening out each kind, not the total, matters when workers
// join one after another: the first holds everything, and a deal by total alone
// could leave it only keyword shards, or a social site's shards all on one worker. A
// worker the operator paused is dealt no unit (its lanes would hold it paused, as
// pick says) and is not counted: its units go to the active workers, each to the
// one holding the fewest of its kind, and it hands back the tasks its lanes have
// not taken (a resume spreads again). With no worker active, the paused ones are
// evened out. A unit moves once its old owner reported its tasks of it (M1: the new
// owner does not start on its hosts before the old one's requests are over). It
// returns the units that move, and the units each worker is to release.
func (t *Table) spread() (moved moves.Count, release map[string][]string) {
	var live, paused []*node
	for _, name := range sortedKeys(t.nodes) {
		switch n := t.nodes[name]; n.state {
		case view.NodeActive:
			live = append(live, n)
		case view.NodePaused:
			paused = append(paused, n)
		}
	}
	if len(live) == 0 {
		live, paused = paused, nil
	}
	if len(live) == 0 {
		return nil, nil
	}
	moved = moves.Count{}
	units := sortedKeys(t.units)
	for _, name := range units { // owners first for units that have none
		if u := t.units[name]; t.ownerless(u) && len(u.tasks) > 0 {
			u.owner = t.pick(name)
			t.nodes[u.owner].units[name] = true
			moved.Add("", u.owner)
		}
	}
	// What each live worker holds of each kind, and the units it can give: owned,
	// not moving already, with work waiting or handed out; those with nothing
	// handed out first (they move at once), then by name.
	held := map[*node]map[string]int{}
	give := map[*node]map[string][]string{}
	for _, n := range live {
		held[n], give[n] = map[string]int{}, map[string][]string{}
		for u := range n.units {
			held[n][unitKind(u)]++
		}
	}
	// fewest is the worker to receive a unit of kind: the one holding the fewest of
	// the kind, then the fewest units.
	fewest := func(kind string) *node {
		var to *node
		for _, n := range live {
			if k := held[n][kind]; to == nil || k < held[to][kind] || k == held[to][kind] && len(n.units) < len(to.units) {
				to = n
			}
		}
		return to
	}
	release = map[string][]string{}
	// hand moves unit name from worker from to worker to: at once when from holds
	// none of its tasks, else once from reported them (release).
	hand := func(name string, from, to *node) {
		moved.Add(from.name, to.name)
		u := t.units[name]
		to.units[name] = true // counted as its share now; it starts once the move is done
		delete(from.units, name)
		if u.next != "" { // on its way already: its old owner was asked to release it
			u.next = to.name
			if to.name == u.owner { // back where it is: no move
				u.next = ""
				delete(t.moving, name)
			}
			return
		}
		u.next = to.name
		if u.out == 0 {
			t.moveUnit(name, u)
			return
		}
		release[from.name] = append(release[from.name], name)
	}
	for _, pass := range []bool{true, false} {
		for _, name := range units {
			u := t.units[name]
			// A unit on its way to a worker is that worker's to give on: it has not
			// started there (workers joining one after another find the second
			// one's units still waiting for the first one's fetches in hand).
			holder := u.owner
			if u.next != "" {
				holder = u.next
			}
			n := t.nodes[holder]
			if n != nil && n.units[name] && pass && slices.Contains(paused, n) {
				to := fewest(unitKind(name))
				held[to][unitKind(name)]++
				hand(name, n, to)
				continue
			}
			if n == nil || give[n] == nil || !n.units[name] || len(u.tasks) == 0 && u.out == 0 || (u.out == 0) != pass {
				continue
			}
			give[n][unitKind(name)] = append(give[n][unitKind(name)], name)
		}
	}
	kinds := map[string]bool{}
	for _, name := range units {
		kinds[unitKind(name)] = true
	}
	for _, kind := range sortedKeys(kinds) {
		for {
			// The receiver holds the fewest of the kind (then the fewest units); the
			// giver the most, among those with a unit of the kind to give.
			to := fewest(kind)
			var from *node
			for _, n := range live {
				k := held[n][kind]
				if len(give[n][kind]) > 0 && (from == nil || k > held[from][kind] || k == held[from][kind] && len(n.units) > len(from.units)) {
					from = n
				}
			}
			if from == nil || held[from][kind]-held[to][kind] <= 1 {
				break
			}
			name := give[from][kind][0]
			give[from][kind] = give[from][kind][1:]
			held[from][kind]--
			held[to][kind]++
			hand(name, from, to)
		}
	}
	return moved, release
}
