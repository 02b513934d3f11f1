// Package local is this process's lanes joined to a crawl's front: the crew of a
// one-box crawl and of a worker (whose front is its master). It holds the lane
// runner and its board, the egresses, the DNS cache and the renderer this process
// fetches with, the deferrals on their way to the front, and the operator's lane,
// host, egress and DNS controls. It implements crew.Crew for the crawl and
// lanes.Front for its lanes, and reaches the crawl through Crawl, the port it
// defines. A master builds one too, with a board and no egress (EquipBoard): its
// deferrals and its snapshot's lane rows, while its workers fetch.
package local

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/crew"
	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/meter"
	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Crawl is what this process's lanes need from the crawl they run in, besides the
// record of their tasks (Parts.Record): where their deferrals go, the lanes'
// history, and the crawl's pause, idle check, log and clock. "Mu held" marks the
// calls made with the crawl's lock held.
type Crawl interface {
	// DeferURLs writes deferrals to the front.
	DeferURLs(list []lanes.Deferred)
	// RequeueDeferred queues again the deferred URLs whose time has come.
	RequeueDeferred()
	// Undefer makes deferred URLs due now (a host enabled again).
	Undefer(urls []string, now time.Time)
	// LaneOpened keeps a lane's opening in the lanes' history and the log.
	LaneOpened(lane int, egress string, at time.Time)
	// LaneRetired keeps a lane's end in the lanes' history (a lane still open
	// when the crawl stopped).
	LaneRetired(lane int, at time.Time, done int64)
	// LaneRanDry is a lane that ran dry and retired: the crawl sees whether it
	// ran dry too, then keeps the lane's end in the history and the log. Mu held;
	// released while the history is written (a full write queue waits for the
	// writer, whose callbacks take Mu).
	LaneRanDry(lane int, at time.Time, done int64)
	// Paused tells whether the operator paused the crawl. Mu held.
	Paused() bool
	// Wait releases Mu until something paused may go on or the crawl stops, and
	// takes it again; false: the crawl is stopping. Mu held.
	Wait() bool
	// Wake wakes everything in Wait. Mu held.
	Wake()
	// CheckIdle lets the crawl see whether it ran dry. Mu held.
	CheckIdle()
	// Logf says what happened, in the crawl's event log.
	Logf(level view.Level, lane int, host, format string, args ...any)
	// Now is the crawl's clock.
	Now() time.Time
}

// Parts are what a crew is built over: the crawl's lock, life and options, its
// front (the queue the crew's tasks come from and go back to), the counters and
// budgets it moves, and the fetch cost it learns.
type Parts struct {
	Mu   *sync.Mutex
	Ctx  context.Context // ends with the crawl
	Opts *config.Options
	// Record is where the lanes' tasks end (this process's store, or the master on
	// a worker): the runner calls it as it is (SetRecord replaces it).
	Record   lanes.Record
	Front    *front.Front
	Counters *front.Counters
	Budgets  *front.Budgets
	Cost     *meter.Cost  // every fetch's time (the sizing estimate, the rebalance plan)
	Guard    *fetch.Guard // the SSRF policy: every egress's dialer, and targets added live
	// SSRFFix says how to let a host refused by the SSRF guard through, on this
	// node (lanes.Runner.SSRFFix).
	SSRFFix string
}

// Crew is this process's lanes as a crawl's crew (crew.Crew). Run, Board, Pool,
// DNS, Renderer and Accounts are set by Equip (Board alone by EquipBoard) and read
// by the crawl for its snapshot and stats; the board under Mu.
type Crew struct {
	Run      *lanes.Runner   // the lanes: their runs, egress links, robots.txt and crawl-delays
	Board    *lanes.Board    // binds tasks to lanes (M1)
	Pool     *egress.Pool    // M3 rotation; nil for the direct route
	DNS      *dnscache.Cache // M5: the resolver of every egress; nil with Options.Resolver
	Renderer *render.Service // renders the pages built by script; nil without a browser
	Accounts *route.Accounts // the egress account table's persistence; nil without a store
	parts    Parts
	crawl    Crawl
	fr       *front.Front    // parts.Front
	deferred lanes.Deferrals // set aside, not yet written to the front (Mu)
	prefetch Prefetcher      // queued hosts for the DNS cache to resolve ahead (M5)
	dnsView  ResolverView
	inHand   int // tasks taken by lanes whose processing has not ended (Mu)
}

var _ crew.Crew = (*Crew)(nil)

// New builds a crawl's lanes over p, reaching the crawl through c; Equip (or a
// master's EquipBoard) gives them their board before the crawl starts.
func New(p Parts, c Crawl) *Crew {
	k := &Crew{parts: p, crawl: c, fr: p.Front}
	k.Run = lanes.NewRunner(p.Ctx, p.Mu, p.Opts, lanePort{k}, p.Record)
	k.Run.SSRFFix = p.SSRFFix
	return k
}

// SetRecord replaces where the lanes' tasks end (a worker's, once its master's
// proxy is built), before the crawl starts.
func (c *Crew) SetRecord(r lanes.Record) { c.Run.Record = r }

// Place puts a task the front admitted on the board by the M1 rule, or defers it
// while its host is disabled (M3: its URLs wait, never lost). Mu held.
func (c *Crew) Place(t frontier.Task) {
	if c.Pool != nil {
		if until, off := c.Pool.Rotation().DisabledUntil(t.Host); off {
			c.Defer(t, until)
			return
		}
	}
	c.queue(c.fr.Placing(t))
	if c.DNS != nil && c.parts.Opts.DNS.Prefetch {
		c.prefetch.Add(t.Host)
	}
}

// Withdraw takes the tasks drop selects off the board; each ends as withdrawn.
// Mu held.
func (c *Crew) Withdraw(drop func(frontier.Task) bool) (n int, held func() int) {
	for _, t := range c.OffBoard(c.Board.Withdraw(drop)) {
		c.fr.SetOut(t)
		n++
	}
	return n, func() int { return 0 }
}

// Recall takes what the board holds of match off it and places it again: what
// Place counted as it came (under a budget) is taken back, and the budget now in
// force admits it or holds it back.
func (c *Crew) Recall(match func(frontier.Task) bool) int {
	c.parts.Mu.Lock()
	back := c.OffBoard(c.Board.Withdraw(match))
	for _, t := range back {
		if t.Budgeted {
			c.parts.Budgets.Unadmit(t)
		}
		c.fr.Place(t)
	}
	c.crawl.CheckIdle()
	c.parts.Mu.Unlock()
	c.FlushDeferred()
	return len(back)
}

// CountsAtHandOut is false: Place's admission counted the budgets.
func (c *Crew) CountsAtHandOut() bool { return false }

// PlacesEarly is true: steering's new sources go on the board before their insert
// commits.
func (c *Crew) PlacesEarly() bool { return true }

// Counts are the tasks queued on the board and those the lanes hold. Mu held.
func (c *Crew) Counts() (waiting, inHand int) { return c.Board.Queued(), c.inHand }

// InHand is how many tasks the lanes hold. Mu held.
func (c *Crew) InHand() int { return c.inHand }

// LanesPeak is the most lanes alive at once. Mu held.
func (c *Crew) LanesPeak() int { return c.Board.Peak() }

// LanesMax is the board's lanes.max, the operator's last if set at run time. Mu held.
func (c *Crew) LanesMax() int { return c.Board.Max() }

// BusyState is RUNNING while the lanes work: they find links in every page they
// fetch, so an empty queue is no sign of an end.
func (c *Crew) BusyState() view.State { return view.StateRunning }

// PausedChanged, Start, Stop, Show, Panes and ClusterStats have nothing to do
// here: the lanes wait on the crawl's pause themselves, run from their first
// task, and are the crawl's own rows and panes.
func (c *Crew) PausedChanged()                   {}
func (c *Crew) Start() error                     { return nil }
func (c *Crew) Stop()                            {}
func (c *Crew) Show(*view.Snapshot)              {}
func (c *Crew) ClusterStats() *view.ClusterStats { return nil }
func (c *Crew) Panes(time.Time) (*view.EgressView, *view.DNSView, int64) {
	return nil, nil, 0
}

// errNoNodes is the answer of the node controls on a single-process crawl.
var errNoNodes = errors.New("no workers: this crawl runs in one process (start a master and workers to have nodes)")

// PauseNode has no node to pause: this crawl runs in one process.
func (c *Crew) PauseNode(string, bool) error { return errNoNodes }
