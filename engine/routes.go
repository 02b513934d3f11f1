package engine

import (
	"net/netip"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
)

// setupEgress builds the egresses: the direct route when none is configured, else
// the M3 account table, this node's rotation and one transport per egress.
//
// A worker's egresses (we, M4) join its --egress specs in an in-memory table, and
// it claims more from its master's table.
func (e *Engine) setupEgress(resolver fetch.Resolver, guard *fetch.Guard, fcfg fetch.Config, we *workerEgress) error {
	dialer := &fetch.Dialer{Resolver: resolver, Guard: guard, Timeout: e.opts.Fetch.ConnectTimeout}
	var granted []egress.Spec
	if we != nil {
		granted = we.granted
	}
	if len(e.opts.Egress) == 0 && len(granted) == 0 {
		e.board = lanes.NewBoard(e.opts.Lanes.Max, []string{"direct"})
		e.run.Board = e.board
		e.run.Links = []*route.Link{e.run.NewLink("direct", fetch.New(e.ctx, fcfg, dialer, nil), nil)}
		e.run.Judge = egress.NewClassifier(e.opts.Now) // the direct route: a node with one egress
		return nil
	}
	specs, err := egress.ParseSpecs(e.opts.Egress)
	if err != nil {
		return err
	}
	specs = append(specs, granted...)
	var accounts egress.AccountStore = &egress.MemoryStore{}
	if e.st != nil {
		e.accounts = route.NewAccounts(e.st, func(msg string) { e.logf(LevelWarn, 0, "", "%s", msg) })
		accounts = e.accounts
	}
	table, err := egress.OpenTable(accounts, specs)
	if err != nil {
		return err
	}
	ro := e.opts.Rotation
	perNode := ro.PerNode
	if perNode <= 0 {
		perNode = len(table.Accounts())
	}
	var master egress.Master
	if we != nil && we.claim != nil {
		master = route.RemoteClaims{Table: table, FromMaster: we.claim}
	}
	e.pool, err = egress.NewPool(table, egress.PoolConfig{
		Master: master,
		Rotation: egress.RotationConfig{PerNode: perNode, DisableFor: ro.DisableFor,
			PairBanFor: ro.PairBanFor, FaultCooldown: ro.FaultCooldown, Now: e.opts.Now},
		Transport: egress.TransportConfig{
			Resolve:               resolver.LookupAddrs,
			Guard:                 func(a netip.Addr) error { return guard.Check("", a) },
			DialTimeout:           e.opts.Fetch.ConnectTimeout,
			ResponseHeaderTimeout: e.opts.Fetch.Timeout,
		},
	})
	if err != nil {
		return err
	}
	e.run.Pool, e.run.Judge = e.pool, e.pool.Classifier()
	e.run.SetTransport(fcfg, dialer)
	var names []string
	for _, a := range table.Accounts() {
		names = append(names, a.Name)
	}
	e.board = lanes.NewBoard(e.opts.Lanes.Max, names)
	e.board.Allowed = func(i int, host string) bool {
		return e.pool.Rotation().Serves(e.board.Egresses()[i], host)
	}
	e.board.Held = func(host string) bool { return e.pausedHosts[host] } // board calls run under e.mu
	e.run.Board = e.board
	e.run.Links = make([]*route.Link, len(names))
	for _, n := range names {
		if _, err := e.run.AddLink(n); err != nil {
			return err
		}
	}
	return nil
}
