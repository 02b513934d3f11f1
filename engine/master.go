package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/master"
	"github.com/crawlconsole/crawlconsole/store"
)

// masterRuntime is the master's side of a distributed crawl: the transport to the
// workers over a master.Table, the bookkeeping of who holds what (guarded by
// Engine.mu: it is the frontier's queue on a master, where the lane board is on one
// box). It reads the workers' messages, asks the table, and does the talking and
// the storing.
type masterRuntime struct {
	e       *Engine
	o       MasterOptions
	conn    *cluster.Conn
	sub     wire.Subjects
	book    *master.Table
	link    *master.Link  // the workers' joins, heartbeats, leaves and controls
	accts   *egress.Table // the egress account table the book grants from
	subs    []*nats.Subscription
	consume jetstream.ConsumeContext
	results chan jetstream.Msg // from the consumer to the result handlers
}

// NewMaster builds the master of a distributed crawl: the frontier, dedupe and store
// of New, and no lanes of its own; workers join over mo.Conn.
func NewMaster(opts Options, mo MasterOptions) (*Engine, error) {
	mo, err := mo.WithDefaults(opts.Balance)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(opts, masterRole{})
	if err != nil {
		return nil, err
	}
	specs, err := egress.ParseSpecs(opts.Egress)
	if err != nil {
		e.Close()
		return nil, err
	}
	m := &masterRuntime{e: e, o: mo, conn: mo.Conn, sub: wire.Subjects(mo.Prefix)}
	// The account table (seed 003): workers are granted rotation.per_node egresses at
	// join and claim more when theirs are refused; `:egress add` adds to it.
	e.accounts = route.NewAccounts(e.st, func(msg string) { e.logf(LevelWarn, 0, "", "%s", msg) })
	if m.accts, err = egress.OpenTable(e.accounts, specs); err != nil {
		e.Close()
		return nil, err
	}
	// Leases start at the wall clock (not Options.Now: a fixed test clock would
	// repeat them), so a restarted master never reuses one: a worker's result
	// message ID holds its lease, and JetStream drops a repeated ID as a duplicate
	// (a new master counting from 1 lost results and hung).
	m.book = master.New(masterFront{e}, m.accts, uint64(time.Now().UnixNano()))
	m.book.LeaseFor = mo.Timeout
	// What the last life handed out waits for its holders' claims (master/lease.go).
	var held []frontier.Task
	for _, r := range e.st.InProgress() {
		held = append(held, taskOf(r))
	}
	m.book.Recover(held)
	// A master with workers ran on this database before: its workers may have
	// requested any host until it died, so the hosts' gaps count from now (the
	// wall clock, as the workers' gates count).
	if nodes, err := e.st.GetMeta(master.NodesMetaKey); len(held) > 0 || err == nil && len(nodes) > len("null") {
		m.book.Restarted(time.Now())
	}
	if b, err := e.st.GetMeta(master.CostsMetaKey); err == nil {
		m.book.LoadCosts(b)
	}
	m.link = master.NewLink(e.ctx, masterHost{m}, mo, opts.Balance, opts.Rotation.PerNode, m.book, m.accts)
	if mo.Join != "" {
		// The log's first line says how to add workers: the console may start
		// before any joins, and the line printed before the screen took over is gone.
		e.logf(LevelInfo, 0, "", "workers join with: %s", mo.Join)
	}
	e.crew = m
	return e, nil
}

// masterRole is the master's part of a crawl (role): the front and its store, and
// no lanes of its own.
type masterRole struct{}

func (masterRole) name() string                              { return RoleMaster }
func (masterRole) openStore(o Options) (*store.Store, error) { return openStore(o) }
func (masterRole) ssrfFix() string                           { return localRole{}.ssrfFix() }
func (masterRole) waitsWhenDry(o *Options) bool              { return o.Revisit.Enabled }
func (masterRole) telemetry(e *Engine, t *Telemetry)         { e.storeTelemetry(t) }

// started leaves the resumed URLs unannounced: they wait for their holders' claims
// (grace), which says what came back.
func (masterRole) started(*Engine) {}

// equip gives the master a board with no egress: the workers resolve, fetch and
// rotate egresses.
func (masterRole) equip(e *Engine) error {
	e.board = lanes.NewBoard(e.opts.Lanes.Max, nil)
	e.run.Board = e.board
	return nil
}

// The master's crew is its workers (crew): a placed task goes to its unit's worker,
// with the marks it carries.

func (m *masterRuntime) place(t frontier.Task)      { m.e.boardAdd(t) }
func (m *masterRuntime) queue(t frontier.Task)      { m.book.Add(t) }
func (m *masterRuntime) counts() (waiting, out int) { return m.book.Counts() }
func (m *masterRuntime) placesEarly() bool          { return false }
func (m *masterRuntime) lanesPeak() int             { return max(m.e.board.Peak(), m.book.LanesPeak()) }

// busyState is DRAINING once the master has nothing left to hand out: its workers
// finish what they hold. Caller holds e.mu.
func (m *masterRuntime) busyState() State {
	e := m.e
	if e.queuedLen() == 0 && e.q.spillFrom == 0 && e.outstanding == 0 {
		return StateDraining
	}
	return StateRunning
}

// show adds the workers to a snapshot: the Nodes pane, their lanes, the tasks
// waiting at the master and handed out. Caller holds e.mu.
func (m *masterRuntime) show(s *Snapshot) {
	pending, out := m.book.Counts()
	s.QueueDepth += pending + out
	var rows []Lane
	s.Nodes, rows = m.book.View()
	s.HeartbeatEvery = m.o.HeartbeatEvery
	s.Join = m.o.Join
	s.LanesMax = 0
	for _, n := range s.Nodes {
		if n.State != NodeDead && n.State != NodeLeft {
			s.LanesMax += n.LanesMax
		}
	}
	s.LanesBusy += len(rows)
	s.Lanes = append(s.Lanes, rows...)
}

// panes are the workers' Egress and DNS panes added up, and the refusals their
// rotations rerouted. Caller holds e.mu.
func (m *masterRuntime) panes(now time.Time) crewPanes {
	return crewPanes{egress: m.book.EgressView(now), dns: m.book.DNSView(now), refused: m.book.WorkerRefusals()}
}

// pausedChanged sends the crawl's pause state to every worker; a resume dispatches.
func (m *masterRuntime) pausedChanged() {
	m.link.BroadcastPause()
	m.book.Kick()
}

// The operator's controls go to the workers over the link.

func (m *masterRuntime) pauseLane(id int, paused bool) error { return m.link.PauseLane(id, paused) }
func (m *masterRuntime) pauseHost(host string, paused bool) error {
	return m.link.PauseHost(host, paused)
}
func (m *masterRuntime) setMaxLanes(n int) error              { return m.link.SetMaxLanes(n) }
func (m *masterRuntime) planRebalance() RebalancePlan         { return m.link.PlanRebalance() }
func (m *masterRuntime) applyRebalance(p RebalancePlan) error { return m.link.ApplyRebalance(p) }
func (m *masterRuntime) pauseNode(name string, paused bool) error {
	return m.link.PauseNode(name, paused)
}
func (m *masterRuntime) clusterStats() *ClusterStats       { return m.link.ClusterStats() }
func (m *masterRuntime) rotateLane(id int) (string, error) { return m.link.RotateLane(id) }
func (m *masterRuntime) removeEgress(name string) error    { return m.link.RemoveEgress(name) }

// addEgress adds an egress to the master's account table, checked as on one box.
func (m *masterRuntime) addEgress(spec string) (string, error) {
	if err := m.e.checkSessionEgress(spec); err != nil {
		return "", err
	}
	return m.link.AddEgress(spec)
}

// flushDNS empties the workers' DNS caches (M4: every worker has its own).
func (m *masterRuntime) flushDNS(domain string) (int, error) {
	return m.link.EveryWorker(&wire.Control{Op: wire.OpFlushDNS, Domain: domain})
}

func (m *masterRuntime) setHostDisabled(host string, disabled bool) error {
	return m.link.HostControl(wire.OpDisableHost, host, disabled)
}

// masterHost is the engine as the master's link sees it (master.Host).
type masterHost struct{ m *masterRuntime }

func (h masterHost) Lock()          { h.m.e.mu.Lock() }
func (h masterHost) Unlock()        { h.m.e.mu.Unlock() }
func (h masterHost) Now() time.Time { return h.m.e.now() }
func (h masterHost) Paused() bool   { return h.m.e.paused }
func (h masterHost) Logf(level Level, format string, args ...any) {
	h.m.e.logf(level, 0, "", format, args...)
}
func (h masterHost) Settings() wire.Settings         { return h.m.e.workerSettings(h.m.o.HeartbeatEvery) }
func (h masterHost) SetMeta(key string, data []byte) { h.m.e.st.SetMeta(key, data) }

// workerSettings are the crawl settings a worker follows.
func (e *Engine) workerSettings(hb time.Duration) WorkerSettings {
	o := e.opts
	return WorkerSettings{Lanes: o.Lanes, HostRate: o.HostRate, Politeness: &o.Politeness, Cookies: &o.Cookies, Robots: o.Robots, UserAgent: o.UserAgent,
		Fetch: o.Fetch, DNS: o.DNS, DNSServers: o.DNSServers, Rotation: o.Rotation, HeartbeatEvery: hb,
		Etiquette: &o.Etiquette}
}

// masterFront is the front as the master's table sees it (master.Front): a revisit's
// mark follows its task to a worker and back; a task withdrawn while a worker held
// it ends instead of coming back. Called with e.mu held.
type masterFront struct{ e *Engine }

func (f masterFront) HandedOut(t frontier.Task) { f.e.rv.taken(t.URL) }

// Fetched counts against the budgets a page the master's last life handed out
// (counted then, by a ledger gone with it).
func (f masterFront) Fetched(t frontier.Task) {
	if f.e.budget.Active() {
		f.e.budget.Count(t)
	}
}

func (f masterFront) HandedBack(t frontier.Task) bool {
	if t.Budgeted {
		f.e.budget.Unadmit(t) // not fetched: counted again when next handed out
	}
	f.e.rv.handedBack(t.URL)
	if f.e.withdrawn(t) {
		f.e.rv.leftQueue(t.URL) // before setOut drops the mark
		f.e.setOut(t)
		return false
	}
	return true
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
		st, err := m.conn.EnsureStream(ctx, jetstream.StreamConfig{
			Name: s.name, Subjects: []string{s.subjects},
			Retention: jetstream.WorkQueuePolicy, Storage: s.storage,
		})
		if err != nil {
			return err
		}
		// Batches a last life sent that no worker took are dropped (a NATS server
		// that outlived the master keeps them): their URLs are in limbo until their
		// holders claim them, and a worker that took one now would fetch it
		// unclaimed while the master queues it again.
		if s.storage == jetstream.MemoryStorage {
			if err := st.Purge(ctx); err != nil {
				return fmt.Errorf("master: purge the last run's task batches: %w", err)
			}
		}
	}
	// Results a last life was handed and never acknowledged (it died committing
	// them) would come again only after the consumer's AckWait, a minute: long past
	// the grace period, their URLs queued and fetched again meanwhile. A new
	// consumer gets every unacknowledged result at once (the stream keeps them until
	// acknowledged).
	if err := m.conn.JS.DeleteConsumer(ctx, m.sub.ResultStream(), "master"); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("master: reset the results consumer: %w", err)
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
		m.sub.Join(): m.link.OnJoin, m.sub.Heartbeat("*"): m.link.OnHeartbeat, m.sub.Leave(): m.link.OnLeave,
		m.sub.Claim(): m.link.OnClaim,
	} {
		sub, err := m.conn.NC.Subscribe(subj, h)
		if err != nil {
			return fmt.Errorf("master: subscribe %s: %w", subj, err)
		}
		m.subs = append(m.subs, sub)
	}
	if n := m.book.Limbo(); n > 0 {
		m.e.wg.Add(1)
		go m.grace(n)
	}
	m.e.wg.Add(3)
	go m.dispatchLoop()
	go func() {
		defer m.e.wg.Done()
		m.e.every(m.o.BalanceEvery, m.link.BalanceDaily)
	}()
	go func() {
		defer m.e.wg.Done()
		m.e.every(m.o.HeartbeatEvery/2, m.link.CheckNodes)
	}()
	return nil
}

// grace waits for the workers to claim the n URLs the master's last life had
// handed out, for as long as a lease it granted may run (its timeout and margin,
// from this start), then queues again what nobody claimed.
func (m *masterRuntime) grace(n int) {
	defer m.e.wg.Done()
	d := m.o.Timeout + m.link.LeaseMargin()
	m.e.logf(LevelInfo, 0, "", "restarted with %d URLs handed out by the last run: waiting %v for the workers to claim them or report them done", n, d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-m.e.ctx.Done():
		return
	}
	m.e.mu.Lock()
	again := m.book.EndGrace()
	m.e.checkIdle()
	m.e.mu.Unlock()
	m.e.logf(LevelInfo, 0, "", "grace period over: %d of the %d URLs handed out by the last run claimed or reported by no worker, queued again", again, n)
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
	m.link.SaveNodes()
	m.link.SaveCosts()
	m.e.mu.Unlock()
}

// dispatchLoop hands waiting tasks to their units' workers whenever something
// changed (a task queued, a result in, a worker joined), and twice a heartbeat.
func (m *masterRuntime) dispatchLoop() {
	defer m.e.wg.Done()
	t := time.NewTicker(m.o.HeartbeatEvery / 2)
	defer t.Stop()
	for {
		select {
		case <-m.e.ctx.Done():
			return
		case <-m.book.Kicked():
		case <-t.C:
		}
		m.dispatch()
	}
}

// dispatch sends each live, unpaused worker tasks of its units up to its window,
// marked in progress in the store (a refetch with its validators, M2).
func (m *masterRuntime) dispatch() {
	e := m.e
	e.mu.Lock()
	if e.paused || e.state != StateRunning {
		e.mu.Unlock()
		return
	}
	out := m.book.Dispatch(m.o.Window)
	e.mu.Unlock()
	for _, b := range out {
		for i := range b.Tasks {
			t := &b.Tasks[i]
			if prev, _ := e.revisitState(*t); prev != nil { // M2: a refetch, conditional
				e.setValidators(t)
			} else if e.variants.StandsFor(t.URL) {
				t.Stood = true // the worker ends it unsent (localFront.prepare)
			}
			e.st.SetState(t.URL, store.InProgress, 0, "")
		}
		data, err := cluster.Encode(&wire.Tasks{Node: b.Node, Incarnation: b.Incarnation, Tasks: b.Tasks, LastRequest: b.LastRequest})
		if err == nil {
			ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
			_, err = m.conn.JS.Publish(ctx, m.sub.Tasks(b.Node), data)
			cancel()
		}
		if err != nil && e.ctx.Err() == nil {
			// Not handed out after all: the tasks wait for the next dispatch.
			e.logf(LevelWarn, 0, "", "tasks for %s not sent: %v", b.Node, err)
			e.mu.Lock()
			m.book.Undo(b)
			e.mu.Unlock()
		}
	}
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
	revisit, ok := m.settle(msg, r.Node, r.Task, true)
	if !ok {
		return
	}
	if r.Res != nil {
		// Seed 003's cost table: the time a lane spent on the page, its fetch and the
		// mean pause that follows it (politeness, not the fetch, is most of a site's
		// crawl time; fetch times alone on a fast network are mostly noise).
		m.book.AddCost(master.UnitOf(r.Task), r.Res.Duration+(e.opts.Lanes.DelayMin+e.opts.Lanes.DelayMax)/2)
		m.book.Ended(r.Task, r.At)      // the host's next holder counts its gap from here
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
		p := prior{}
		p.page, p.track = e.revisitStateOf(o.Task, revisit)
		o.Note = p
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
	if _, ok := m.settle(msg, d.Node, d.Task, false); !ok {
		return
	}
	m.e.mu.Unlock()
	m.e.st.Defer(d.Task.URL, d.Until)
	m.e.c.Deferred.Add(1)
	m.committed(msg)
}

// reject counts and drops a report that cannot be read.
func (m *masterRuntime) reject(msg jetstream.Msg, what string, err error) {
	m.link.Rejects().Add(cluster.Reason(err))
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

// settle ends the hand-out of t that node reported on (a result, or a deferral):
// with ok it returns holding e.mu, and whether t was a revisit; without, the report
// was acknowledged (late) or refused (stopping), and e.mu is not held.
func (m *masterRuntime) settle(msg jetstream.Msg, node string, t frontier.Task, result bool) (revisit, ok bool) {
	e := m.e
	e.mu.Lock()
	if e.ctx.Err() != nil {
		e.mu.Unlock()
		msg.Nak() // stopping: the next master commits it
		return false, false
	}
	if !m.book.Settle(node, t, result) {
		e.mu.Unlock()
		msg.Ack() // late: each hand-out counts at most once, and only the current one
		return false, false
	}
	return e.rv.ended(t.URL), true
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
	m.book.Kick()
}

// outcomeOf is a worker's result as the recording side takes it.
func outcomeOf(r *wire.Result) Outcome {
	return Outcome{Task: r.Task, Lane: r.Lane, Egress: r.Egress, Node: r.Node, Kind: r.Kind, Res: r.Res, Hops: r.Hops, At: r.At}
}
