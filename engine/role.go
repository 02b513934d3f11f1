package engine

import (
	"errors"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/lanes/local"
	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/engine/view"
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
	// openStore opens the crawl's store; nil, with no error, where the store is
	// another process's (a worker's is its master's).
	openStore(opts config.Options) (*store.Store, error)
	// ssrfFix is the advice of an SSRF refusal's log line: who needs
	// --allow-private for the address refused (a format with one %s).
	ssrfFix() string
	// equip builds the side that fetches: this process's resolver, egresses and
	// gate, or a master's empty board (its workers fetch).
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

func (localRole) name() string                                     { return view.RoleLocal }
func (localRole) openStore(o config.Options) (*store.Store, error) { return openStore(o) }
func (localRole) ssrfFix() string {
	return "start the crawl with --allow-private %s (on a distributed crawl, the workers need it too)"
}
func (localRole) equip(e *Engine) error                  { return e.equipLanes(nil, e.st) }
func (localRole) started(e *Engine)                      { e.logResumed() }
func (localRole) waitsWhenDry(o *config.Options) bool    { return o.Revisit.Enabled }
func (localRole) telemetry(e *Engine, t *view.Telemetry) { e.lanes.Telemetry(t); e.fr.Telemetry(t) }
func (localRole) verdicts(e *Engine) render.Verdicts     { return e.laneVerdicts() }

// openStore opens the store at opts.DB: the front's, on one box and on a master.
func openStore(opts config.Options) (*store.Store, error) {
	if opts.DB == "" {
		return nil, errors.New("no database path: set --db PATH")
	}
	return store.Open(opts.DB, opts.Store)
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
