package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/store"
)

// masterRuntime is the master's side of a distributed crawl: the workers, the hosts
// each holds, the URLs waiting for them and those handed out. Its maps are guarded by
// Engine.mu (it is the frontier's queue on a master, where the lane board is on one
// box).
type masterRuntime struct {
	e       *Engine
	o       MasterOptions
	conn    *cluster.Conn
	sub     wire.Subjects
	table   *egress.Table // seed 003's egress account table (nil: workers bring their own)
	subs    []*nats.Subscription
	consume jetstream.ConsumeContext
	results chan jetstream.Msg // from the consumer to the result handlers
	kick    chan struct{}

	nodes map[string]*node
	// lanesPeak is the most lanes the live workers reported alive at once (their
	// last heartbeats' sum): the master's own board has none.
	lanesPeak int
	units     map[string]*unitQueue // seed-003 assignment units (unitOf) and who holds each
	inflight  map[string]uint64     // URL -> lease of its hand-out (at most one result counts)
	lease     uint64
	pending   int // tasks waiting at the master, over all hosts

	costs  map[string]*unitCost // seed 003 cost table: fetch seconds per unit
	moving map[string]bool      // units a rebalance is moving (waiting for their old owner)

	laneIDs  map[laneRef]int // the console's IDs of workers' lanes
	laneRefs map[int]laneRef
	nextLane int

	rejects cluster.Rejects
	late    atomic.Int64

	// pauseSeq numbers the crawl-wide pause states sent to workers (wire.Control.Seq);
	// it starts at the clock, as leases do, so a restarted master's numbers are newer.
	pauseSeq uint64
}

// node is one worker as the master knows it.
type node struct {
	name, inc string
	state     NodeState
	joined    time.Time
	heard     time.Time
	units     map[string]bool          // assignment units it holds
	held      map[string]frontier.Task // URL -> task handed to it, not reported yet
	hb        wire.Heartbeat
	grants    []string // egress names granted from the table
	results   int64
	late      int64
	// refusedBefore keeps the refusals earlier incarnations of the name reported.
	refusedBefore int64
}

// unitQueue is one assignment unit's URLs at the master and who holds the unit
// (seed 003: a news site, a social site's keyword shard, or the registered domain of
// an undeclared host; see unitOf). A unit belongs to one worker at a time, so a
// site's hosts do too (M1 lanes and the politeness gate stay exact on them; only a
// social site's search host is shared, by keyword shard, as the seed deals it); when
// a unit moves, the new owner starts only once the old one reported every task of it.
type unitQueue struct {
	owner string
	next  string // moving to this worker once owner's tasks of the unit are reported
	tasks []frontier.Task
	out   int             // tasks handed to owner, not reported yet
	hosts map[string]bool // hosts its tasks were on (a release names them to the worker)
}

// unitOf is a task's assignment unit (seed 003): its site (a declared site's name, or
// the registered domain the frontier gave it), and for a social site's search results
// the keyword too: each keyword shard of a social site is dealt on its own.
func unitOf(t frontier.Task) string {
	site := t.Site
	if site == "" {
		site = frontier.Site(t.Host)
	}
	if t.Keyword != "" {
		return site + " · " + t.Keyword
	}
	return site
}

// NewMaster builds the master of a distributed crawl: the frontier, dedupe and store
// of New, and no lanes of its own; workers join over mo.Conn.
func NewMaster(opts Options, mo MasterOptions) (*Engine, error) {
	mo, err := mo.WithDefaults(opts.Balance)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(opts, roleMaster, nil)
	if err != nil {
		return nil, err
	}
	// Leases start at the wall clock (not Options.Now: a fixed test clock would
	// repeat them), so a restarted master never reuses one: a worker's result
	// message ID holds its lease, and JetStream drops a repeated ID as a duplicate
	// (a new master counting from 1 lost results and hung).
	m := &masterRuntime{e: e, o: mo, conn: mo.Conn, sub: wire.Subjects(mo.Prefix), kick: make(chan struct{}, 1),
		nodes: map[string]*node{}, units: map[string]*unitQueue{}, inflight: map[string]uint64{},
		laneIDs: map[laneRef]int{}, laneRefs: map[int]laneRef{}, costs: map[string]*unitCost{}, moving: map[string]bool{}, lease: uint64(time.Now().UnixNano()),
		pauseSeq: uint64(time.Now().UnixNano())}
	specs, err := egress.ParseSpecs(opts.Egress)
	if err != nil {
		e.Close()
		return nil, err
	}
	// The account table (seed 003): workers are granted rotation.per_node egresses at
	// join and claim more when theirs are refused; `:egress add` adds to it.
	e.accounts = route.NewAccounts(e.st, func(msg string) { e.logf(LevelWarn, 0, "", "%s", msg) })
	if m.table, err = egress.OpenTable(e.accounts, specs); err != nil {
		e.Close()
		return nil, err
	}
	m.loadCosts()
	e.cluster = m
	return e, nil
}

// start sets up the streams and listens to the workers. Called by Engine.Start.
func (m *masterRuntime) start() error {
	ctx, cancel := context.WithTimeout(m.e.ctx, 10*time.Second)
	defer cancel()
	// Results are kept on file: what workers fetched while the master was down is
	// committed when it is back. Task batches need not be: a master that restarts
	// queues again, from its store, every URL it had handed out.
	for _, s := range []struct {
		name, subjects string
		storage        jetstream.StorageType
	}{{m.sub.TaskStream(), m.sub.Tasks(">"), jetstream.MemoryStorage}, {m.sub.ResultStream(), m.sub.Results(">"), jetstream.FileStorage}} {
		if _, err := m.conn.EnsureStream(ctx, jetstream.StreamConfig{
			Name: s.name, Subjects: []string{s.subjects},
			Retention: jetstream.WorkQueuePolicy, Storage: s.storage,
		}); err != nil {
			return err
		}
	}
	cons, err := m.conn.EnsureConsumer(ctx, m.sub.ResultStream(), jetstream.ConsumerConfig{
		Durable: "master", FilterSubject: m.sub.Results(">"), AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: time.Minute, MaxAckPending: 20000, MaxDeliver: -1,
	})
	if err != nil {
		return err
	}
	// Results are committed by as many goroutines as there are CPUs: on one box the
	// lanes record their pages in parallel, and a single handler would cap the master.
	m.results = make(chan jetstream.Msg, 256)
	for range runtime.GOMAXPROCS(0) {
		m.e.wg.Add(1)
		go func() {
			defer m.e.wg.Done()
			for {
				select {
				case msg := <-m.results:
					m.onResult(msg)
				case <-m.e.ctx.Done():
					return // what waits here is not acknowledged: redelivered to the next master
				}
			}
		}()
	}
	if m.consume, err = cons.Consume(func(msg jetstream.Msg) {
		select {
		case m.results <- msg:
		case <-m.e.ctx.Done():
		}
	}, jetstream.PullMaxMessages(256)); err != nil {
		return fmt.Errorf("master: consume results: %w", err)
	}
	for subj, h := range map[string]nats.MsgHandler{
		m.sub.Join(): m.onJoin, m.sub.Heartbeat("*"): m.onHeartbeat, m.sub.Leave(): m.onLeave,
		m.sub.Claim(): m.onClaim,
	} {
		sub, err := m.conn.NC.Subscribe(subj, h)
		if err != nil {
			return fmt.Errorf("master: subscribe %s: %w", subj, err)
		}
		m.subs = append(m.subs, sub)
	}
	m.e.wg.Add(3)
	go m.dispatchLoop()
	go func() {
		defer m.e.wg.Done()
		m.e.every(m.o.BalanceEvery, m.balanceDaily)
	}()
	go func() {
		defer m.e.wg.Done()
		m.e.every(m.o.HeartbeatEvery/2, m.checkNodes)
	}()
	return nil
}

// stop ends listening; results not yet committed stay in the stream (redelivered
// to the next master).
func (m *masterRuntime) stop() {
	if m.consume != nil {
		m.consume.Stop()
	}
	for _, s := range m.subs {
		s.Unsubscribe()
	}
	m.e.mu.Lock()
	m.saveNodes()
	m.saveCosts()
	m.e.mu.Unlock()
}

// add queues a task for its unit's worker. Caller holds e.mu.
func (m *masterRuntime) add(t frontier.Task) {
	unit := unitOf(t)
	h := m.units[unit]
	if h == nil {
		h = &unitQueue{hosts: map[string]bool{}}
		m.units[unit] = h
	}
	h.hosts[t.Host] = true
	if h.owner == "" || m.nodes[h.owner] == nil || m.nodes[h.owner].state == NodeDead {
		h.owner = m.pick(unit)
		if h.owner != "" {
			m.nodes[h.owner].units[unit] = true
		}
	}
	if t.Urgent { // the operator's new search or entry goes out first
		h.tasks = append([]frontier.Task{t}, h.tasks...)
	} else {
		h.tasks = append(h.tasks, t)
	}
	m.pending++
	m.signal()
}

func (m *masterRuntime) signal() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// pick chooses a worker for a new unit: the live one holding the fewest units of the
// unit's kind, then the fewest units, ties by name. For a social site's keyword
// shard the kind is the site's shards (so they go to different workers); for a news
// site or an undeclared domain, by far the most units, it is all units (the count
// at hand: a dead worker's thousands of domains are re-dealt without recounting).
// So news sites spread evenly and every worker gets a share of each social site's
// keywords (seed 003's assignment with equal weights; balancing by cost re-deals
// them). "" when no worker is live. Caller holds e.mu.
func (m *masterRuntime) pick(unit string) string {
	kind := unitKind(unit)
	best, bestKind, bestN := "", 0, 0
	// A paused worker takes new work only when no worker is active: the operator
	// paused it, and its lanes would hold the unit paused.
	anyActive := false
	for _, n := range m.nodes {
		anyActive = anyActive || n.state == NodeActive
	}
	for name, n := range m.nodes {
		if n.state != NodeActive && (n.state != NodePaused || anyActive) {
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

// unitKind groups units for an even deal (seed 003): "" for news sites and the
// registered domains of undeclared hosts, the social site's name for its keyword
// shards (every worker gets a disjoint share of each social site's keywords).
func unitKind(unit string) string {
	if site, _, ok := strings.Cut(unit, " · "); ok {
		return site
	}
	return ""
}

// dispatchLoop hands waiting tasks to their hosts' workers whenever something
// changed (a task queued, a result in, a worker joined), and twice a heartbeat.
func (m *masterRuntime) dispatchLoop() {
	defer m.e.wg.Done()
	t := time.NewTicker(m.o.HeartbeatEvery / 2)
	defer t.Stop()
	for {
		select {
		case <-m.e.ctx.Done():
			return
		case <-m.kick:
		case <-t.C:
		}
		m.dispatch()
	}
}

// dispatch sends each live, unpaused worker tasks of its hosts up to its window.
func (m *masterRuntime) dispatch() {
	type batch struct {
		n     *node
		tasks []frontier.Task
	}
	var out []batch
	e := m.e
	e.mu.Lock()
	if e.paused || e.state != StateRunning {
		e.mu.Unlock()
		return
	}
	names := make([]string, 0, len(m.nodes))
	for name := range m.nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		n := m.nodes[name]
		if n.state != NodeActive {
			continue
		}
		var tasks []frontier.Task
		units := sortedKeys(n.units)
		ready := func(h *unitQueue) bool { return h != nil && h.owner == name && h.next == "" && len(h.tasks) > 0 }
		hand := func(h *unitQueue) {
			t := h.tasks[0]
			h.tasks = h.tasks[1:]
			m.pending--
			h.out++
			m.lease++
			t.Lease = m.lease
			m.inflight[t.URL] = t.Lease
			n.held[t.URL] = t
			e.rv.taken(t.URL)
			tasks = append(tasks, t)
		}
		// Urgent tasks (an entry or search the operator added live; add
		// put them first in their unit) go out now, past the window: waiting for a
		// slot would queue them behind everything the worker holds, and they are a
		// handful per command.
		for _, unit := range units {
			for h := m.units[unit]; ready(h) && h.tasks[0].Urgent; {
				hand(h)
			}
		}
		room := m.o.Window - len(n.held)
		// Round-robin over the worker's units, so one big unit does not fill the
		// window while others wait.
		for room > 0 {
			took := false
			for _, unit := range units {
				if h := m.units[unit]; ready(h) && room > 0 {
					hand(h)
					room--
					took = true
				}
			}
			if !took {
				break
			}
		}
		if len(tasks) > 0 {
			out = append(out, batch{n, tasks})
		}
	}
	e.mu.Unlock()
	for _, b := range out {
		for i := range b.tasks {
			t := &b.tasks[i]
			if prev, _ := e.revisitState(*t); prev != nil { // M2: a refetch, conditional
				e.setValidators(t)
			}
			e.st.SetState(t.URL, store.InProgress, 0, "")
		}
		data, err := cluster.Encode(&wire.Tasks{Node: b.n.name, Incarnation: b.n.inc, Tasks: b.tasks})
		if err == nil {
			ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
			_, err = m.conn.JS.Publish(ctx, m.sub.Tasks(b.n.name), data)
			cancel()
		}
		if err != nil && e.ctx.Err() == nil {
			// Not handed out after all: the tasks wait for the next dispatch.
			e.logf(LevelWarn, 0, "", "tasks for %s not sent: %v", b.n.name, err)
			e.mu.Lock()
			for _, t := range slices.Backward(b.tasks) { // each goes first in line: the first last keeps the order
				m.unhand(b.n, t)
				m.requeue(t)
			}
			e.mu.Unlock()
		}
	}
}

// unhand forgets that n holds t (reported, handed back, or n is dead). Caller holds
// e.mu.
func (m *masterRuntime) unhand(n *node, t frontier.Task) {
	if _, ok := n.held[t.URL]; !ok {
		return
	}
	delete(n.held, t.URL)
	if unit := unitOf(t); m.units[unit] != nil {
		h := m.units[unit]
		h.out--
		if h.out <= 0 {
			h.out = 0
			if h.next != "" { // the old owner is done with the unit: it moves now
				m.moveUnit(unit, h)
			}
		}
	}
}

func (m *masterRuntime) moveUnit(unit string, h *unitQueue) {
	delete(m.moving, unit)
	if old := m.nodes[h.owner]; old != nil && h.owner != h.next {
		delete(old.units, unit)
	}
	h.owner, h.next = h.next, ""
	if n := m.nodes[h.owner]; n != nil && n.state != NodeDead {
		n.units[unit] = true
	} else {
		h.owner = m.pick(unit)
		if n := m.nodes[h.owner]; n != nil {
			n.units[unit] = true
		}
	}
	m.signal()
}

// requeue puts a task handed out earlier back in its unit's queue, first in line
// (its lease no longer counts). Caller holds e.mu.
func (m *masterRuntime) requeue(t frontier.Task) {
	if m.inflight[t.URL] == t.Lease {
		delete(m.inflight, t.URL)
	}
	m.e.rv.handedBack(t.URL)
	t.Lease = 0
	if m.e.withdrawn(t) { // withdrawn while a worker held it
		m.e.rv.leftQueue(t.URL) // before setOut drops the mark
		m.e.setOut(t)
		return
	}
	unit := unitOf(t)
	h := m.units[unit]
	if h == nil {
		m.add(t)
		return
	}
	h.tasks = append([]frontier.Task{t}, h.tasks...)
	m.pending++
	if h.owner == "" || m.nodes[h.owner] == nil || m.nodes[h.owner].state == NodeDead {
		h.owner = m.pick(unit)
		if n := m.nodes[h.owner]; n != nil {
			n.units[unit] = true
		}
	}
	m.signal()
}

// onResult commits one worker's result, or its deferral, and acknowledges it once
// committed. A report that is not for its URL's current hand-out (a dead worker's
// late result, a redelivery after the master's restart) is acknowledged and dropped:
// each hand-out counts at most once, and only the current one.
func (m *masterRuntime) onResult(msg jetstream.Msg) {
	if m.sub.IsDeferral(msg.Subject()) {
		m.onDeferral(msg)
		return
	}
	var r wire.Result
	if err := wire.DecodeResult(msg.Data(), &r); err != nil {
		m.reject(msg, "result", err)
		return
	}
	e := m.e
	m.addRefusals(r.Refusals)
	n, revisit, ok := m.settle(msg, r.Node, r.Task)
	if !ok {
		return
	}
	if n != nil {
		n.results++
	}
	if r.Res != nil {
		// Seed 003's cost table: the time a lane spent on the page, its fetch and the
		// mean pause that follows it (politeness, not the fetch, is most of a site's
		// crawl time; fetch times alone on a fast network are mostly noise).
		m.addCost(unitOf(r.Task), r.Res.Duration+(e.opts.Lanes.DelayMin+e.opts.Lanes.DelayMax)/2)
		e.fetchCost.add(r.Res.Duration) // access time for the workers-needed estimate
	}
	e.mu.Unlock()
	if r.Kind == SkipSteeredOut { // withdrawn from the worker's board
		e.endSteeredOut(r.Task)
	} else {
		// A revisit is recorded as one: its stored state read with the mark just
		// dropped in mind. Read after the drop, it was a first fetch every time (no
		// history for the estimator, no date hints: a source's last read unknown).
		o := outcomeOf(&r)
		o.prev, o.track = e.revisitStateOf(o.Task, revisit)
		o.primed = true
		e.record(o)
	}
	m.committed(msg)
}

// onDeferral sets aside a URL a worker deferred (M3: its host disabled, its
// robots.txt unreachable) until the time it names: the store queues it again then.
// It is no result: the worker's results and the URL's fetch history stay as they were.
func (m *masterRuntime) onDeferral(msg jetstream.Msg) {
	var d wire.Deferral
	if err := cluster.Decode(msg.Data(), &d, wire.MaxMessage); err != nil {
		m.reject(msg, "deferral", err)
		return
	}
	m.addRefusals(d.Refusals)
	if _, _, ok := m.settle(msg, d.Node, d.Task); !ok {
		return
	}
	m.e.mu.Unlock()
	m.e.st.Defer(d.Task.URL, d.Until)
	m.e.c.deferred.Add(1)
	m.committed(msg)
}

// reject counts and drops a report that cannot be read.
func (m *masterRuntime) reject(msg jetstream.Msg, what string, err error) {
	m.rejects.Add(cluster.Reason(err))
	m.e.logf(LevelWarn, 0, "", "%s rejected: %v", what, err)
	msg.Term()
}

// addRefusals stores the refusals a report carries: facts about the site, whatever
// becomes of the report's hand-out.
func (m *masterRuntime) addRefusals(rs []store.Refusal) {
	if m.e.ctx.Err() != nil {
		return
	}
	for _, rf := range rs {
		m.e.st.AddRefusal(rf)
	}
}

// settle ends the hand-out of t that node reported on: with ok it returns holding
// e.mu, the reporting node (nil if unknown) and whether t was a revisit; without, the
// report was acknowledged (late) or refused (stopping), and e.mu is not held.
func (m *masterRuntime) settle(msg jetstream.Msg, node string, t frontier.Task) (n *node, revisit, ok bool) {
	e := m.e
	e.mu.Lock()
	if e.ctx.Err() != nil {
		e.mu.Unlock()
		msg.Nak() // stopping: the next master commits it
		return nil, false, false
	}
	lease, ok := m.inflight[t.URL]
	n = m.nodes[node]
	// Only the current hand-out's report counts: an older one (a dead worker's, a
	// batch from before the master's restart) could be committed while dispatch is
	// still marking the new hand-out in progress, and that mark would win, leaving
	// a stored page "in progress" for good.
	if !ok || lease != t.Lease {
		if n != nil {
			n.late++ // under e.mu: reports are handled on several goroutines
		}
		e.mu.Unlock()
		m.late.Add(1)
		msg.Ack()
		return nil, false, false
	}
	delete(m.inflight, t.URL)
	for _, nn := range m.nodes { // whoever holds it (the sender, or the worker it moved to)
		if held, ok := nn.held[t.URL]; ok && (held.Lease == lease || nn == n) {
			m.unhand(nn, held)
		}
	}
	return n, e.rv.ended(t.URL), true
}

// committed acknowledges a report once the store committed what it wrote, and lets
// the crawl go on (idle check, dispatch).
func (m *masterRuntime) committed(msg jetstream.Msg) {
	e := m.e
	e.st.AfterCommit(func(err error) {
		if err != nil {
			msg.Nak() // not stored: redelivered (the store error stops the crawl)
			return
		}
		msg.Ack()
	})
	e.mu.Lock()
	e.checkIdle()
	e.mu.Unlock()
	m.signal()
}

// outcomeOf is a worker's result as the recording side takes it.
func outcomeOf(r *wire.Result) Outcome {
	return Outcome{Task: r.Task, Lane: r.Lane, Egress: r.Egress, Node: r.Node, Kind: r.Kind, Res: r.Res, Hops: r.Hops, At: r.At}
}

// onJoin answers a worker's join: a new name is a new worker and gets hosts at once;
// a known name with a new incarnation restarted, and what its last life held goes
// back to the queue first.
func (m *masterRuntime) onJoin(msg *nats.Msg) {
	var j wire.Join
	if err := cluster.Decode(msg.Data, &j, wire.MaxMessage); err != nil {
		m.rejects.Add(cluster.Reason(err))
		m.respond(msg, &wire.JoinReply{Error: err.Error()})
		return
	}
	e := m.e
	now := e.now()
	e.mu.Lock()
	if old := m.nodes[j.Node]; old != nil && old.inc != j.Incarnation && old.state != NodeDead {
		m.bury(old)
	}
	n := m.nodes[j.Node]
	if n == nil || n.inc != j.Incarnation {
		n = &node{name: j.Node, inc: j.Incarnation, joined: now, units: map[string]bool{}, held: map[string]frontier.Task{}}
		if old := m.nodes[j.Node]; old != nil {
			n.results, n.late = old.results, old.late
			n.refusedBefore = old.refusedBefore + old.hb.Refused
		}
		m.nodes[j.Node] = n
	}
	n.state, n.heard = NodeActive, now
	n.hb = wire.Heartbeat{Node: j.Node, Incarnation: j.Incarnation, LanesMax: j.LanesMax, Egresses: j.Egresses}
	reply := wire.JoinReply{Settings: e.workerSettings(m.o.HeartbeatEvery), Paused: e.paused, PauseSeq: m.pauseSeq}
	var grants []string
	if m.table != nil && len(n.grants) == 0 {
		per := e.opts.Rotation.PerNode
		if per <= 0 {
			per = 2
		}
		grants = m.table.Assign(j.Node, per)
		n.grants = grants
	} else {
		grants = n.grants
	}
	for _, name := range grants {
		if a, ok := m.table.Account(name); ok {
			reply.Egress = append(reply.Egress, wire.Grant(a))
		}
	}
	moved := m.spread()
	m.saveNodes()
	e.mu.Unlock()
	e.logf(LevelInfo, 0, "", "worker %s joined (%d egresses granted); %d sites or keyword shards move to it", j.Node, len(grants), moved)
	m.respond(msg, &reply)
	m.signal()
}

// spread evens out the units over the live workers after a join: units left without
// an owner get one, and within each kind of unit (unitKind: news sites, each social
// site's keyword shards) the worker holding the most gives units with work waiting to
// the one holding the fewest until they differ by one at most (moving as little as
// possible). Evening out each kind, not the total, matters when workers join one
// after another: the first holds everything, and a deal by total alone could leave
// it only keyword shards, or a social site's shards all on one worker. A unit moves
// once its old owner reported its tasks of it (M1: the new owner does not start on
// its hosts before the old one's requests are over). Caller holds e.mu. It returns
// how many units move.
func (m *masterRuntime) spread() int {
	var live []*node
	for _, name := range sortedKeys(m.nodes) {
		if n := m.nodes[name]; n.state == NodeActive || n.state == NodePaused {
			live = append(live, n)
		}
	}
	if len(live) == 0 {
		return 0
	}
	units := sortedKeys(m.units)
	moved := 0
	for _, unit := range units { // owners first for units that have none
		h := m.units[unit]
		if (h.owner == "" || m.nodes[h.owner] == nil || m.nodes[h.owner].state == NodeDead) && len(h.tasks) > 0 {
			h.owner = m.pick(unit)
			m.nodes[h.owner].units[unit] = true
			moved++
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
	for _, pass := range []bool{true, false} {
		for _, u := range units {
			h := m.units[u]
			n := m.nodes[h.owner]
			if n == nil || give[n] == nil || !n.units[u] || h.next != "" || len(h.tasks) == 0 && h.out == 0 || (h.out == 0) != pass {
				continue
			}
			give[n][unitKind(u)] = append(give[n][unitKind(u)], u)
		}
	}
	kinds := map[string]bool{}
	for _, u := range units {
		kinds[unitKind(u)] = true
	}
	release := map[string][]string{}
	for _, kind := range sortedKeys(kinds) {
		for {
			// The receiver holds the fewest of the kind (then the fewest units); the
			// giver the most, among those with a unit of the kind to give.
			var to, from *node
			for _, n := range live {
				k := held[n][kind]
				if to == nil || k < held[to][kind] || k == held[to][kind] && len(n.units) < len(to.units) {
					to = n
				}
				if len(give[n][kind]) > 0 && (from == nil || k > held[from][kind] || k == held[from][kind] && len(n.units) > len(from.units)) {
					from = n
				}
			}
			if from == nil || held[from][kind]-held[to][kind] <= 1 {
				break
			}
			unit := give[from][kind][0]
			give[from][kind] = give[from][kind][1:]
			held[from][kind]--
			held[to][kind]++
			moved++
			h := m.units[unit]
			h.next = to.name
			to.units[unit] = true // counted as its share now; it starts once the move is done
			delete(from.units, unit)
			if h.out == 0 {
				m.moveUnit(unit, h)
				continue
			}
			release[from.name] = append(release[from.name], unit)
		}
	}
	for name, hs := range release {
		go m.release(name, hs)
	}
	return moved
}

// release asks a worker to hand back the tasks of units that move away from it; the
// ones it is fetching report as results, and the units move once all did.
func (m *masterRuntime) release(name string, units []string) {
	m.e.mu.Lock()
	hostSet := map[string]bool{}
	for _, u := range units {
		if q := m.units[u]; q != nil {
			for h := range q.hosts {
				hostSet[h] = true
			}
		}
	}
	m.e.mu.Unlock()
	var reply wire.ControlReply
	if err := m.control(name, &wire.Control{Op: wire.OpRelease, Hosts: sortedKeys(hostSet), Units: units}, &reply); err != nil {
		m.e.logf(LevelWarn, 0, "", "worker %s: release of %d units: %v (they move when its tasks report)", name, len(units), err)
		return
	}
	e := m.e
	e.mu.Lock()
	defer e.mu.Unlock()
	n := m.nodes[name]
	for _, t := range slices.Backward(reply.Tasks) { // requeue puts each first: the first last keeps their order
		if n == nil {
			break
		}
		if held, ok := n.held[t.URL]; ok && held.Lease == t.Lease {
			m.unhand(n, held)
			m.requeue(held)
		}
	}
}

// control sends one worker a control request and decodes its reply.
func (m *masterRuntime) control(name string, c *wire.Control, reply *wire.ControlReply) error {
	data, err := cluster.Encode(c)
	if err != nil {
		return err
	}
	msg, err := m.conn.NC.Request(m.sub.Control(name), data, 2*m.o.HeartbeatEvery)
	if err != nil {
		return err
	}
	if err := cluster.Decode(msg.Data, reply, 0); err != nil {
		m.rejects.Add(cluster.Reason(err))
		return err
	}
	if reply.Error != "" {
		return errors.New(reply.Error)
	}
	return nil
}

// onHeartbeat records a worker's sign of life and what it reports.
func (m *masterRuntime) onHeartbeat(msg *nats.Msg) {
	var hb wire.Heartbeat
	if err := cluster.Decode(msg.Data, &hb, wire.MaxMessage); err != nil {
		m.rejects.Add(cluster.Reason(err))
		return
	}
	e := m.e
	e.mu.Lock()
	n := m.nodes[hb.Node]
	known := n != nil && n.inc == hb.Incarnation && n.state != NodeDead
	if known {
		n.heard = e.now()
		live := make(map[int]bool, len(hb.Rows))
		for i := range hb.Rows {
			live[hb.Rows[i].ID] = true
			hb.Rows[i].ID = m.globalLane(hb.Node, hb.Rows[i].ID)
		}
		m.forgetLanes(hb.Node, live)
		n.hb = hb
		lanes := 0
		for _, o := range m.nodes {
			if o.state != NodeDead {
				lanes += o.hb.Lanes
			}
		}
		m.lanesPeak = max(m.lanesPeak, lanes)
		if n.state == NodeActive || n.state == NodePaused {
			n.state = NodeActive
			if hb.Paused {
				n.state = NodePaused
			}
		}
	}
	paused, seq := e.paused, m.pauseSeq
	e.mu.Unlock()
	m.respond(msg, &wire.HeartbeatReply{Known: known, Paused: paused, PauseSeq: seq})
}

// onLeave takes back what a leaving worker hands back; with Final it is gone.
func (m *masterRuntime) onLeave(msg *nats.Msg) {
	var l wire.Leave
	if err := cluster.Decode(msg.Data, &l, wire.MaxMessage*16); err != nil {
		m.rejects.Add(cluster.Reason(err))
		m.respond(msg, &wire.ControlReply{Error: err.Error()})
		return
	}
	e := m.e
	e.mu.Lock()
	n := m.nodes[l.Node]
	// A leave is two requests (worker.Leave): the hand-back of what the worker had
	// not fetched, then the final one once its fetches reported. The leave is
	// logged once, at the first: with the tasks it handed back, or, when the
	// hand-back never came, what the final one makes the master take back.
	first, back := false, 0
	if n != nil && n.inc == l.Incarnation && n.state != NodeDead {
		first = n.state != NodeLeaving
		n.state = NodeLeaving
		for _, t := range slices.Backward(l.Tasks) { // requeue puts each first: the first last keeps their order
			if held, ok := n.held[t.URL]; ok && held.Lease == t.Lease {
				m.unhand(n, held)
				m.requeue(held)
				back++
			}
		}
		// Its hosts go to others as soon as it reported what it still fetches.
		for unit := range n.units {
			if h := m.units[unit]; h != nil && h.owner == n.name && h.next == "" {
				if want := m.pick(unit); want != "" {
					h.next = want
					if h.out == 0 {
						m.moveUnit(unit, h)
					}
				}
			}
		}
		if l.Final {
			if first {
				back += len(n.held) // bury queues them again
			}
			m.bury(n)
		}
		m.saveNodes()
	}
	e.mu.Unlock()
	if first {
		e.logf(LevelInfo, 0, "", "worker %s leaving: %d tasks handed back", l.Node, back)
	}
	m.respond(msg, &wire.ControlReply{})
	m.signal()
}

// checkNodes declares dead the workers silent past the timeout (seed 003).
func (m *masterRuntime) checkNodes(now time.Time) {
	e := m.e
	e.mu.Lock()
	var dead []string
	for _, n := range m.nodes {
		if n.state != NodeDead && now.Sub(n.heard) > m.o.Timeout {
			m.bury(n)
			dead = append(dead, n.name)
		}
	}
	if len(dead) > 0 {
		m.saveNodes()
	}
	e.mu.Unlock()
	for _, name := range dead {
		e.logf(LevelWarn, 0, "", "worker %s is dead (no heartbeat for %v): its sites, keyword shards and URLs went to others", name, m.o.Timeout)
		m.purge(name)
	}
	if len(dead) > 0 {
		m.signal()
	}
}

// bury marks a worker dead: what it held goes back to the queue, its hosts to the
// others, its egresses back to the table. Caller holds e.mu.
func (m *masterRuntime) bury(n *node) {
	n.state = NodeDead
	// Newest hand-out first, as requeue puts each first in line: they go back in
	// the order they were handed out (leases grow).
	held := slices.SortedFunc(maps.Values(n.held), func(a, b frontier.Task) int { return cmp.Compare(b.Lease, a.Lease) })
	for _, t := range held {
		m.unhand(n, t)
		m.requeue(t)
	}
	for unit := range n.units {
		if h := m.units[unit]; h != nil && h.owner == n.name {
			h.owner, h.next = "", ""
			if len(h.tasks) > 0 {
				h.owner = m.pick(unit)
				if nn := m.nodes[h.owner]; nn != nil {
					nn.units[unit] = true
				}
			}
		}
		delete(n.units, unit)
	}
	if m.table != nil {
		for _, g := range n.grants {
			m.table.Release(g)
		}
		n.grants = nil
	}
}

// purge drops task batches a dead worker never took (a new incarnation of it must not
// fetch them: they went to others).
func (m *masterRuntime) purge(name string) {
	ctx, cancel := context.WithTimeout(m.e.ctx, 5*time.Second)
	defer cancel()
	s, err := m.conn.JS.Stream(ctx, m.sub.TaskStream())
	if err == nil {
		err = s.Purge(ctx, jetstream.WithPurgeSubject(m.sub.Tasks(name)))
	}
	if err != nil && m.e.ctx.Err() == nil {
		m.e.logf(LevelWarn, 0, "", "worker %s: purge its task batches: %v", name, err)
	}
}

func (m *masterRuntime) respond(msg *nats.Msg, v any) {
	if msg.Reply == "" {
		return
	}
	if data, err := cluster.Encode(v); err == nil {
		msg.Respond(data)
	}
}

// pauseNode pauses or resumes one worker.
func (m *masterRuntime) pauseNode(name string, paused bool) error {
	m.e.mu.Lock()
	n := m.nodes[name]
	if n == nil || n.state == NodeDead {
		m.e.mu.Unlock()
		return fmt.Errorf("no live worker %q", name)
	}
	m.e.mu.Unlock()
	op := wire.OpResume
	if paused {
		op = wire.OpPause
	}
	var reply wire.ControlReply
	if err := m.control(name, &wire.Control{Op: op}, &reply); err != nil {
		return fmt.Errorf("worker %s: %v", name, err)
	}
	m.e.mu.Lock()
	if n.state == NodeActive || n.state == NodePaused {
		n.state = NodeActive
		if paused {
			n.state = NodePaused
		}
	}
	m.e.mu.Unlock()
	m.e.logf(LevelInfo, 0, "", "worker %s %sd by operator", name, op)
	m.signal()
	return nil
}

// broadcastPause sends the crawl's pause state (the console's global pause) to every
// live worker, numbered: the state and its number are taken together, so of a pause
// and a resume racing here the later-numbered carries the state the master ended in.
func (m *masterRuntime) broadcastPause() {
	m.e.mu.Lock()
	m.pauseSeq++
	paused, seq := m.e.paused, m.pauseSeq
	var names []string
	for name, n := range m.nodes {
		if n.state != NodeDead {
			names = append(names, name)
		}
	}
	m.e.mu.Unlock()
	op := wire.OpCrawlResume // the crawl's pause, apart from a worker's own (PauseNode)
	if paused {
		op = wire.OpCrawlPause
	}
	for _, name := range names {
		go m.control(name, &wire.Control{Op: op, Seq: seq}, &wire.ControlReply{})
	}
}

// counts returns the tasks waiting at the master and those handed out. Caller holds
// e.mu.
func (m *masterRuntime) counts() (pending, out int) {
	return m.pending, len(m.inflight)
}

// view returns the Nodes pane rows and the workers' lanes. Caller holds e.mu.
func (m *masterRuntime) view() ([]Node, []Lane) {
	names := make([]string, 0, len(m.nodes))
	for name := range m.nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	var nodes []Node
	var rows []Lane
	held := make([]string, 0, len(m.units))
	for u, q := range m.units {
		if q.owner != "" {
			held = append(held, u)
		}
	}
	weights := m.weights(held)
	for _, name := range names {
		n := m.nodes[name]
		row := Node{Name: name, State: n.state, Heartbeat: n.heard, Joined: n.joined,
			Egresses: n.hb.Egresses, Lanes: n.hb.Lanes, LanesMax: n.hb.LanesMax, PagesPerSec: n.hb.PagesPerSec,
			Queue: len(n.held), Results: n.results, Late: n.late}
		if n.state == NodeDead {
			// Its last heartbeat is history: a dead worker holds no egress (bury
			// gave its grants back to the table), runs no lane and fetches nothing.
			// What it did (results, late) stays.
			row.Egresses, row.Lanes, row.PagesPerSec = nil, 0, 0
		}
		hosts := map[string]bool{}
		for u := range n.units {
			row.Weight += weights[u]
			if c := m.costs[u]; c != nil {
				row.Cost += time.Duration(c.Current * float64(time.Second))
			}
			if strings.Contains(u, " · ") {
				row.Keywords++
			} else {
				row.Sites++
			}
			if q := m.units[u]; q != nil {
				for h := range q.hosts {
					hosts[h] = true
				}
			}
		}
		row.Hosts = len(hosts)
		nodes = append(nodes, row)
		if n.state != NodeDead {
			for _, r := range n.hb.Rows {
				r.Node = name
				rows = append(rows, r)
			}
		}
	}
	return nodes, rows
}

const nodesMetaKey = "cluster.nodes.v1"

// saveNodes persists the node table for `stats --json` (the store's meta table).
// Caller holds e.mu.
func (m *masterRuntime) saveNodes() {
	type row struct {
		Name      string    `json:"name"`
		State     NodeState `json:"state"`
		Heartbeat time.Time `json:"heartbeat"`
		Joined    time.Time `json:"joined"`
		Hosts     int       `json:"hosts"`
		Results   int64     `json:"results"`
		Late      int64     `json:"late"`
	}
	var rows []row
	for _, n := range m.nodes {
		rows = append(rows, row{n.name, n.state, n.heard, n.joined, len(n.units), n.results, n.late})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
	if data, err := cluster.Encode(rows); err == nil {
		m.e.st.SetMeta(nodesMetaKey, data)
	}
}

// workerSettings are the crawl settings a worker follows.
func (e *Engine) workerSettings(hb time.Duration) WorkerSettings {
	o := e.opts
	return WorkerSettings{Lanes: o.Lanes, HostRate: o.HostRate, Politeness: &o.Politeness, Cookies: &o.Cookies, Robots: o.Robots, UserAgent: o.UserAgent,
		Fetch: o.Fetch, DNS: o.DNS, DNSServers: o.DNSServers, Rotation: o.Rotation, HeartbeatEvery: hb,
		Etiquette: &o.Etiquette}
}

// stats is the master's part of the stats object.
func (m *masterRuntime) stats() *ClusterStats {
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	cs := &ClusterStats{Nodes: map[string]NodeStats{}, LateResults: m.late.Load(), Rejected: m.rejects.Snapshot()}
	for name, n := range m.nodes {
		cs.Nodes[name] = NodeStats{State: n.state, Results: n.results, Late: n.late, Hosts: len(n.units)}
	}
	return cs
}

// onClaim grants a worker whose egresses were all refused one more from the account
// table (seed 003 step 3-2-3), if one is free.
func (m *masterRuntime) onClaim(msg *nats.Msg) {
	var c wire.Claim
	if err := cluster.Decode(msg.Data, &c, wire.MaxMessage); err != nil {
		m.rejects.Add(cluster.Reason(err))
		m.respond(msg, &wire.ClaimReply{Error: err.Error()})
		return
	}
	e := m.e
	e.mu.Lock()
	n := m.nodes[c.Node]
	var reply wire.ClaimReply
	switch {
	case n == nil || n.inc != c.Incarnation || n.state == NodeDead:
		reply.Error = "unknown worker"
	case m.table == nil:
		reply.Error = "the master has no egress account table"
	default:
		if name, ok := m.table.Claim(c.Node); ok {
			if a, ok := m.table.Account(name); ok {
				n.grants = append(n.grants, name)
				g := wire.Grant(a)
				reply.Egress = &g
			}
		}
	}
	e.mu.Unlock()
	if reply.Egress != nil {
		e.logf(LevelInfo, 0, "", "worker %s claimed egress %s from the account table", c.Node, reply.Egress.Name)
		m.saveNodes()
	}
	m.respond(msg, &reply)
}
