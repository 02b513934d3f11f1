package engine

import (
	"errors"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/local"
	"github.com/crawlconsole/crawlconsole/engine/master"
	"github.com/crawlconsole/crawlconsole/engine/master/verdicts"
	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/engine/worker"
	"github.com/crawlconsole/crawlconsole/store"
)

// role is what sets the three kinds of crawl apart where an Engine is built and
// where it reports on itself: one box (localRole), a distributed crawl's master
// (masterRole) or one of its workers (workerRole). The constructor picks it (New,
// NewMaster, StartWorker); the paths that differ by role once the crawl runs go
// through the crew and the front (crew.Crew, record.go), so no code asks which role
// it is in.
type role interface {
	// name is the role as the telemetry names it (RoleLocal, RoleMaster, RoleWorker).
	name() string
	// openStore opens the crawl's store with what it recovered and the dedupe
	// over it; none, with no error, where the store is another process's (a
	// worker's is its master's).
	openStore(opts config.Options) (kept, error)
	// ssrfFix is the advice of an SSRF refusal's log line: who needs
	// --allow-private for the address refused (a format with one %s).
	ssrfFix() string
	// equip builds the side that fetches: this process's resolver, egresses and
	// gate, or a master's empty board (its workers fetch); a role that keeps the
	// store restores first what earlier runs kept for the front (restoreFront).
	equip(e *Engine) error
	// started logs, once the crawl started, what the role has to say about the run
	// it resumed.
	started(e *Engine)
	// waitsWhenDry tells whether a crawl that ran dry waits for more (IDLE) rather
	// than ending (DONE): with revisits on, or on a worker, whose master decides.
	waitsWhenDry(opts *config.Options) bool
	// telemetry adds the role's own figures to t.
	telemetry(e *Engine, t *view.Telemetry)
	// verdicts are the render verdicts the crawl learned, which its front keeps
	// in the store at its stop: this process's renderer's, or on a master its
	// workers' (and the last run's).
	verdicts(e *Engine) render.Verdicts
}

// localRole is a crawl in one process: a front and its lanes joined in process.
type localRole struct{}

func (localRole) name() string                             { return view.RoleLocal }
func (localRole) openStore(o config.Options) (kept, error) { return openStore(o) }
func (localRole) ssrfFix() string {
	return "start the crawl with --allow-private %s (on a distributed crawl, the workers need it too)"
}
func (localRole) equip(e *Engine) error                  { e.restoreFront(); return e.equipLanes(nil, e.st) }
func (localRole) started(e *Engine)                      { e.logResumed() }
func (localRole) waitsWhenDry(o *config.Options) bool    { return o.Revisit.Enabled }
func (localRole) telemetry(e *Engine, t *view.Telemetry) { e.lanes.Telemetry(t); e.fr.Telemetry(t) }
func (localRole) verdicts(e *Engine) render.Verdicts     { return e.laneVerdicts() }

// kept is what a role that keeps the crawl's store opens at build: the store, the
// in-progress URLs it put back in the queue, and the dedupe over its URLs.
type kept struct {
	st      *store.Store
	resumed int
	dedupe  *frontier.Dedupe
	costs   []store.Cost // the cost table an earlier run left (M3)
}

// openStore opens the store at opts.DB: the front's, on one box and on a master.
func openStore(opts config.Options) (kept, error) {
	if opts.DB == "" {
		return kept{}, errors.New("no database path: set --db PATH")
	}
	st, err := store.Open(opts.DB, opts.Store)
	if err != nil {
		return kept{}, err
	}
	d := opts.Dedupe
	costs, _ := st.Costs() // unreadable: the rounds start with an empty table, as on a new store
	return kept{st: st, resumed: st.Recovered(), dedupe: frontier.NewDedupe(d.ExpectedURLs, d.FalsePositive, d.LRUSize), costs: costs}, nil
}

// close closes the store a crawl failed to be built around, if it opened one.
func (k kept) close() {
	if k.st != nil {
		k.st.Close()
	}
}

// restoreFront reads what earlier runs kept for the front: what each site's new
// pages showed (the revisit priors), and discovery's poll pace and date trust.
func (e *Engine) restoreFront() {
	e.rv.LoadSitePriors()
	if e.opts.Discovery.Enabled {
		e.disc = e.fr.NewFeeds()
		e.disc.Load()
	}
}

// equipLanes builds this process's fetching side (local.Crew.Equip): its
// resolver, egresses (and a worker's supply), gate and renderer. kept is the store
// the DNS cache starts warm from and the egress accounts are kept in: this
// process's own, none on a worker.
func (e *Engine) equipLanes(supply *local.Supply, kept *store.Store) error {
	if err := e.lanes.Equip(supply, kept); err != nil {
		return err
	}
	e.accounts = e.lanes.Accounts
	return nil
}

// logResumed says how many in-progress URLs a restart put back in the queue (a
// master says it once its grace period is over: master/lease.go).
func (e *Engine) logResumed() {
	if e.resumed > 0 {
		e.logf(view.LevelInfo, 0, "", "resumed: %d in-progress URLs went back to the queue", e.resumed)
	}
}

// laneVerdicts are the render verdicts this process's renderer learned (none
// without a browser).
func (e *Engine) laneVerdicts() render.Verdicts {
	if rd := e.lanes.Renderer; rd != nil {
		return rd.Decider.Verdicts()
	}
	return nil
}

// NewMaster builds the master of a distributed crawl: the frontier, dedupe and store
// of New, and no lanes of its own; its crew is its workers (master.Crew), who join
// over mo.Conn.
func NewMaster(opts config.Options, mo config.MasterOptions) (*Engine, error) {
	mo, err := mo.WithDefaults(opts.Balance)
	if err != nil {
		return nil, err
	}
	book := &verdicts.Book{}
	e, err := newEngine(opts, masterRole{book})
	if err != nil {
		return nil, err
	}
	c, err := master.NewCrew(e.ctx, masterShell{e}, master.Parts{Opts: &e.opts, Store: e.st, Front: e.fr, Budgets: e.budget,
		Revisit: e.rv, Counters: &e.c, Cost: &e.fetchCost, Board: e.lanes.Board, Verdicts: book}, mo)
	if err != nil {
		e.Close()
		return nil, err
	}
	e.crew, e.accounts = c, c.KeptAccounts
	e.restoreHolds()
	return e, nil
}

// masterRole is the master's part of a crawl (role): the front and its store, and
// no lanes of its own; book is its copy of the render verdicts its workers learn.
type masterRole struct{ book *verdicts.Book }

func (masterRole) name() string                             { return view.RoleMaster }
func (masterRole) openStore(o config.Options) (kept, error) { return openStore(o) }
func (masterRole) ssrfFix() string                          { return localRole{}.ssrfFix() }
func (masterRole) waitsWhenDry(o *config.Options) bool      { return o.Revisit.Enabled }
func (masterRole) telemetry(e *Engine, t *view.Telemetry)   { e.fr.Telemetry(t) }
func (r masterRole) verdicts(e *Engine) render.Verdicts     { return r.book.Snapshot(e.st) }

// started leaves the resumed URLs unannounced: they wait for their holders' claims
// (grace), which says what came back.
func (masterRole) started(*Engine) {}

// equip restores the front's kept state and gives the master a board with no
// egress: the workers resolve, fetch and rotate egresses.
func (masterRole) equip(e *Engine) error {
	e.restoreFront()
	e.lanes.EquipBoard()
	return nil
}

// masterShell is the engine as its master crew's Shell: the lock, the clock, the
// log, the pause and state, the goroutines, the idle check and the egress check.
type masterShell struct{ e *Engine }

func (s masterShell) Lock()          { s.e.mu.Lock() }
func (s masterShell) Unlock()        { s.e.mu.Unlock() }
func (s masterShell) Now() time.Time { return s.e.now() }
func (s masterShell) Paused() bool   { return s.e.paused }
func (s masterShell) Logf(level view.Level, format string, args ...any) {
	s.e.logf(level, 0, "", format, args...)
}
func (s masterShell) Go(f func()) {
	s.e.wg.Add(1)
	go func() { defer s.e.wg.Done(); f() }()
}
func (s masterShell) Dispatching() bool             { return !s.e.paused && s.e.state == view.StateRunning }
func (s masterShell) CheckIdle()                    { s.e.checkIdle() }
func (s masterShell) CheckEgress(spec string) error { return s.e.lanes.CheckSessionEgress(spec) }

// Worker is a running worker of a distributed crawl (M4): a worker.Node, the
// conversation with the master, around an Engine built in the worker role (lanes,
// no store; its front is the master, worker.Front). Leave ends it gracefully;
// Close ends it at once (the master reassigns what it held after the heartbeat
// timeout).
type Worker struct {
	*worker.Node
	e *Engine
}

// StartWorker joins the master and starts fetching what it hands out.
func StartWorker(o config.WorkerOptions) (*Worker, error) {
	w := &Worker{}
	n, err := worker.Start(o, func(n *worker.Node, opts config.Options, granted []egress.Spec) (worker.Lanes, error) {
		e, err := newEngine(opts, workerRole{&local.Supply{Granted: granted, Claim: n.ClaimWith}})
		if err != nil {
			return nil, err
		}
		e.front = n.Front(&e.c, e.logf, e.now)
		e.lanes.SetRecord(e.front) // the lanes record their tasks at the master
		w.e = e
		return worker.Join(n, worker.Parts{Mu: &e.mu, Lanes: e.lanes, Front: e.fr}, workerCrawl{e}), nil
	})
	if err != nil {
		return nil, err
	}
	w.Node = n
	return w, nil
}

// Engine is the worker's lane half, for a local console or tests (Snapshot).
func (w *Worker) Engine() *Engine { return w.e }

// workerRole is a worker's part of a crawl (role): the lanes, with the egresses its
// master granted, and no store (its front is the master).
type workerRole struct{ we *local.Supply }

func (workerRole) name() string                           { return view.RoleWorker }
func (workerRole) openStore(config.Options) (kept, error) { return kept{}, nil }
func (workerRole) ssrfFix() string {
	return "start this worker with --allow-private %s (every worker that may fetch it needs it)"
}
func (r workerRole) equip(e *Engine) error                { return e.equipLanes(r.we, nil) }
func (workerRole) started(*Engine)                        {}              // nothing resumed: the queue is the master's
func (workerRole) waitsWhenDry(*config.Options) bool      { return true } // the master decides the end
func (workerRole) telemetry(e *Engine, t *view.Telemetry) { e.lanes.Telemetry(t) }
func (workerRole) verdicts(e *Engine) render.Verdicts     { return e.laneVerdicts() }

// workerCrawl is the engine as its worker node's crawl (worker.Crawl).
type workerCrawl struct{ *Engine }

func (c workerCrawl) Logf(level view.Level, format string, args ...any) {
	c.logf(level, 0, "", format, args...)
}
func (c workerCrawl) Paused() bool { return c.paused }
func (c workerCrawl) CheckIdle()   { c.checkIdle() }
