package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Lanes is the worker's crawl as its Node sees it: the lane half of an engine,
// whose front is the master (the engine's remote front posts its outcomes to the
// Node's Outbox). The Node places the master's tasks on it, takes them back when
// the master moves or withdraws them, pauses it, and reads its figures for the
// heartbeat. Methods take the engine's lock themselves.
type Lanes interface {
	// Start starts the lanes; Close stops them and releases what they hold.
	Start() error
	Close()
	// Place puts a batch of the master's tasks on the board (M1).
	Place(tasks []frontier.Task)
	// Carry gives the politeness gate the end of the last request another worker
	// made to host: a host that changed hands keeps its gap.
	Carry(host string, at time.Time)
	// Release takes the queued tasks of hosts off the board and returns them; with
	// units, only those of these assignment units (the others stay queued).
	Release(hosts, units []string) []frontier.Task
	// Withdraw takes the master's withdrawn hand-outs off the board and keeps them
	// off (reported as results of kind steered_out); it returns how many it took.
	Withdraw(tasks []frontier.Task) int
	// Holding is what the worker holds: the lanes' tasks in hand first, then the
	// board's.
	Holding() []frontier.Task
	// Drop takes the tasks drop selects off the board, unfetched.
	Drop(drop func(frontier.Task) bool)
	// TakeAll takes every queued task off the board.
	TakeAll() []frontier.Task
	// InHand is how many tasks the lanes hold.
	InHand() int
	// Paused, Pause and Resume are the crawl's pause on this worker.
	Paused() bool
	Pause()
	Resume()
	// Snapshot is the worker's console view; the heartbeat carries its figures.
	Snapshot() view.Snapshot
	// Controls are the operator's controls of the lanes, which the master passes
	// on (controls.go).
	Controls
	// DisableHostFor puts host on the host_disable_list for d: what is left of
	// the master's disable (hosts.go).
	DisableHostFor(host string, d time.Duration) error
	// Logf adds an event to the worker's log.
	Logf(level view.Level, format string, args ...any)
}

// Build makes a worker's lanes once its master answered the join: opts are the
// crawl settings the master gave, granted the egresses it granted. The Node is
// there to give the lanes its outbox, its claims and its lease.
type Build func(n *Node, opts config.Options, granted []egress.Spec) (Lanes, error)

// Node is a running worker of a distributed crawl (M4): its conversation with the
// master (join, heartbeats, controls, task batches, reports, leave) around the
// lanes it runs. Leave ends it gracefully; Close ends it at once (the master
// reassigns what it held after the heartbeat timeout).
type Node struct {
	lanes Lanes
	o     config.WorkerOptions
	inc   string
	nc    *nats.Conn
	conn  *cluster.Conn
	sub   wire.Subjects

	hbEvery time.Duration
	// verdicts are the render verdicts the master gave at join (RenderVerdicts).
	verdicts map[string]bool
	cons     jetstream.ConsumeContext
	ctlSub   *nats.Subscription
	ready    chan struct{} // closed once the lanes run: control requests wait for it
	box      *Outbox       // results and deferrals to the master
	up       *Upstream     // join, heartbeat, claim and leave requests
	lease    *Lease        // its hold on the hosts the master dealt it
	// beats is held to silence the heartbeats (a worker paused or cut off, as the
	// master sees it).
	beats   sync.Mutex
	quit    chan struct{}
	bg      sync.WaitGroup
	rejects cluster.Rejects
	// ctx ends with Close: the worker's requests and publishes to the master
	// stop waiting then.
	ctx    context.Context
	cancel context.CancelFunc

	mu          sync.Mutex
	nodePaused  bool                 // the operator paused this worker
	nodeSeq     uint64               // the master's number of the worker's pause state recorded (wire.Control.Seq)
	crawlPaused bool                 // the operator paused the whole crawl
	crawlSeq    uint64               // the master's number of the crawl pause state recorded (wire.Control.Seq)
	pauseMu     sync.Mutex           // serialises pause decisions with the lane calls that apply them
	lanesSeq    uint64               // the master's number of the lanes.max applied (wire.Control.Seq); under lanesMu
	lanesMu     sync.Mutex           // serialises lanes.max decisions with the lane calls that apply them
	hostsMu     sync.Mutex           // serialises host pause/disable decisions with their lane calls (hosts.go)
	hostMarks   map[hostKey]hostMark // the host states the master set here; under hostsMu
	closed      bool
	// handedBack are the tasks releases took off the board, sent again with each
	// heartbeat until a reply confirms the master has them (wire.Heartbeat.HandedBack).
	handedBack []frontier.Task
	reach      masterReach // whether the master answers the heartbeats (reach.go)
	// placeMu orders placing a batch against a release (release.go); released
	// are the units released, by name, and recalled the hosts a budget's recall
	// took back.
	placeMu  sync.Mutex
	released map[string]released
	recalled map[string]released
	// rejoining is set from a rejoin's request until its reply is applied; the
	// task batches that come meanwhile wait in parked (rejoin.go). Under mu.
	rejoining bool
	parked    []jetstream.Msg
}

// handBackPerBeat caps the hand-backs one heartbeat carries (a release gives back at
// most the master's window, 512 by default); the rest go with the next ones.
const handBackPerBeat = 512

// RenderVerdicts are the render verdicts the master gave at join: the crawl's
// sections known to need rendering or not, for the worker's decider to start from.
func (n *Node) RenderVerdicts() map[string]bool { return n.verdicts }

// Start joins the master, builds the lanes with build and starts fetching what the
// master hands out.
func Start(o config.WorkerOptions, build Build) (*Node, error) {
	o, err := o.WithDefaults()
	if err != nil {
		return nil, err
	}
	if _, err := egress.ParseSpecs(o.Egress); err != nil {
		return nil, err
	}
	var b [8]byte
	rand.Read(b[:])
	n := &Node{o: o, inc: hex.EncodeToString(b[:]), nc: o.Conn.NC, conn: o.Conn, sub: wire.Subjects(o.Prefix),
		quit:  make(chan struct{}),
		ready: make(chan struct{}), hostMarks: map[hostKey]hostMark{}}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.box = NewOutbox(n.ctx, n.quit, o.Conn, n.sub, o.Node, n.inc)
	n.up = NewUpstream(n.ctx, n.quit, o, n.inc)
	n.lease = NewLease(nil)
	// The control subject is live before the join: the master counts this worker
	// joined as soon as it answers the join, and may send it a control at once (the
	// operator's pause, a release); a subscription made after the join was not yet
	// known to the server then, and such a request failed with "no responders".
	// Requests wait in onControl until the lanes run.
	if err := n.subscribeControl(); err != nil {
		return nil, err
	}
	sent := time.Now() // the lease counts from before the first try (the safe side)
	reply, err := n.up.Join(nil, false)
	if err != nil {
		n.Close()
		return nil, err
	}
	n.lease.Grant(sent, reply.Lease)
	var opts config.Options
	opts, n.hbEvery = Options(reply.Settings, o)
	n.verdicts = reply.Settings.RenderVerdicts
	granted := Egresses(o, reply.Egress)
	l, err := build(n, opts, granted)
	if err != nil {
		n.Close()
		return nil, err
	}
	n.lanes = l
	if err := l.Start(); err != nil {
		n.Close()
		return nil, err
	}
	n.setCrawlPaused(reply.PauseSeq, reply.Paused, true)
	if reply.NodeSeq != 0 {
		n.setPaused(reply.NodeSeq, reply.NodePaused)
	}
	n.joinLanesMax(reply)
	n.joinHosts(reply)
	close(n.ready) // after the join reply's pause: a control sent since is newer
	if err := n.consumeTasks(); err != nil {
		n.Close()
		return nil, err
	}
	n.bg.Add(2)
	go func() {
		defer n.bg.Done()
		n.box.Run()
	}()
	go n.heartbeat()
	l.Logf(view.LevelInfo, "worker %s joined the master (%d egresses granted)", o.Node, len(granted))
	return n, nil
}

// Name is the worker's name.
func (n *Node) Name() string { return n.o.Node }

// Outbox is where the lanes' outcomes, deferrals and refusals go to the master.
func (n *Node) Outbox() *Outbox { return n.box }

// Claim asks the master's account table for another egress, when all of the
// worker's were refused (seed 003 step 3-2-3).
func (n *Node) Claim() (egress.Spec, bool) { return n.up.Claim() }

// ClaimWith is Claim handing the grant to add (Upstream.ClaimWith): the rotation's
// claim, which puts it in the worker's own table.
func (n *Node) ClaimWith(add func(egress.Spec) error) bool { return n.up.ClaimWith(add) }

// LeaseWait is the lanes' wait on the worker's lease before a request
// (lanes.Runner.Lease): ErrLeaseLost for a task the master gave to another worker.
func (n *Node) LeaseWait(ctx context.Context, lease uint64) error { return n.lease.Wait(ctx, lease) }

// LeaseBound is the lanes' bound on a request by the worker's lease
// (lanes.Runner.LeaseBound): it ends when the lease runs out unrenewed.
func (n *Node) LeaseBound() context.Context { return n.lease.Bound() }

// SilenceHeartbeats stops the heartbeats until resume is called, as a worker paused
// or cut off would: the master's timeout and the lease's end are tested so.
func (n *Node) SilenceHeartbeats() (resume func()) {
	n.beats.Lock()
	var once sync.Once
	return func() { once.Do(n.beats.Unlock) }
}

// subscribeControl listens to the master's control requests and makes sure the
// server knows the subscription (a flush: PING/PONG after the SUB) before the join
// tells the master about this worker.
func (n *Node) subscribeControl() error {
	sub, err := n.nc.Subscribe(n.sub.Control(n.o.Node), n.onControl)
	if err != nil {
		return fmt.Errorf("worker: subscribe to control requests: %w", err)
	}
	n.ctlSub = sub
	if err := n.nc.FlushTimeout(n.o.JoinTimeout); err != nil {
		sub.Unsubscribe()
		return fmt.Errorf("worker: subscribe to control requests: %w", err)
	}
	return nil
}

// consumeTasks (re)creates the worker's durable consumer and consumes from it. A
// master that restarted has a new task stream (batches live in memory storage), so a
// rejoin consumes anew.
func (n *Node) consumeTasks() error {
	ctx, cancel := context.WithTimeout(n.ctx, 10*time.Second)
	defer cancel()
	cons, err := n.conn.EnsureConsumer(ctx, n.sub.TaskStream(), jetstream.ConsumerConfig{
		Durable: "task_" + n.o.Node, FilterSubject: n.sub.Tasks(n.o.Node),
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: wire.TaskAckWait, MaxDeliver: -1,
	})
	if err != nil {
		return err
	}
	cc, err := cons.Consume(n.onTasks)
	if err != nil {
		return fmt.Errorf("worker: consume tasks: %w", err)
	}
	n.mu.Lock()
	old := n.cons
	n.cons = cc
	n.mu.Unlock()
	if old != nil {
		old.Stop()
	}
	return nil
}

// stopTasks stops taking task batches.
func (n *Node) stopTasks() {
	n.mu.Lock()
	cc := n.cons
	n.mu.Unlock()
	if cc != nil {
		cc.Stop()
	}
}

// onTasks places a batch of tasks on the lane board (M1) and acknowledges it. A batch
// for an earlier incarnation of this name went to others when it died: dropped.
func (n *Node) onTasks(msg jetstream.Msg) {
	if n.park(msg) {
		return
	}
	var b wire.Tasks
	if err := cluster.Decode(msg.Data(), &b, 0); err != nil {
		n.rejects.Add(cluster.Reason(err))
		n.lanes.Logf(view.LevelWarn, "task batch rejected: %v", err)
		msg.Term()
		return
	}
	if b.Incarnation != n.inc || b.Node != n.o.Node {
		msg.Ack()
		return
	}
	// A batch of a life the master ended (it declared this worker dead while only
	// slow, then took its rejoin) can reach the worker after the rejoin: the
	// client had pulled it already. Its tasks were queued again and may be another
	// worker's now: dropped unfetched, nothing handed back.
	tasks := slices.DeleteFunc(slices.Clone(b.Tasks), func(t frontier.Task) bool { return n.lease.Stale(t.Lease) })
	n.carry(b.LastRequest) // before the tasks reach a lane
	// Under placeMu, so a release cannot come between the check and the placing
	// (release.go: tasks of a unit released since they were handed out go back).
	n.placeMu.Lock()
	tasks, back := n.unreleased(tasks)
	if len(tasks) > 0 {
		n.lanes.Place(tasks)
	}
	n.placeMu.Unlock()
	n.handBack(back)
	msg.Ack()
}

// carry gives the gate, by host, the end of the last request another worker made to
// it: a host that changed hands keeps its gap.
func (n *Node) carry(last map[string]time.Time) {
	for host, at := range last {
		n.lanes.Carry(host, at)
	}
}

// onControl carries out the master's requests: pause, resume, release hosts. One
// that comes while the worker is still starting waits until its lanes run.
func (n *Node) onControl(msg *nats.Msg) {
	select {
	case <-n.ready:
	case <-n.quit:
		return // closed: the master's request times out, as for any gone worker
	}
	var c wire.Control
	reply := wire.ControlReply{}
	if err := cluster.Decode(msg.Data, &c, wire.MaxMessage); err != nil {
		n.rejects.Add(cluster.Reason(err))
		reply.Error = err.Error()
	} else {
		var err error
		switch c.Op {
		case wire.OpPause, wire.OpResume: // this worker (the Nodes pane)
			n.setPaused(c.Seq, c.Op == wire.OpPause)
		case wire.OpCrawlPause, wire.OpCrawlResume: // the whole crawl (p on the master)
			n.setCrawlPaused(c.Seq, c.Op == wire.OpCrawlPause, false)
		case wire.OpSetLanes:
			err = n.setMaxLanes(c.Seq, c.N)
		case wire.OpRelease:
			reply.Tasks = n.release(&c)
		case wire.OpWithdraw: // sources the operator removed
			reply.Result = strconv.Itoa(n.lanes.Withdraw(c.Tasks))
		case wire.OpPauseHost, wire.OpDisableHost:
			reply.Result, err = n.hostControl(&c)
		case wire.OpRemoveEgress:
			kept := n.up.Ungranted(c.Host)
			reply.Result, err = control(n.lanes, &c)
			if kept && errors.Is(err, egress.ErrUnknownEgress) {
				err = nil // a late grant only, never in the rotation: forgotten above
			}
		default:
			reply.Result, err = control(n.lanes, &c)
		}
		if err != nil {
			reply.Error = err.Error()
		}
	}
	if data, err := cluster.Encode(&reply); err == nil {
		msg.Respond(data)
	}
}

// setMaxLanes applies the operator's lanes.max numbered seq, unless one numbered
// higher was applied already (a join's reply can come after a later control).
func (n *Node) setMaxLanes(seq uint64, max int) error {
	n.lanesMu.Lock()
	defer n.lanesMu.Unlock()
	if seq != 0 && seq < n.lanesSeq {
		return nil
	}
	if seq != 0 {
		n.lanesSeq = seq
	}
	return n.lanes.SetMaxLanes(max)
}

// joinLanesMax applies the lanes.max the operator set on the master before this
// worker joined (or while the master counted it dead).
func (n *Node) joinLanesMax(reply *wire.JoinReply) {
	if reply.LanesMax <= 0 {
		return
	}
	if err := n.setMaxLanes(reply.LanesSeq, reply.LanesMax); err != nil {
		n.lanes.Logf(view.LevelWarn, "lanes.max %d from the master: %v", reply.LanesMax, err)
	}
}

// setPaused records the worker's pause state numbered seq by the master (the
// operator's, on the Nodes pane), unless a later-numbered one was recorded already,
// and pauses the lanes while it or the crawl's pause holds. A join's reply is no
// exception: a control sent after it can be taken first, and a restarted master
// numbers from its start's wall clock, above its last life's numbers.
func (n *Node) setPaused(seq uint64, paused bool) {
	n.pauseMu.Lock()
	defer n.pauseMu.Unlock()
	n.mu.Lock()
	if seq != 0 && seq < n.nodeSeq {
		n.mu.Unlock()
		return
	}
	n.nodeSeq, n.nodePaused = seq, paused
	n.mu.Unlock()
	n.applyPause()
}

// setCrawlPaused records the crawl's pause state numbered seq by the master
// (wire.Control.Seq), unless a later-numbered one was recorded already: a heartbeat
// reply taken before a pause could otherwise undo it for a heartbeat period. A
// join's state is the new baseline (the master may have restarted).
func (n *Node) setCrawlPaused(seq uint64, paused, join bool) {
	n.pauseMu.Lock()
	defer n.pauseMu.Unlock()
	n.mu.Lock()
	if !join && seq != 0 && seq < n.crawlSeq {
		n.mu.Unlock()
		return
	}
	n.crawlSeq, n.crawlPaused = seq, paused
	n.mu.Unlock()
	n.applyPause()
}

// applyPause pauses the lanes while the worker's or the crawl's pause holds, and
// resumes them when neither does. Caller holds n.pauseMu (so two callers' decisions
// and lane calls cannot interleave).
func (n *Node) applyPause() {
	n.mu.Lock()
	on := n.nodePaused || n.crawlPaused
	n.mu.Unlock()
	was := n.lanes.Paused()
	switch {
	case on && !was:
		n.lanes.Pause()
	case !on && was:
		n.lanes.Resume()
	}
}
