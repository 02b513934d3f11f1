package master

import (
	"context"
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
	"github.com/crawlconsole/crawlconsole/engine/holds"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Crawl is the crawl around a master's Runtime: the Host its link talks through,
// the Front its table tells as tasks move, and the store-side steps of a hand-out
// and of a report (the engine's front implements it). Methods marked so are called
// with the lock held; the others without it.
type Crawl interface {
	Host
	Front
	// Go runs f among the crawl's goroutines: the crawl's stop waits for it.
	Go(f func())
	// Dispatching tells whether tasks may be handed out now: the crawl runs and
	// the operator has not paused it. Caller holds the lock.
	Dispatching() bool
	// CheckIdle lets the crawl end if nothing is left. Caller holds the lock.
	CheckIdle()
	// Prepare readies a task for its worker: in progress in the store, a refetch
	// with its validators, a canonical's variant marked Stood (ended unsent).
	Prepare(t *frontier.Task)
	// RevisitEnded drops the revisit mark of a URL whose hand-out was reported and
	// tells whether it was a revisit. Caller holds the lock.
	RevisitEnded(url string) bool
	// RevisitDeferred: the hand-out of url was reported deferred (the worker set
	// it aside: a host disabled, a long Retry-After). A revisit stays one: out of
	// hand, marked until the store queues the URL again. Caller holds the lock.
	RevisitDeferred(url string)
	// Commit records a worker's result in the store: a fetch, or a task it
	// withdrew from its board; revisit says whether it was a revisit.
	Commit(r *wire.Result, revisit bool)
	// Defer sets a URL aside until a time (the store queues it again then),
	// counted under kind (robots_unreachable; empty: none), behind the held host
	// behind its site's robots.txt redirects to ("": none).
	Defer(url string, until time.Time, kind, behind string)
	// Undefer makes deferred URLs due now (a host enabled again).
	Undefer(urls []string)
	// Refused keeps a refusal a worker reported.
	Refused(r store.Refusal)
	// FetchCost adds a page's fetch time to the crawl's access-time estimate.
	FetchCost(d time.Duration)
	// CheckEgress refuses an egress spec typed in a console session that the
	// crawl would refuse on one box.
	CheckEgress(spec string) error
}

// Setup is what a Runtime starts from besides its options: what the store kept of
// the master's last life, and the crawl's settings it deals with.
type Setup struct {
	// Accounts is the egress account table workers are granted from.
	Accounts *egress.Table
	// Held are the tasks the last life handed out (in progress in the store):
	// they wait for their holders' claims (lease.go).
	Held []frontier.Task
	// Restarted: a master with workers ran on this database before, so every
	// host's gap counts from this start.
	Restarted bool
	// Nodes are the workers the last life knew live (LiveNodes of its saved node
	// table): the grace period ends once each has rejoined. nil: it waits its
	// full length.
	Nodes []string
	// Costs is the cost table the last life kept (nil: none).
	Costs []byte
	// Balance and PerNode are the crawl's balancing options and the egresses each
	// worker is granted at join (rotation.per_node).
	Balance config.BalanceOptions
	PerNode int
	// Pause is a lane's mean pause after a fetch (lanes.delay_min..delay_max): with
	// the fetch time, a page's cost in seed 003's cost table.
	Pause time.Duration
}

// Runtime is the master's side of a distributed crawl: its Table of who holds what
// (guarded by the crawl's lock: it is the frontier's queue on a master, where the
// lane board is on one box), its Link to the workers, and the transport under them.
// It hands batches out, commits the workers' results and deferrals through its
// Crawl, and carries out the operator's controls over the workers.
type Runtime struct {
	crawl   Crawl
	ctx     context.Context // ends with the crawl
	o       config.MasterOptions
	pause   time.Duration
	conn    *cluster.Conn
	sub     wire.Subjects
	book    *Table
	link    *Link         // the workers' joins, heartbeats, leaves and controls
	accts   *egress.Table // the egress account table the book grants from
	subs    []*nats.Subscription
	consume jetstream.ConsumeContext
	results chan jetstream.Msg // from the consumer to the result handlers
	// backlogWait is how long the grace period's end waits for the results
	// stream's reading to progress before it gives up on it; zero: the grace
	// period's own length.
	backlogWait time.Duration
	// streamState, when set, reads the results stream's state in place of the
	// stream itself (a test's failing read).
	streamState func(context.Context) (jetstream.StreamState, error)
	// publish, when set, publishes a task batch in place of the stream's client
	// (a test's lost acknowledgement).
	publish func(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error)
	// publishBackoff is the first wait between a batch's publish tries, doubled at
	// each; zero: 100 ms (a test's shorter one, for tries it makes fail).
	publishBackoff time.Duration
	// sends counts the batches being published (dispatch does not wait for them).
	sends sync.WaitGroup
	// deferred are this run's URLs the workers deferred with no kind (a host
	// disabled, or asking to wait), by host, until their deferral's end: enabled
	// again, its URLs come back at once, as on one box. Guarded by the crawl's lock.
	deferred holds.Waiting
	// enabled is, by host, the last lease handed out when the operator last enabled
	// or resumed it (released): a hand-out up to it deferred was deferred for what
	// that ended, its report still on its way then. Guarded by the crawl's lock.
	enabled map[string]uint64
}

// NewRuntime builds a master over crawl with options o (defaults applied) from s;
// ctx ends with the crawl. Start begins listening to the workers.
func NewRuntime(ctx context.Context, crawl Crawl, o config.MasterOptions, s Setup) *Runtime {
	m := &Runtime{crawl: crawl, ctx: ctx, o: o, pause: s.Pause, conn: o.Conn, sub: wire.Subjects(o.Prefix), accts: s.Accounts}
	// Leases start at the wall clock (not the crawl's clock: a fixed test clock
	// would repeat them), so a restarted master never reuses one: a worker's result
	// message ID holds its lease, and JetStream drops a repeated ID as a duplicate
	// (a new master counting from 1 lost results and hung).
	m.book = New(crawl, s.Accounts, uint64(time.Now().UnixNano()))
	m.book.LeaseFor = o.Timeout
	m.book.Recover(s.Held) // they wait for their holders' claims (lease.go)
	m.book.Await(s.Nodes)
	if s.Restarted {
		// Its workers may have requested any host until it died, so the hosts' gaps
		// count from now (the wall clock, as the workers' gates count).
		m.book.Restarted(time.Now())
	}
	if s.Costs != nil {
		m.book.LoadCosts(s.Costs)
	}
	m.link = NewLink(ctx, crawl, o, s.Balance, s.PerNode, m.book, s.Accounts)
	return m
}

// Accounts is the egress account table the workers are granted from.
func (m *Runtime) Accounts() *egress.Table { return m.accts }

// Queue puts a task in line for its unit's worker, with the marks it carries.
// Caller holds the lock.
func (m *Runtime) Queue(t frontier.Task) { m.book.Add(t) }

// Counts are the tasks waiting at the master and those handed out. Caller holds the
// lock.
func (m *Runtime) Counts() (waiting, out int) { return m.book.Counts() }

// LanesPeak is the most lanes the live workers reported alive at once. Caller holds
// the lock.
func (m *Runtime) LanesPeak() int { return m.book.LanesPeak() }

// Show adds the workers to a snapshot: the Nodes pane, their lanes, the tasks
// waiting at the master and handed out. Caller holds the lock.
func (m *Runtime) Show(s *view.Snapshot) {
	pending, out := m.book.Counts()
	s.QueueDepth += pending + out
	var rows []view.Lane
	s.Nodes, rows = m.book.View()
	s.HeartbeatEvery = m.o.HeartbeatEvery
	s.Join = m.o.Join
	s.LanesMax = 0
	for _, n := range s.Nodes {
		if n.State != view.NodeDead && n.State != view.NodeLeft {
			s.LanesMax += n.LanesMax
		}
	}
	s.LanesBusy += len(rows)
	s.Lanes = append(s.Lanes, rows...)
}

// Panes are the workers' Egress and DNS panes added up, and the refusals their
// rotations rerouted. Caller holds the lock.
func (m *Runtime) Panes(now time.Time) (*view.EgressView, *view.DNSView, int64) {
	return m.book.EgressView(now), m.book.DNSView(now), m.book.WorkerRefusals()
}

// PausedChanged sends the crawl's pause state to every worker; a resume dispatches.
func (m *Runtime) PausedChanged() {
	m.link.BroadcastPause()
	m.book.Kick()
}

// Recall has the workers hand back what they hold of match and their lanes have not
// taken; it is counted again as it is dealt anew.
func (m *Runtime) Recall(match func(frontier.Task) bool) int {
	back := m.link.Recall(match)
	m.book.Kick()
	return back
}

// The operator's controls go to the workers over the link.

// PauseLane pauses or resumes a worker's lane by its console ID.
func (m *Runtime) PauseLane(id int, paused bool) error { return m.link.PauseLane(id, paused) }

// PauseHost holds or lets go the workers' requests to host; let go, the URLs they
// deferred behind it come back at once (released).
func (m *Runtime) PauseHost(host string, paused bool) error {
	err := m.link.PauseHost(host, paused)
	m.released(host, !paused)
	return err
}

// SetMaxLanes sets how many lanes each worker runs at most.
func (m *Runtime) SetMaxLanes(n int) error { return m.link.SetMaxLanes(n) }

// PlanRebalance plans a re-deal of the units over the workers by cost.
func (m *Runtime) PlanRebalance() view.RebalancePlan { return m.link.PlanRebalance() }

// ApplyRebalance carries out a plan over the workers.
func (m *Runtime) ApplyRebalance(p view.RebalancePlan) error { return m.link.ApplyRebalance(p) }

// PauseNode pauses or resumes one worker.
func (m *Runtime) PauseNode(name string, paused bool) error { return m.link.PauseNode(name, paused) }

// ClusterStats is the stats object's part on the workers.
func (m *Runtime) ClusterStats() *view.ClusterStats { return m.link.ClusterStats() }

// RotateLane moves a worker's lane to its next egress.
func (m *Runtime) RotateLane(id int) (string, error) { return m.link.RotateLane(id) }

// RemoveEgress takes an egress out of the account table and from its holder.
func (m *Runtime) RemoveEgress(name string) error { return m.link.RemoveEgress(name) }

// AddEgress adds an egress to the account table, checked as on one box.
func (m *Runtime) AddEgress(spec string) (string, error) {
	if err := m.crawl.CheckEgress(spec); err != nil {
		return "", err
	}
	return m.link.AddEgress(spec)
}

// FlushDNS empties the workers' DNS caches (M4: every worker has its own).
func (m *Runtime) FlushDNS(domain string) (int, error) {
	return m.link.EveryWorker(&wire.Control{Op: wire.OpFlushDNS, Domain: domain})
}

// SetHostDisabled puts host on the workers' host_disable_list, or takes it off
// and brings back at once the URLs they deferred for it (released).
func (m *Runtime) SetHostDisabled(host string, disabled bool) error {
	err := m.link.HostControl(wire.OpDisableHost, host, disabled, 0)
	m.released(host, !disabled)
	return err
}

// released notes the operator's hold on host set (lifted false) or lifted. Lifted, the
// URLs the workers deferred for it come back at once: its own (disabled), and
// those of the sites whose robots.txt redirects to it (paused or disabled: a
// worker defers them, out of its window, until robots.txt's first retry), and
// with them, as they come in, the deferrals of hand-outs from before the lift
// still on their way (onDeferral). A pause lifted is as an enable: else those
// sites would wait out etiquette.robots_retry, their Sites pane row saying they
// wait behind a host no longer held.
func (m *Runtime) released(host string, lifted bool) {
	m.crawl.Lock()
	if !lifted {
		delete(m.enabled, host)
		m.crawl.Unlock()
		return
	}
	if m.enabled == nil {
		m.enabled = map[string]uint64{}
	}
	m.enabled[host] = m.book.lease
	urls := m.deferred.Take(host)
	m.crawl.Unlock()
	m.crawl.Undefer(urls)
}

// PauseHostKept holds the workers' requests to host, paused on the master's last
// run, those joining later included.
func (m *Runtime) PauseHostKept(host string) error {
	m.link.host.Logf(view.LevelInfo, "host %s paused by operator (kept from the last run)", host)
	return m.link.HostControl(wire.OpPauseHost, host, true, 0)
}

// DisableHostKept puts host on the workers' host_disable_list for d, what is left
// of a disable the master's last run kept, those joining later included.
func (m *Runtime) DisableHostKept(host string, d time.Duration) error {
	m.link.host.Logf(view.LevelInfo, "host %s disabled by operator until %s (kept from the last run)", host, m.link.host.Now().Add(d).Format(time.TimeOnly))
	return m.link.HostControl(wire.OpDisableHost, host, true, d)
}

// Withdraw takes the tasks drop selects out of the units' queues at the master
// (they end as withdrawn: the caller ends them); held asks the workers to withdraw
// those they hold of them, all at once, and waits for their answers: once it
// returns, none of them is fetched but those already in a lane's hand, and each
// worker reports them as results of kind steered_out. held returns how many the
// workers withdrew. Caller holds the lock; held is called without it.
func (m *Runtime) Withdraw(drop func(frontier.Task) bool) (dropped []frontier.Task, held func() int) {
	dropped, byWorker := m.book.Withdraw(drop)
	return dropped, func() int {
		var wg sync.WaitGroup
		var mu sync.Mutex
		total := 0
		for name, tasks := range byWorker {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var reply wire.ControlReply
				if err := m.link.Control(name, &wire.Control{Op: wire.OpWithdraw, Tasks: tasks}, &reply); err != nil {
					m.crawl.Logf(view.LevelWarn, "worker %s: withdraw %d queued sources: %v (they may still be fetched)", name, len(tasks), err)
					return
				}
				k, _ := strconv.Atoi(reply.Result)
				mu.Lock()
				total += k
				mu.Unlock()
			}()
		}
		wg.Wait()
		return total
	}
}
