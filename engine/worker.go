package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/master"
	"github.com/crawlconsole/crawlconsole/engine/worker"
	"github.com/crawlconsole/crawlconsole/store"
)

// Worker is a running worker. Leave ends it gracefully; Close ends it at once (the
// master reassigns what it held after the heartbeat timeout).
type Worker struct {
	e    *Engine
	o    WorkerOptions
	inc  string
	nc   *nats.Conn
	conn *cluster.Conn
	sub  wire.Subjects

	hbEvery time.Duration
	cons    jetstream.ConsumeContext
	ctlSub  *nats.Subscription
	ready   chan struct{}    // closed once the engine runs: control requests wait for it
	box     *worker.Outbox   // results and deferrals to the master
	up      *worker.Upstream // join, heartbeat, claim and leave requests
	lease   *worker.Lease    // its hold on the hosts the master dealt it
	// beats is held by a test to silence the heartbeats (a worker paused or cut
	// off, as the master sees it).
	beats   sync.Mutex
	quit    chan struct{}
	bg      sync.WaitGroup
	rejects cluster.Rejects
	// ctx ends with Close: the worker's requests and publishes to the master
	// stop waiting then.
	ctx    context.Context
	cancel context.CancelFunc

	mu          sync.Mutex
	nodePaused  bool       // the operator paused this worker
	crawlPaused bool       // the operator paused the whole crawl
	crawlSeq    uint64     // the master's number of the crawl pause state recorded (wire.Control.Seq)
	pauseMu     sync.Mutex // serialises pause decisions with the engine calls that apply them
	closed      bool
	// handedBack are the tasks releases took off the board, sent again with each
	// heartbeat until a reply confirms the master has them (wire.Heartbeat.HandedBack).
	handedBack []frontier.Task
	reach      masterReach // whether the master answers the heartbeats (worker_reach.go)
}

// handBackPerBeat caps the hand-backs one heartbeat carries (a release gives back at
// most the master's window, 512 by default); the rest go with the next ones.
const handBackPerBeat = 512

// StartWorker joins the master and starts fetching what it hands out.
func StartWorker(o WorkerOptions) (*Worker, error) {
	o, err := o.WithDefaults()
	if err != nil {
		return nil, err
	}
	if _, err := egress.ParseSpecs(o.Egress); err != nil {
		return nil, err
	}
	var b [8]byte
	rand.Read(b[:])
	w := &Worker{o: o, inc: hex.EncodeToString(b[:]), nc: o.Conn.NC, conn: o.Conn, sub: wire.Subjects(o.Prefix),
		quit:  make(chan struct{}),
		ready: make(chan struct{})}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.box = worker.NewOutbox(w.ctx, w.quit, o.Conn, w.sub, o.Node, w.inc)
	w.up = worker.NewUpstream(w.ctx, w.quit, o, w.inc)
	w.lease = worker.NewLease(nil)
	// The control subject is live before the join: the master counts this worker
	// joined as soon as it answers the join, and may send it a control at once (the
	// operator's pause, a release); a subscription made after the join was not yet
	// known to the server then, and such a request failed with "no responders".
	// Requests wait in onControl until the engine runs.
	if err := w.subscribeControl(); err != nil {
		return nil, err
	}
	sent := time.Now() // the lease counts from before the first try (the safe side)
	reply, err := w.up.Join(nil)
	if err != nil {
		w.Close()
		return nil, err
	}
	w.lease.Grant(sent, reply.Lease)
	var opts Options
	opts, w.hbEvery = worker.Options(reply.Settings, o)
	granted := worker.Egresses(o, reply.Egress)
	e, err := newEngine(opts, workerRole{&workerEgress{granted: granted, claim: w.up.Claim}})
	if err != nil {
		w.Close()
		return nil, err
	}
	e.front = &remoteFront{w: w}
	e.run.Lease = w.lease.Wait
	w.e = e
	if err := e.Start(); err != nil {
		w.Close()
		return nil, err
	}
	w.setCrawlPaused(reply.PauseSeq, reply.Paused, true)
	close(w.ready) // after the join reply's pause: a control sent since is newer
	if err := w.consumeTasks(); err != nil {
		w.Close()
		return nil, err
	}
	w.bg.Add(2)
	go func() {
		defer w.bg.Done()
		w.box.Run()
	}()
	go w.heartbeat()
	e.logf(LevelInfo, 0, "", "worker %s joined the master (%d egresses granted)", o.Node, len(granted))
	return w, nil
}

// workerRole is a worker's part of a crawl (role): the lanes, with the egresses its
// master granted, and no store (its front is the master).
type workerRole struct{ we *workerEgress }

func (workerRole) name() string                            { return RoleWorker }
func (workerRole) openStore(Options) (*store.Store, error) { return nil, nil }
func (workerRole) ssrfFix() string {
	return "start this worker with --allow-private %s (every worker that may fetch it needs it)"
}
func (r workerRole) equip(e *Engine) error           { return e.equipLanes(r.we) }
func (workerRole) started(*Engine)                   {}              // nothing resumed: the queue is the master's
func (workerRole) waitsWhenDry(*Options) bool        { return true } // the master decides the end
func (workerRole) telemetry(e *Engine, t *Telemetry) { e.laneTelemetry(t) }

// Engine is the worker's lane half, for a local console or tests (Snapshot).
func (w *Worker) Engine() *Engine { return w.e }

// Name is the worker's name.
func (w *Worker) Name() string { return w.o.Node }

// subscribeControl listens to the master's control requests and makes sure the
// server knows the subscription (a flush: PING/PONG after the SUB) before the join
// tells the master about this worker.
func (w *Worker) subscribeControl() error {
	sub, err := w.nc.Subscribe(w.sub.Control(w.o.Node), w.onControl)
	if err != nil {
		return fmt.Errorf("worker: subscribe to control requests: %w", err)
	}
	w.ctlSub = sub
	if err := w.nc.FlushTimeout(w.o.JoinTimeout); err != nil {
		sub.Unsubscribe()
		return fmt.Errorf("worker: subscribe to control requests: %w", err)
	}
	return nil
}

// consumeTasks (re)creates the worker's durable consumer and consumes from it. A
// master that restarted has a new task stream (batches live in memory storage), so a
// rejoin consumes anew.
func (w *Worker) consumeTasks() error {
	ctx, cancel := context.WithTimeout(w.ctx, 10*time.Second)
	defer cancel()
	cons, err := w.conn.EnsureConsumer(ctx, w.sub.TaskStream(), jetstream.ConsumerConfig{
		Durable: "task_" + w.o.Node, FilterSubject: w.sub.Tasks(w.o.Node),
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second, MaxDeliver: -1,
	})
	if err != nil {
		return err
	}
	cc, err := cons.Consume(w.onTasks)
	if err != nil {
		return fmt.Errorf("worker: consume tasks: %w", err)
	}
	w.mu.Lock()
	old := w.cons
	w.cons = cc
	w.mu.Unlock()
	if old != nil {
		old.Stop()
	}
	return nil
}

// stopTasks stops taking task batches.
func (w *Worker) stopTasks() {
	w.mu.Lock()
	cc := w.cons
	w.mu.Unlock()
	if cc != nil {
		cc.Stop()
	}
}

// onTasks places a batch of tasks on the lane board (M1) and acknowledges it. A batch
// for an earlier incarnation of this name went to others when it died: dropped.
func (w *Worker) onTasks(msg jetstream.Msg) {
	var b wire.Tasks
	if err := cluster.Decode(msg.Data(), &b, 0); err != nil {
		w.rejects.Add(cluster.Reason(err))
		w.e.logf(LevelWarn, 0, "", "task batch rejected: %v", err)
		msg.Term()
		return
	}
	if b.Incarnation != w.inc || b.Node != w.o.Node {
		msg.Ack()
		return
	}
	e := w.e
	w.carry(b.LastRequest) // before the tasks reach a lane
	e.mu.Lock()
	for _, t := range b.Tasks {
		e.place(t)
	}
	e.mu.Unlock()
	e.flushDeferred()
	msg.Ack()
}

// carry gives the gate, by host, the end of the last request another worker made to
// it: a host that changed hands keeps its gap.
func (w *Worker) carry(last map[string]time.Time) {
	if g := w.e.run.Gate; g != nil {
		for host, at := range last {
			g.Carry(host, at)
		}
	}
}

// onControl carries out the master's requests: pause, resume, release hosts. One
// that comes while the worker is still starting waits until its engine runs.
func (w *Worker) onControl(msg *nats.Msg) {
	select {
	case <-w.ready:
	case <-w.quit:
		return // closed: the master's request times out, as for any gone worker
	}
	var c wire.Control
	reply := wire.ControlReply{}
	if err := cluster.Decode(msg.Data, &c, wire.MaxMessage); err != nil {
		w.rejects.Add(cluster.Reason(err))
		reply.Error = err.Error()
	} else {
		var err error
		e := w.e
		switch c.Op {
		case wire.OpPause, wire.OpResume: // this worker (the Nodes pane)
			w.setPaused(c.Op == wire.OpPause)
		case wire.OpCrawlPause, wire.OpCrawlResume: // the whole crawl (p on the master)
			w.setCrawlPaused(c.Seq, c.Op == wire.OpCrawlPause, false)
		case wire.OpRelease:
			reply.Tasks = w.release(c.Hosts, c.Units)
			w.mu.Lock()
			w.handedBack = append(w.handedBack, reply.Tasks...)
			w.mu.Unlock()
		case wire.OpWithdraw: // sources the operator removed (withdrawals.go)
			reply.Result = strconv.Itoa(w.withdraw(c.Tasks))
		case wire.OpPauseLane:
			err = e.PauseLane(c.Lane, c.Paused)
		case wire.OpRotateLane:
			reply.Result, err = e.RotateLane(c.Lane)
		case wire.OpPauseHost:
			err = e.PauseHost(c.Host, c.Paused)
		case wire.OpDisableHost:
			err = e.SetHostDisabled(c.Host, c.Paused)
		case wire.OpRemoveEgress:
			err = e.RemoveEgress(c.Host)
		case wire.OpSetLanes:
			err = e.SetMaxLanes(c.N)
		case wire.OpFlushDNS:
			var n int
			n, err = e.FlushDNS(c.Domain)
			reply.Result = strconv.Itoa(n)
		}
		if err != nil {
			reply.Error = err.Error()
		}
	}
	if data, err := cluster.Encode(&reply); err == nil {
		msg.Respond(data)
	}
}

// release hands back the queued tasks of hosts moving to another worker; tasks in
// hand finish here and report as results.
func (w *Worker) release(hosts, units []string) []frontier.Task {
	moving := make(map[string]bool, len(units))
	for _, u := range units {
		moving[u] = true
	}
	e := w.e
	e.mu.Lock()
	defer e.mu.Unlock()
	var out, stay []frontier.Task
	for _, h := range hosts {
		for _, t := range e.offBoard(e.board.DropHost(h)) {
			if len(units) == 0 || moving[master.UnitOf(t)] {
				out = append(out, t)
			} else {
				stay = append(stay, t) // another unit's task on a shared host (a social site's keyword shards)
			}
		}
	}
	for _, t := range stay {
		e.place(t)
	}
	return out
}

// setPaused records a pause of the worker (the operator's, on the Nodes pane) and
// pauses the lanes while it or the crawl's pause holds.
func (w *Worker) setPaused(paused bool) {
	w.pauseMu.Lock()
	defer w.pauseMu.Unlock()
	w.mu.Lock()
	w.nodePaused = paused
	w.mu.Unlock()
	w.applyPause()
}

// setCrawlPaused records the crawl's pause state numbered seq by the master
// (wire.Control.Seq), unless a later-numbered one was recorded already: a heartbeat
// reply taken before a pause could otherwise undo it for a heartbeat period. A
// join's state is the new baseline (the master may have restarted).
func (w *Worker) setCrawlPaused(seq uint64, paused, join bool) {
	w.pauseMu.Lock()
	defer w.pauseMu.Unlock()
	w.mu.Lock()
	if !join && seq != 0 && seq < w.crawlSeq {
		w.mu.Unlock()
		return
	}
	w.crawlSeq, w.crawlPaused = seq, paused
	w.mu.Unlock()
	w.applyPause()
}

// applyPause pauses the lanes while the worker's or the crawl's pause holds, and
// resumes them when neither does. Caller holds w.pauseMu (so two callers' decisions
// and engine calls cannot interleave).
func (w *Worker) applyPause() {
	w.mu.Lock()
	on := w.nodePaused || w.crawlPaused
	w.mu.Unlock()
	w.e.mu.Lock()
	was := w.e.paused
	w.e.mu.Unlock()
	switch {
	case on && !was:
		w.e.Pause()
	case !on && was:
		w.e.Resume()
	}
}

// heartbeat tells the master the worker is alive (seed 003), with its figures; a
// master that does not know it (it restarted) gets a new join.
func (w *Worker) heartbeat() {
	defer w.bg.Done()
	t := time.NewTicker(w.hbEvery)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-t.C:
		}
		s := w.e.Snapshot()
		hb := wire.Heartbeat{Lanes: s.LanesBusy, LanesMax: s.LanesMax,
			Queue: s.QueueDepth, PagesPerSec: s.PagesPerSec, Egresses: s.Egresses, Rows: s.Lanes,
			Refused: s.Totals.Refused, Egress: s.Egress, DNS: s.DNS}
		w.mu.Lock()
		hb.Paused = w.nodePaused
		hb.HandedBack = slices.Clone(w.handedBack[:min(len(w.handedBack), handBackPerBeat)])
		w.mu.Unlock()
		w.beats.Lock()
		sent := time.Now()
		r, err := w.up.Heartbeat(hb, w.hbEvery)
		w.beats.Unlock()
		if err != nil {
			w.reach.miss(w.e, err, sent)
			continue // the master is away; results and hand-backs wait (and requests, once the lease ends)
		}
		w.reach.answer(w.e, time.Now())
		if r.Known {
			w.lease.Grant(sent, r.Lease)
		}
		w.mu.Lock()
		if r.Known {
			w.handedBack = w.handedBack[len(hb.HandedBack):] // the master has them
		} else {
			w.handedBack = nil // the master queued again all it had handed to this worker
		}
		w.mu.Unlock()
		w.setCrawlPaused(r.PauseSeq, r.Paused, false)
		if !r.Known {
			w.rejoin()
		}
	}
}

// rejoin joins a master that restarted (or declared this worker dead), claiming
// what the worker still holds, queued on its board or in a lane's hand: the master
// takes back what no other worker holds (the rest it queued again, or gave to
// another worker). The worker goes on with what was taken back, on the lease the
// join grants, and drops the rest unfetched: from the board now, from a lane's hand
// when the lane gets to it (Lease.Wait answers ErrLeaseLost).
func (w *Worker) rejoin() {
	e := w.e
	// Reports not acknowledged first: fetched already, a claim keeps them from
	// being queued again while they wait to go out (the master restarted).
	holding := w.box.Unsettled()
	reported := len(holding)
	e.mu.Lock()
	holding = append(append(holding, e.run.InHand()...), e.board.Tasks()...)
	e.mu.Unlock()
	claimed := make(map[uint64]bool, len(holding)) // in hand or on the board
	for _, t := range holding[reported:] {
		claimed[t.Lease] = true
	}
	if len(holding) > wire.MaxHolding {
		holding = holding[:wire.MaxHolding] // the reports' and the lanes' first; the others are dropped, the master queues them again
	}
	sent := time.Now()
	reply, err := w.up.Join(holding)
	if err != nil {
		e.logf(LevelWarn, 0, "", "rejoin: %v", err)
		return
	}
	kept := make(map[uint64]bool, len(reply.Kept))
	for _, l := range reply.Kept {
		kept[l] = true
	}
	var lost []uint64
	for l := range claimed {
		if !kept[l] {
			lost = append(lost, l)
		}
	}
	w.lease.Lose(lost)
	w.carry(reply.LastRequest)
	e.mu.Lock()
	e.offBoard(e.board.Withdraw(func(t frontier.Task) bool { return claimed[t.Lease] && !kept[t.Lease] }))
	e.mu.Unlock()
	w.lease.Grant(sent, reply.Lease)
	w.setCrawlPaused(reply.PauseSeq, reply.Paused, true)
	if err := w.consumeTasks(); err != nil {
		e.logf(LevelWarn, 0, "", "rejoin: %v", err)
	}
	e.logf(LevelWarn, 0, "", "rejoined: the master did not know this worker (restarted, or it declared it dead), so it joined again; "+
		"of %d tasks held and %d reports not yet acknowledged, %d taken back, %d dropped unfetched (the master queued them again or gave them to another worker)",
		len(claimed), reported, len(reply.Kept), len(lost))
}
