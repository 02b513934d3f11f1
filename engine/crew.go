package engine

import (
	"errors"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// localCrew is this process's lanes: the board, the gate, the egresses.
type localCrew struct{ e *Engine }

func (c localCrew) Place(t frontier.Task) {
	e := c.e
	if e.pool != nil {
		if until, off := e.pool.Rotation().DisabledUntil(t.Host); off {
			e.deferTask(t, until) // M3: a disabled host's URLs wait, never lost
			return
		}
	}
	c.queue(e.fr.Placing(t))
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

func (c localCrew) Withdraw(drop func(frontier.Task) bool) (n int, held func() int) {
	for _, t := range c.e.offBoard(c.e.board.Withdraw(drop)) {
		c.e.fr.SetOut(t)
		n++
	}
	return n, func() int { return 0 }
}

func (c localCrew) PlacesEarly() bool { return true }

func (c localCrew) Counts() (waiting, inHand int) { return c.e.board.Queued(), c.e.inHand }

func (c localCrew) LanesPeak() int { return c.e.board.Peak() }

func (c localCrew) PausedChanged()                                           {}
func (c localCrew) Start() error                                             { return nil }
func (c localCrew) Stop()                                                    {}
func (c localCrew) Show(*view.Snapshot)                                      {}
func (c localCrew) Panes(time.Time) (*view.EgressView, *view.DNSView, int64) { return nil, nil, 0 }
func (c localCrew) ClusterStats() *view.ClusterStats                         { return nil }

// BusyState is RUNNING while the lanes work: they find links in every page they
// fetch, so an empty queue on one box is no sign of an end.
func (c localCrew) BusyState() view.State { return view.StateRunning }

// PauseLane pauses or resumes one of this process's lanes.
func (c localCrew) PauseLane(id int, paused bool) error {
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

// PauseHost holds or lets go this process's requests to host.
func (c localCrew) PauseHost(host string, paused bool) error {
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

// SetMaxLanes sets how many lanes this process runs at most.
func (c localCrew) SetMaxLanes(n int) error {
	if err := c.e.run.SetMax(n); err != nil {
		return err
	}
	c.e.logf(view.LevelInfo, 0, "", "lanes.max set to %d by operator", n)
	return nil
}

// PlanRebalance re-deals this process's lanes over its egress addresses by their
// observed work (lanes.Runner.PlanRebalance): a task costs the mean fetch time plus
// the mean lane pause.
func (c localCrew) PlanRebalance() view.RebalancePlan {
	e := c.e
	return e.run.PlanRebalance((e.fetchCost.Mean() + (e.opts.Lanes.DelayMin+e.opts.Lanes.DelayMax)/2).Seconds())
}

// ApplyRebalance carries out a plan over this process's egresses.
func (c localCrew) ApplyRebalance(p view.RebalancePlan) error {
	moved, err := c.e.run.ApplyRebalance(p)
	c.e.logf(view.LevelInfo, 0, "", "rebalance applied: %d of %d lanes moved", moved, len(p.Moves))
	return err
}

// errNoNodes is the answer of the node controls on a single-process crawl.
var errNoNodes = errors.New("no workers: this crawl runs in one process (start a master and workers to have nodes)")

func (c localCrew) PauseNode(string, bool) error { return errNoNodes }

func (c localCrew) CountsAtHandOut() bool { return false }

// Recall on one box takes what the board holds of match off it and places it again:
// what place counted as it came (under a budget) is taken back, and the budget now
// in force admits it or holds it back.
func (c localCrew) Recall(match func(frontier.Task) bool) int {
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
