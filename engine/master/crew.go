package master

import (
	"context"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/master/verdicts"
	"github.com/crawlconsole/crawlconsole/engine/meter"
	"github.com/crawlconsole/crawlconsole/engine/refresh"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Shell is the crawl's life around a master's crew: its lock, clock and log, its
// pause and state, its goroutines, its idle check, and the egress check a
// console's `:egress add` passes on one box too.
type Shell interface {
	sync.Locker
	Now() time.Time
	Logf(level view.Level, format string, args ...any)
	// Paused tells whether the operator paused the crawl. Caller holds the lock.
	Paused() bool
	// Dispatching tells whether tasks may be handed out now: the crawl runs and
	// the operator has not paused it. Caller holds the lock.
	Dispatching() bool
	// Go runs f among the crawl's goroutines: the crawl's stop waits for it.
	Go(f func())
	// CheckIdle lets the crawl end if nothing is left. Caller holds the lock.
	CheckIdle()
	// CheckEgress refuses an egress spec typed in a console session that the
	// crawl would refuse on one box.
	CheckEgress(spec string) error
}

// Parts are the crawl's pieces a master's crew works on: the options, the store,
// the front (its queue, marks, record and steering), the budgets, the revisit
// runtime and the counters, the fetch cost it learns, the master's own board
// (no lanes: only its peak counts) and the render verdicts its workers learn.
type Parts struct {
	Opts     *config.Options
	Store    *store.Store
	Front    *front.Front
	Budgets  *front.Budgets
	Revisit  *refresh.Runtime
	Counters *front.Counters
	Cost     *meter.Cost
	Board    *lanes.Board
	Verdicts *verdicts.Book
}

// Crew is a master's workers as its crawl's crew (crew.Crew): a placed task goes
// to its unit's worker (the Runtime), with the marks it carries, and the workers'
// reports are recorded in the front through the Runtime's Crawl port, which the
// crew implements over its Parts and Shell.
type Crew struct {
	*Runtime
	// KeptAccounts keep the egress account table in the store; the crawl runs it
	// (route.Accounts.Run) while it runs.
	KeptAccounts *route.Accounts
	p            Parts
	sh           Shell
}

// NewCrew builds a master's crew over p for a crawl whose life is sh: the egress
// account table (seed 003) from the crawl's egresses and what the store kept of
// it, and what the master's last life left in the store (the hand-outs in
// progress, the node and cost tables).
func NewCrew(ctx context.Context, sh Shell, p Parts, mo config.MasterOptions) (*Crew, error) {
	specs, err := egress.ParseSpecs(p.Opts.Egress)
	if err != nil {
		return nil, err
	}
	o := p.Opts
	s := Setup{Balance: o.Balance, PerNode: o.Rotation.PerNode, Pause: (o.Lanes.DelayMin + o.Lanes.DelayMax) / 2}
	// Workers are granted rotation.per_node egresses at join and claim more when
	// theirs are refused; `:egress add` adds to the table.
	kept := route.NewAccounts(p.Store, func(msg string) { sh.Logf(view.LevelWarn, "%s", msg) })
	if s.Accounts, err = egress.OpenTable(kept, specs); err != nil {
		return nil, err
	}
	for _, r := range p.Store.InProgress() {
		s.Held = append(s.Held, front.TaskOf(r))
	}
	// A master with workers ran on this database before: its workers may have
	// requested any host until it died.
	nodes, err := p.Store.GetMeta(NodesMetaKey)
	s.Restarted = len(s.Held) > 0 || err == nil && len(nodes) > len("null")
	if err == nil {
		s.Nodes = LiveNodes(nodes)
	}
	if b, err := p.Store.GetMeta(CostsMetaKey); err == nil {
		s.Costs = b
	}
	c := &Crew{KeptAccounts: kept, p: p, sh: sh}
	c.Runtime = NewRuntime(ctx, crawlPort{sh, p, mo.HeartbeatEvery}, mo, s)
	if mo.Join != "" {
		// The log's first line says how to add workers: the console may start
		// before any joins, and the line printed before the screen took over is gone.
		sh.Logf(view.LevelInfo, "workers join with: %s", mo.Join)
	}
	return c, nil
}

// Place queues t at the master for its unit's worker. Caller holds the lock.
func (c *Crew) Place(t frontier.Task) { c.Queue(c.p.Front.Placing(t)) }

// PlacesEarly is false: steering's new sources wait for their inserts, as the
// workers' queues are the master's board.
func (c *Crew) PlacesEarly() bool { return false }

// LanesPeak is the most lanes alive at once, over the workers. Caller holds the lock.
func (c *Crew) LanesPeak() int { return max(c.p.Board.Peak(), c.Runtime.LanesPeak()) }

// LanesMax is the lanes.max the operator last set for the workers, else the
// master's own (what a worker runs unless its box replaces it). Caller holds the lock.
func (c *Crew) LanesMax() int {
	if n := c.link.LanesMax(); n > 0 {
		return n
	}
	return c.p.Opts.Lanes.Max
}

// CountsAtHandOut is true: a master counts page budgets as it hands tasks out
// (crawlPort.Admit).
func (c *Crew) CountsAtHandOut() bool { return true }

// Withdraw takes the tasks waiting at the master out of their units' queues; those
// handed out are withdrawn from their workers (held). Caller holds the lock.
func (c *Crew) Withdraw(drop func(frontier.Task) bool) (n int, held func() int) {
	dropped, held := c.Runtime.Withdraw(drop)
	for _, t := range dropped {
		c.p.Front.Marks().LeftQueue(t.URL)
		c.p.Front.SetOut(t)
	}
	return len(dropped), held
}

// BusyState is DRAINING once the master has nothing left to hand out: its workers
// finish what they hold. Caller holds the lock.
func (c *Crew) BusyState() view.State {
	if waiting, _ := c.Counts(); waiting == 0 && c.p.Front.Settled() {
		return view.StateDraining
	}
	return view.StateRunning
}
