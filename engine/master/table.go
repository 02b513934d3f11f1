package master

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/master/internal/costs"
	"github.com/crawlconsole/crawlconsole/engine/master/internal/laneids"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Front is what a Table tells the crawl's front as tasks move, so what the front
// keeps about a task (a revisit's mark) follows it. Called with the table's lock held.
type Front interface {
	// Admit: t is next in line for a worker. false holds it back (a page budget
	// over its count of what is handed out and in flight): the front has set it
	// aside, and the table drops it from its queue. The front may mark t (its
	// Budgeted), and the hand-out keeps the mark.
	Admit(t *frontier.Task) bool
	// HandedOut: t leaves the master's queue for a worker.
	HandedOut(t frontier.Task)
	// Dropped: t leaves the master's queue for good, unfetched: its URL is out
	// already, and that hand-out's report ends the URL. What the front keeps for
	// t alone (a queued revisit's mark) goes with it, or nothing would end it.
	Dropped(t frontier.Task)
	// HandedBack: t, handed out earlier (its lease now 0), comes back to the
	// queue. false: the operator withdrew it meanwhile; the front ends it and the
	// table drops it.
	HandedBack(t frontier.Task) bool
	// Fetched: t, handed out by the master's last life, was reported fetched
	// (lease.go): no hand-out of this life counted it.
	Fetched(t frontier.Task)
}

// Table is the master's bookkeeping: nodes, units, hand-outs, costs and lane IDs.
type Table struct {
	front    Front
	accounts *egress.Table // the egress account table; nil: workers bring their own
	kick     chan struct{}

	nodes map[string]*node
	// lanesPeak is the most lanes the live workers reported alive at once (their
	// last heartbeats' sum): the master's own board has none.
	lanesPeak int
	units     map[string]*unit  // assignment units (wire.UnitOf) and who holds each
	inflight  map[string]uint64 // URL -> lease of its hand-out (at most one report counts)
	// committing counts reports settled (out of inflight) whose commit has not
	// reached the store yet: their URLs are still in progress there, and a crawl
	// that looked dry meanwhile took them for lost and fetched them again.
	committing int
	lease      uint64
	pending    int    // tasks waiting at the master, over all units
	late       int64  // reports for a hand-out that was not current
	reclaimed  int64  // hand-outs taken back from workers that held none of them (reclaim.go)
	doubled    int64  // queued tasks dropped unhanded: their URL was in flight already (Dispatch)
	readSeq    uint64 // the results stream's sequence of the last report read (reclaim.go)
	// lateLeases are the leases of the reports taken late lately (lease.go: a
	// rejoin's claim of one is refused).
	lateLeases [2]map[uint64]struct{}

	costs  *costs.Table    // fetch seconds per unit
	moving map[string]bool // units a rebalance is moving (waiting for their old owner)
	// publishing are the workers whose batch is being published (Publishing), by
	// name, with the incarnation it went to: a dispatch deals that incarnation
	// nothing until it is stored (Sent) or taken back (Undo).
	publishing map[string]string

	lanes *laneids.IDs // the console's IDs of workers' lanes

	// LeaseFor is how long a join or heartbeat holds a worker's hosts (lease.go);
	// 0: no lease.
	LeaseFor  time.Duration
	limbo     map[string]*limboEntry // a restarted master's URLs in progress (lease.go)
	waiting   int                    // limbo's URLs not taken
	graceOver bool                   // the restart's grace period ended (EndGrace)
	restarted time.Time              // when a restarted master started (Restarted)
	// awaiting are the last life's live workers that have not joined this life
	// yet (Await); rejoined is closed once the last of them joined.
	awaiting map[string]bool
	rejoined chan struct{}
	// allRejoined is when the last of them joined (zero until then).
	allRejoined time.Time
	// hostsPaused are the hosts the operator paused (SetHostPaused): their tasks
	// wait at the master.
	hostsPaused map[string]bool
	// nodesPaused are the workers the operator paused (true) or resumed (false),
	// by name (SetPaused): the pause outlives a worker's restart and its rejoins.
	nodesPaused map[string]bool
}

// New is an empty table. Leases count up from firstLease: a master starts it at the
// wall clock, so a restarted master never reuses one (a worker's result message ID
// holds its lease, and JetStream drops a repeated ID as a duplicate). accounts is
// the egress account table workers are granted from (nil: none).
func New(front Front, accounts *egress.Table, firstLease uint64) *Table {
	return &Table{front: front, accounts: accounts, kick: make(chan struct{}, 1),
		nodes: map[string]*node{}, units: map[string]*unit{}, inflight: map[string]uint64{}, nodesPaused: map[string]bool{},
		costs: costs.New(), moving: map[string]bool{}, publishing: map[string]string{},
		lanes: laneids.New(), lease: firstLease}
}

// node is one worker as the master knows it.
type node struct {
	name, inc string
	state     view.NodeState
	joined    time.Time
	heard     time.Time
	units     map[string]bool          // assignment units it holds
	held      map[string]frontier.Task // URL -> task handed to it, not reported yet
	hb        wire.Heartbeat
	grants    []string // egress names granted from the table
	served    string   // the unit Dispatch last handed a task of to it (its round-robin goes on after it)
	results   int64
	late      int64
	// refusedBefore keeps the refusals earlier incarnations of the name reported.
	refusedBefore int64
	// left: it left gracefully (dead to the table, shown as left).
	left bool
	// leaving: this incarnation began its graceful leave. It outlives a death
	// declared before the final leave: the worker, still finishing its fetches,
	// rejoins as a leaving worker, not an active one.
	leaving bool
	// recorded is set once the node table saved at the worker's last join is
	// committed (Recording; nil: none is awaited); dispatch deals it nothing before.
	recorded *atomic.Bool
	// life counts the times the worker was declared dead: a rejoin under the same
	// incarnation starts a new life, and a batch sent to an earlier one is stale.
	life uint64
	// idleSince is when its heartbeats began saying it holds no task while the
	// table counts some handed to it, and idleMark the last lease handed out then
	// (reclaim.go).
	idleSince time.Time
	idleMark  uint64
	// sent is the task stream's sequence of the last batch stored for this life;
	// purgeTo, that of the life last declared dead (its batches up to there are
	// purged, and none of a later life).
	sent, purgeTo uint64
}

func (n *node) live() bool { return n.state == view.NodeActive || n.state == view.NodePaused }

// shown is the state the Nodes pane and the stats show: a worker that left is no
// dead worker (the operator stopped it; nothing was lost).
func (n *node) shown() view.NodeState {
	if n.state == view.NodeDead && n.left {
		return view.NodeLeft
	}
	return n.state
}

// unit is one assignment unit's URLs at the master and who holds the unit. A unit
// belongs to one worker at a time, so a site's hosts do too (M1 lanes and the
// politeness gate stay exact on them; only a social site's search host is shared,
// by keyword shard); when a unit moves, the new owner starts only once the old one
// reported every task of it.
type unit struct {
	owner string
	next  string // moving to this worker once owner's tasks of the unit are reported
	tasks []frontier.Task
	out   int             // tasks handed to owner, not reported yet
	hosts map[string]bool // hosts its tasks were on (a release names them to the worker)
	// reserved: a restarted master waits for the worker that held the unit's
	// tasks in progress to claim them before dealing any (lease.go).
	reserved bool
	last     map[string]time.Time // by host, the end of the last request reported
	leaseEnd time.Time            // the end of the lease of a worker that died holding it
	// stalled: every task queued is of a host the operator paused (dealable);
	// a task queued or a host resumed clears it.
	stalled bool
}

// unitKind groups units for an even deal: "" for news sites and the registered
// domains of undeclared hosts, the social site's name for its keyword shards (every
// worker gets a disjoint share of each social site's keywords).
func unitKind(unit string) string {
	if site, _, ok := strings.Cut(unit, " · "); ok {
		return site
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// Kicked is signalled (never blocking) whenever something a dispatch would act on
// changed: a task queued, a report in, a worker joined or left, a unit moved.
func (t *Table) Kicked() <-chan struct{} { return t.kick }

// Kick signals Kicked.
func (t *Table) Kick() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// ownerless tells whether u needs an owner (none, or a dead or unknown one).
func (t *Table) ownerless(u *unit) bool {
	return u.owner == "" || t.nodes[u.owner] == nil || t.nodes[u.owner].state == view.NodeDead
}

// own gives unit an owner if it lacks one.
func (t *Table) own(name string, u *unit) {
	if t.ownerless(u) {
		u.owner = t.pick(name)
		if n := t.nodes[u.owner]; n != nil {
			n.units[name] = true
		}
	}
}

// Add queues a task for its unit's worker; an urgent one (the operator's new search
// or entry) goes first.
func (t *Table) Add(task frontier.Task) {
	if t.inLimbo(task) {
		return
	}
	name := wire.UnitOf(task)
	u := t.unit(name)
	u.hosts[task.Host] = true
	t.own(name, u)
	t.offPaused(name, u)
	if task.Urgent {
		u.tasks = append([]frontier.Task{task}, u.tasks...)
	} else {
		u.tasks = append(u.tasks, task)
	}
	u.stalled = false
	t.pending++
	t.Kick()
}

// offPaused gives a unit of a worker the operator paused to an active worker (pick,
// as a new unit) when work arrives for it while one is active: the work would wait
// in the paused lanes, or at the master, until the pause ends. Only a unit the
// paused worker holds no task of, and not on its way or awaiting a claim: one in
// its hands waits for a deal that asks it to release (a join, a resume, r).
func (t *Table) offPaused(name string, u *unit) {
	if n := t.nodes[u.owner]; n == nil || n.state != view.NodePaused || u.next != "" || u.out > 0 || u.reserved {
		return
	}
	if to := t.nodes[t.pick(name)]; to != nil && to.state == view.NodeActive {
		u.next = to.name
		t.moveUnit(name, u)
	}
}

// pick chooses a worker for a new unit: the live one holding the fewest units of the
// unit's kind, then the fewest units, ties by name. For a social site's keyword
// shard the kind is the site's shards (so they go to different workers); for a news
// site or an undeclared domain, by far the most units, it is all units (the count
// at hand: a dead worker's thousands of domains are re-dealt without recounting).
// So news sites spread evenly and every worker gets a share of each social site's
// keywords (balancing by cost re-deals them). "" when no worker is live.
func (t *Table) pick(unit string) string {
	kind := unitKind(unit)
	best, bestKind, bestN := "", 0, 0
	// A paused worker takes new work only when no worker is active: the operator
	// paused it, and its lanes would hold the unit paused.
	anyActive := false
	for _, n := range t.nodes {
		anyActive = anyActive || n.state == view.NodeActive
	}
	for name, n := range t.nodes {
		if n.state != view.NodeActive && (n.state != view.NodePaused || anyActive) {
			continue
		}
		k := len(n.units)
		if kind != "" {
			k = 0
			for u := range n.units {
				if unitKind(u) == kind {
					k++
				}
			}
		}
		if best == "" || k < bestKind || k == bestKind && (len(n.units) < bestN || len(n.units) == bestN && name < best) {
			best, bestKind, bestN = name, k, len(n.units)
		}
	}
	return best
}

// unhand forgets that n holds task (reported, handed back, or n is dead).
func (t *Table) unhand(n *node, task frontier.Task) {
	if _, ok := n.held[task.URL]; !ok {
		return
	}
	delete(n.held, task.URL)
	if name := wire.UnitOf(task); t.units[name] != nil {
		u := t.units[name]
		u.out--
		if u.out <= 0 {
			u.out = 0
			if u.next != "" { // the old owner is done with the unit: it moves now
				t.moveUnit(name, u)
			}
		}
	}
}

func (t *Table) moveUnit(name string, u *unit) {
	delete(t.moving, name)
	if old := t.nodes[u.owner]; old != nil && u.owner != u.next {
		delete(old.units, name)
	}
	u.owner, u.next = u.next, ""
	if n := t.nodes[u.owner]; n != nil && n.state != view.NodeDead {
		n.units[name] = true
	} else {
		u.owner = t.pick(name)
		if n := t.nodes[u.owner]; n != nil {
			n.units[name] = true
		}
	}
	t.Kick()
}

// requeue puts a task handed out earlier back in its unit's queue, first in line
// (its lease no longer counts).
func (t *Table) requeue(task frontier.Task) {
	if t.inflight[task.URL] == task.Lease {
		delete(t.inflight, task.URL)
	}
	task.Lease = 0
	if !t.front.HandedBack(task) {
		return
	}
	name := wire.UnitOf(task)
	u := t.units[name]
	if u == nil {
		t.Add(task)
		return
	}
	u.tasks = append([]frontier.Task{task}, u.tasks...)
	u.stalled = false
	t.pending++
	t.own(name, u)
	t.Kick()
}

// takeBack requeues the tasks n hands back that it holds under the same lease, and
// counts them.
func (t *Table) takeBack(n *node, tasks []frontier.Task) int {
	back := 0
	for _, task := range slices.Backward(tasks) { // requeue puts each first: the first last keeps their order
		if held, ok := n.held[task.URL]; ok && held.Lease == task.Lease {
			t.unhand(n, held)
			t.requeue(held)
			back++
		}
	}
	return back
}

// TakeBack requeues what a worker handed back on a release.
func (t *Table) TakeBack(name string, tasks []frontier.Task) {
	if n := t.nodes[name]; n != nil {
		t.takeBack(n, tasks)
	}
}

// Settle ends the hand-out of task that node reported on. A report that is not for
// the URL's current hand-out (a dead worker's, a batch from before the master's
// restart) is counted late and false is returned: it must not be committed, as
// dispatch may still be marking the new hand-out in progress, and that mark would
// win, leaving a stored page "in progress" for good. A result (not a deferral)
// counts for the node.
func (t *Table) Settle(nodeName string, task frontier.Task, result bool) bool {
	lease, ok := t.inflight[task.URL]
	n := t.nodes[nodeName]
	if n != nil {
		n.reported()
	}
	if !ok && t.take(task.URL) {
		// Handed out by the master's last life and reported now: the first report
		// of it counts (lease.go).
		if result {
			t.front.Fetched(task)
			if n != nil {
				n.results++
			}
		}
		return true
	}
	if !ok || lease != task.Lease {
		if n != nil {
			n.late++
		}
		t.late++
		t.noteLate(task.Lease)
		return false
	}
	delete(t.inflight, task.URL)
	for _, nn := range t.nodes { // whoever holds it (the sender, or the worker it moved to)
		if held, ok := nn.held[task.URL]; ok && (held.Lease == lease || nn == n) {
			t.unhand(nn, held)
		}
	}
	if n != nil && result {
		n.results++
	}
	return true
}

// Counts returns the tasks waiting at the master and those handed out (with those
// in limbo after a restart, handed out by its last life, and those reported whose
// commit is on its way: Committing).
func (t *Table) Counts() (pending, out int) {
	return t.pending, len(t.inflight) + t.Limbo() + t.committing
}

// Committing counts a settled report whose commit is on its way (d > 0), or done
// (d < 0): until then its task is still in hand.
func (t *Table) Committing(d int) { t.committing += d }

// Withdraw takes the tasks drop selects out of the units' queues (they are returned,
// for the front to end as withdrawn) and says which hand-outs each live worker holds
// of them.
func (t *Table) Withdraw(drop func(frontier.Task) bool) (dropped []frontier.Task, held map[string][]frontier.Task) {
	for _, u := range t.units {
		kept := u.tasks[:0]
		for _, task := range u.tasks {
			if !drop(task) {
				kept = append(kept, task)
				continue
			}
			t.pending--
			dropped = append(dropped, task)
		}
		clear(u.tasks[len(kept):])
		u.tasks = kept
	}
	for name, n := range t.nodes {
		if n.state == view.NodeDead {
			continue
		}
		for _, task := range n.held {
			if drop(task) {
				if held == nil {
					held = map[string][]frontier.Task{}
				}
				held[name] = append(held[name], task)
			}
		}
	}
	return dropped, held
}

// LastLease is the lease of the last hand-out.
func (t *Table) LastLease() uint64 { return t.lease }

// HostsOf are the hosts the units' tasks were on, sorted (a release names them).
func (t *Table) HostsOf(units []string) []string {
	set := map[string]bool{}
	for _, name := range units {
		if u := t.units[name]; u != nil {
			for h := range u.hosts {
				set[h] = true
			}
		}
	}
	return sortedKeys(set)
}

// heldBack lists n's hand-outs, newest first, as requeue wants them (each goes
// first in line: they go back in the order they were handed out).
func heldBack(n *node) []frontier.Task {
	held := slices.Collect(maps.Values(n.held))
	sort.Slice(held, func(i, j int) bool { return held[i].Lease > held[j].Lease })
	return held
}
