package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/master"
	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// NewMaster builds the master of a distributed crawl: the frontier, dedupe and store
// of New, and no lanes of its own; its crew is its workers (master.Crew), who join
// over mo.Conn.
func NewMaster(opts config.Options, mo config.MasterOptions) (*Engine, error) {
	mo, err := mo.WithDefaults(opts.Balance)
	if err != nil {
		return nil, err
	}
	book := &master.VerdictBook{}
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
	return e, nil
}

// masterRole is the master's part of a crawl (role): the front and its store, and
// no lanes of its own; book is its copy of the render verdicts its workers learn.
type masterRole struct{ book *master.VerdictBook }

func (masterRole) name() string                                     { return view.RoleMaster }
func (masterRole) openStore(o config.Options) (*store.Store, error) { return openStore(o) }
func (masterRole) ssrfFix() string                                  { return localRole{}.ssrfFix() }
func (masterRole) waitsWhenDry(o *config.Options) bool              { return o.Revisit.Enabled }
func (masterRole) telemetry(e *Engine, t *view.Telemetry)           { e.fr.Telemetry(t) }
func (r masterRole) verdicts(e *Engine) render.Verdicts             { return r.book.Snapshot(e.st) }

// started leaves the resumed URLs unannounced: they wait for their holders' claims
// (grace), which says what came back.
func (masterRole) started(*Engine) {}

// equip gives the master a board with no egress: the workers resolve, fetch and
// rotate egresses.
func (masterRole) equip(e *Engine) error {
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
