package engine

import (
	"errors"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// crew is who fetches a crawl's tasks, as the front sees it: this process's lanes
// (one box; a worker, whose front is its master) or a master's workers. An Engine
// holds one from the start (localCrew, or the master's runtime), and the paths that
// differ between the two ask it instead of checking the role.
type crew interface {
	// place queues a task the front admitted (steering and budgets checked).
	// Caller holds e.mu.
	place(t frontier.Task)
	// queue puts a task in line with its marks set (urgent, ahead). Caller holds e.mu.
	queue(t frontier.Task)
	// withdraw takes the tasks drop selects out of the queue (they end as
	// withdrawn); held withdraws those already handed out, without e.mu, and counts
	// them. Caller holds e.mu.
	withdraw(drop func(frontier.Task) bool) (n int, held func() int)
	// countsAtHandOut tells whether the crew counts page budgets itself as it hands
	// tasks out (a master, at dispatch: what its workers hold counts, not what waits
	// at the master); place then leaves them to it.
	countsAtHandOut() bool
	// recall takes back, to be counted again, the tasks handed out that match
	// selects and no lane has in hand (a budget lowered live), without e.mu, and
	// returns how many came back.
	recall(match func(frontier.Task) bool) int
	// placesEarly tells whether steering's new sources are placed before their
	// insert commits: not on a master, whose workers' queues are its board.
	placesEarly() bool
	// counts are the tasks waiting in memory and those being fetched. Caller holds e.mu.
	counts() (waiting, inHand int)
	// lanesPeak is the most lanes alive at once. Caller holds e.mu.
	lanesPeak() int
	// pausedChanged passes the crawl's pause or resume on.
	pausedChanged()
	// start and stop begin and end the crew's own work (a master's listening to its
	// workers), within Engine.Start and Engine.Stop.
	start() error
	stop()
	// show adds the crew's rows to a snapshot (a master's workers and their lanes).
	// Caller holds e.mu.
	show(s *view.Snapshot)
	// panes are the crew's Egress and DNS panes and refusals when they are not this
	// process's (a master's, added up over its workers). Caller holds e.mu.
	panes(now time.Time) crewPanes
	// clusterStats is the stats object's part on the workers; nil without any.
	clusterStats() *view.ClusterStats
	// The operator's controls (Control's methods of the same names).
	pauseLane(id int, paused bool) error
	pauseHost(host string, paused bool) error
	setMaxLanes(n int) error
	planRebalance() view.RebalancePlan
	applyRebalance(p view.RebalancePlan) error
	pauseNode(name string, paused bool) error
	rotateLane(id int) (string, error)
	setHostDisabled(host string, disabled bool) error
	addEgress(spec string) (string, error)
	removeEgress(name string) error
	flushDNS(domain string) (int, error)
	// busyState is the crawl's state while it has not run dry: RUNNING, or DRAINING
	// on a master with nothing left to hand out. Caller holds e.mu.
	busyState() view.State
}

// localCrew is this process's lanes: the board, the gate, the egresses.
type localCrew struct{ e *Engine }

func (c localCrew) place(t frontier.Task) {
	e := c.e
	if e.pool != nil {
		if until, off := e.pool.Rotation().DisabledUntil(t.Host); off {
			e.deferTask(t, until) // M3: a disabled host's URLs wait, never lost
			return
		}
	}
	e.boardAdd(t)
	if e.dns != nil && e.opts.DNS.Prefetch {
		e.prefetch.Add(t.Host)
	}
}

func (c localCrew) queue(t frontier.Task) {
	e := c.e
	if t.Urgent {
		e.addUrgent(t)
		return
	}
	if t.Ahead {
		if p := e.board.AddAhead(t); p.Opened {
			e.startLane(p.Lane)
		}
		return
	}
	if p := e.board.Add(t); p.Opened {
		e.startLane(p.Lane)
	}
}

func (c localCrew) withdraw(drop func(frontier.Task) bool) (n int, held func() int) {
	for _, t := range c.e.offBoard(c.e.board.Withdraw(drop)) {
		c.e.fr.SetOut(t)
		n++
	}
	return n, func() int { return 0 }
}

func (c localCrew) placesEarly() bool { return true }

func (c localCrew) counts() (waiting, inHand int) { return c.e.board.Queued(), c.e.inHand }

func (c localCrew) lanesPeak() int { return c.e.board.Peak() }

func (c localCrew) pausedChanged()                   {}
func (c localCrew) start() error                     { return nil }
func (c localCrew) stop()                            {}
func (c localCrew) show(*view.Snapshot)              {}
func (c localCrew) panes(time.Time) crewPanes        { return crewPanes{} }
func (c localCrew) clusterStats() *view.ClusterStats { return nil }

// busyState is RUNNING while the lanes work: they find links in every page they
// fetch, so an empty queue on one box is no sign of an end.
func (c localCrew) busyState() view.State { return view.StateRunning }

// crewPanes are what a crew adds to the Egress and DNS panes and the refusals; zero
// for this process's lanes, whose own figures the engine reads.
type crewPanes struct {
	egress  *view.EgressView
	dns     *view.DNSView
	refused int64 // refusals rerouted where the engine does not count them
}

// pauseLane pauses or resumes one of this process's lanes.
func (c localCrew) pauseLane(id int, paused bool) error {
	e := c.e
	e.mu.Lock()
	err := e.board.SetPaused(id, paused)
	if err == nil && !paused {
		e.broadcast()
	}
	e.mu.Unlock()
	if err != nil {
		return err
	}
	e.logf(view.LevelInfo, id, "", "lane %d %s by operator", id, map[bool]string{true: "paused", false: "resumed"}[paused])
	return nil
}

// pauseHost holds or lets go this process's requests to host.
func (c localCrew) pauseHost(host string, paused bool) error {
	e := c.e
	if host == "" {
		return errors.New("no host given")
	}
	e.mu.Lock()
	if paused {
		e.run.SetHostPaused(host, true)
	} else {
		e.run.SetHostPaused(host, false)
		e.broadcast()
	}
	e.mu.Unlock()
	e.logf(view.LevelInfo, 0, host, "host %s %s by operator", host, map[bool]string{true: "paused", false: "resumed"}[paused])
	return nil
}

// setMaxLanes sets how many lanes this process runs at most.
func (c localCrew) setMaxLanes(n int) error {
	if err := c.e.run.SetMax(n); err != nil {
		return err
	}
	c.e.logf(view.LevelInfo, 0, "", "lanes.max set to %d by operator", n)
	return nil
}

// planRebalance re-deals this process's lanes over its egress addresses by their
// observed work (lanes.Runner.PlanRebalance): a task costs the mean fetch time plus
// the mean lane pause.
func (c localCrew) planRebalance() view.RebalancePlan {
	e := c.e
	return e.run.PlanRebalance((e.fetchCost.Mean() + (e.opts.Lanes.DelayMin+e.opts.Lanes.DelayMax)/2).Seconds())
}

// applyRebalance carries out a plan over this process's egresses.
func (c localCrew) applyRebalance(p view.RebalancePlan) error {
	moved, err := c.e.run.ApplyRebalance(p)
	c.e.logf(view.LevelInfo, 0, "", "rebalance applied: %d of %d lanes moved", moved, len(p.Moves))
	return err
}

// errNoNodes is the answer of the node controls on a single-process crawl.
var errNoNodes = errors.New("no workers: this crawl runs in one process (start a master and workers to have nodes)")

func (c localCrew) pauseNode(string, bool) error { return errNoNodes }

func (c localCrew) countsAtHandOut() bool { return false }

// recall on one box takes what the board holds of match off it and places it again:
// what place counted as it came (under a budget) is taken back, and the budget now
// in force admits it or holds it back.
func (c localCrew) recall(match func(frontier.Task) bool) int {
	e := c.e
	e.mu.Lock()
	back := e.offBoard(e.board.Withdraw(match))
	for _, t := range back {
		if t.Budgeted {
			e.budget.Unadmit(t)
		}
		e.fr.Place(t)
	}
	e.checkIdle()
	e.mu.Unlock()
	e.flushDeferred()
	return len(back)
}
