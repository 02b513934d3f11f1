package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/crew"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/master"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// NewMaster builds the master of a distributed crawl: the frontier, dedupe and store
// of New, and no lanes of its own; workers join over mo.Conn.
func NewMaster(opts config.Options, mo config.MasterOptions) (*Engine, error) {
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
	s := master.Setup{Balance: opts.Balance, PerNode: opts.Rotation.PerNode, Pause: (opts.Lanes.DelayMin + opts.Lanes.DelayMax) / 2}
	// The account table (seed 003): workers are granted rotation.per_node egresses at
	// join and claim more when theirs are refused; `:egress add` adds to it.
	e.accounts = route.NewAccounts(e.st, func(msg string) { e.logf(view.LevelWarn, 0, "", "%s", msg) })
	if s.Accounts, err = egress.OpenTable(e.accounts, specs); err != nil {
		e.Close()
		return nil, err
	}
	for _, r := range e.st.InProgress() {
		s.Held = append(s.Held, front.TaskOf(r))
	}
	// A master with workers ran on this database before: its workers may have
	// requested any host until it died.
	nodes, err := e.st.GetMeta(master.NodesMetaKey)
	s.Restarted = len(s.Held) > 0 || err == nil && len(nodes) > len("null")
	if b, err := e.st.GetMeta(master.CostsMetaKey); err == nil {
		s.Costs = b
	}
	e.crew = masterCrew{e, master.NewRuntime(e.ctx, masterPort{e, mo.HeartbeatEvery}, mo, s)}
	if mo.Join != "" {
		// The log's first line says how to add workers: the console may start
		// before any joins, and the line printed before the screen took over is gone.
		e.logf(view.LevelInfo, 0, "", "workers join with: %s", mo.Join)
	}
	return e, nil
}

// masterRole is the master's part of a crawl (role): the front and its store, and
// no lanes of its own.
type masterRole struct{}

func (masterRole) name() string                                     { return view.RoleMaster }
func (masterRole) openStore(o config.Options) (*store.Store, error) { return openStore(o) }
func (masterRole) ssrfFix() string                                  { return localRole{}.ssrfFix() }
func (masterRole) waitsWhenDry(o *config.Options) bool              { return o.Revisit.Enabled }
func (masterRole) telemetry(e *Engine, t *view.Telemetry)           { e.fr.Telemetry(t) }

// started leaves the resumed URLs unannounced: they wait for their holders' claims
// (grace), which says what came back.
func (masterRole) started(*Engine) {}

// equip gives the master a board with no egress: the workers resolve, fetch and
// rotate egresses.
func (masterRole) equip(e *Engine) error {
	e.lanes.EquipBoard()
	return nil
}

// masterCrew is a master's workers as its crew: a placed task goes to its unit's
// worker (master.Runtime), with the marks it carries.
type masterCrew struct {
	e *Engine
	*master.Runtime
}

var _ crew.Crew = masterCrew{}

func (c masterCrew) Place(t frontier.Task)      { c.Queue(c.e.fr.Placing(t)) }
func (c masterCrew) PlacesEarly() bool          { return false }
func (c masterCrew) LanesPeak() int             { return max(c.e.lanes.Board.Peak(), c.Runtime.LanesPeak()) }
func (c masterCrew) CountsAtHandOut() bool      { return true }
func (c masterCrew) Counts() (waiting, out int) { return c.Runtime.Counts() }

// Withdraw takes the tasks waiting at the master out of their units' queues; those
// handed out are withdrawn from their workers (held). Caller holds e.mu.
func (c masterCrew) Withdraw(drop func(frontier.Task) bool) (n int, held func() int) {
	dropped, held := c.Runtime.Withdraw(drop)
	for _, t := range dropped {
		c.e.fr.Marks().LeftQueue(t.URL)
		c.e.fr.SetOut(t)
	}
	return len(dropped), held
}

// BusyState is DRAINING once the master has nothing left to hand out: its workers
// finish what they hold. Caller holds e.mu.
func (c masterCrew) BusyState() view.State {
	e := c.e
	if e.queuedLen() == 0 && e.fr.Settled() {
		return view.StateDraining
	}
	return view.StateRunning
}

// masterPort is the engine as its master runtime's crawl (master.Crawl): the lock,
// the log and the clock, the front's budgets and revisit marks as tasks move, and
// the store's side of a hand-out and of a worker's report.
type masterPort struct {
	e  *Engine
	hb time.Duration // the workers' heartbeat period, in the settings they follow
}

var _ master.Crawl = masterPort{}

func (p masterPort) Lock()          { p.e.mu.Lock() }
func (p masterPort) Unlock()        { p.e.mu.Unlock() }
func (p masterPort) Now() time.Time { return p.e.now() }
func (p masterPort) Paused() bool   { return p.e.paused }
func (p masterPort) Logf(level view.Level, format string, args ...any) {
	p.e.logf(level, 0, "", format, args...)
}
func (p masterPort) Settings() wire.Settings         { return p.e.workerSettings(p.hb) }
func (p masterPort) SetMeta(key string, data []byte) { p.e.st.SetMeta(key, data) }
func (p masterPort) Go(f func()) {
	p.e.wg.Add(1)
	go func() { defer p.e.wg.Done(); f() }()
}
func (p masterPort) Dispatching() bool             { return !p.e.paused && p.e.state == view.StateRunning }
func (p masterPort) CheckIdle()                    { p.e.checkIdle() }
func (p masterPort) RevisitEnded(url string) bool  { return p.e.fr.Marks().Ended(url) }
func (p masterPort) Refused(r store.Refusal)       { p.e.st.AddRefusal(r) }
func (p masterPort) AfterCommit(f func(error))     { p.e.st.AfterCommit(f) }
func (p masterPort) FetchCost(d time.Duration)     { p.e.fetchCost.Add(d) }
func (p masterPort) CheckEgress(spec string) error { return p.e.lanes.CheckSessionEgress(spec) }
func (p masterPort) HandedOut(t frontier.Task)     { p.e.fr.Marks().Taken(t.URL) }

// workerSettings are the crawl settings a worker follows.
func (e *Engine) workerSettings(hb time.Duration) wire.Settings {
	o := e.opts
	render := o.Render
	render.Browser = "" // a path on the master's box: the worker finds its own
	return wire.Settings{Lanes: o.Lanes, HostRate: o.HostRate, Politeness: &o.Politeness, Cookies: &o.Cookies, Robots: o.Robots, UserAgent: o.UserAgent,
		Fetch: o.Fetch, DNS: o.DNS, DNSServers: o.DNSServers, Rotation: o.Rotation, HeartbeatEvery: hb,
		Etiquette: &o.Etiquette, Render: &render, RenderVerdicts: e.verdicts.snapshot(e.st)}
}

// Prepare marks a task in progress in the store as it leaves for a worker: a
// refetch carries its validators (M2, a conditional GET), and a URL a fetched page
// stands for as its canonical is marked Stood (the worker ends it unsent).
func (p masterPort) Prepare(t *frontier.Task) { p.e.fr.PrepareHandOut(t) }

// Commit records a worker's result. A revisit is recorded as one: its stored state
// read with the mark just dropped in mind. Read after the drop, it was a first fetch
// every time (no history for the estimator, no date hints: a source's last read
// unknown).
func (p masterPort) Commit(r *wire.Result, revisit bool) {
	e := p.e
	if r.Kind == front.SkipSteeredOut { // withdrawn from the worker's board
		e.fr.EndSteeredOut(r.Task)
		return
	}
	if r.Res != nil {
		e.verdicts.note(e.st, r.Res.Render)
	}
	o := lanes.Outcome{Task: r.Task, Lane: r.Lane, Egress: r.Egress, Node: r.Node, Kind: r.Kind, Res: r.Res, Hops: r.Hops, At: r.At}
	pr := front.Prior{}
	pr.Page, pr.Track = e.rv.State(o.Task, revisit)
	o.Note = pr
	e.fr.Record(o)
}

// Defer sets aside a URL a worker deferred: it is no result (the URL's fetch
// history stays as it was), and the store queues it again at until.
func (p masterPort) Defer(url string, until time.Time) {
	p.e.st.Defer(url, until)
	p.e.c.Deferred.Add(1)
}

// Budgets on a master (M4). The master's queue is not where pages are fetched: a
// budget counted there (as place does on one box) let every task already handed to
// a worker through, and a worker holds a window of hundreds. So a master counts a
// budget's pages as it hands them out (masterPort.Admit, which marks the task
// Budgeted) and takes the count back for a hand-out that comes back unfetched
// (HandedBack); a budget set or lowered live recalls from the workers' queues what
// their lanes have not taken, and deals it again within the budget. What was handed
// out before any budget was set is not counted until fetched (the totals read the
// store then); what the lanes hold is fetched: a host's pages end at most at its
// budget plus the lanes in flight on it.

// Admit counts t against the page budgets as the master hands it to a worker, or
// holds it back as place does on one box. Caller holds e.mu.
func (p masterPort) Admit(t *frontier.Task) bool {
	e := p.e
	t.Budgeted = false
	if !e.budget.Active() {
		return true // not counted: a budget set later counts what was fetched (the store) and recalls the rest
	}
	kind, until := e.budget.Admit(*t, e.now())
	if kind == "" {
		t.Budgeted = true
		return true
	}
	e.fr.Marks().LeftQueue(t.URL) // it leaves the master's queue unfetched
	e.fr.HoldBack(*t, kind, until)
	return false
}

// Fetched counts against the budgets a page the master's last life handed out
// (counted then, by a ledger gone with it).
func (p masterPort) Fetched(t frontier.Task) {
	if p.e.budget.Active() {
		p.e.budget.Count(t)
	}
}

// HandedBack: a revisit's mark follows its task back to the master; a task
// withdrawn while a worker held it ends instead of coming back.
func (p masterPort) HandedBack(t frontier.Task) bool {
	e := p.e
	if t.Budgeted {
		e.budget.Unadmit(t) // not fetched: counted again when next handed out
	}
	e.fr.Marks().HandedBack(t.URL)
	if e.fr.Withdrawn(t) {
		e.fr.Marks().LeftQueue(t.URL) // before setOut drops the mark
		e.fr.SetOut(t)
		return false
	}
	return true
}
