package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// setupEgress builds the node's egresses and board (lanes.Runner.SetupEgress). With
// a store (kept), the egress account table is kept in it; a worker's egresses (we,
// M4) join its --egress specs in an in-memory table, and it claims more from its
// master's table.
func (e *Engine) setupEgress(resolver fetch.Resolver, guard *fetch.Guard, fcfg fetch.Config, we *workerEgress, kept *store.Store) error {
	s := lanes.EgressSetup{Resolver: resolver, Guard: guard, Fetch: fcfg,
		Held: e.run.HostPaused} // board calls run under e.mu
	if we != nil {
		s.Granted, s.Claim = we.granted, we.claim
	}
	if kept != nil && (len(e.opts.Egress) > 0 || len(s.Granted) > 0) {
		e.accounts = route.NewAccounts(kept, func(msg string) { e.logf(view.LevelWarn, 0, "", "%s", msg) })
		s.Accounts = e.accounts
	}
	if err := e.run.SetupEgress(s); err != nil {
		return err
	}
	e.board, e.pool = e.run.Board, e.run.Pool
	return nil
}
