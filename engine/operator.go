package engine

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
)

var _ Control = (*Engine)(nil)

// Snapshot implements Control.
func (e *Engine) Snapshot() Snapshot {
	now := e.now()
	rate, hist := e.rate.current()
	e.mu.Lock()
	views := e.board.View()
	s := Snapshot{
		At: now, State: e.state, StartedAt: e.startedAt, PagesPerSec: rate, RateHistory: hist,
		QueueDepth: e.board.Queued(), LanesBusy: e.board.Len(), LanesMax: e.board.Max(),
		PausedHosts: sortedKeys(e.pausedHosts), Egresses: append([]string(nil), e.board.Egresses()...),
	}
	if e.paused && s.State == StateRunning {
		s.State = StatePaused
	}
	if e.failure != nil {
		s.State, s.StoreError = StateFailed, storeErrorText(e.failure)
	}
	if e.disc != nil {
		s.Discovery = e.disc.view() // its own lock, taken under e.mu (discovery never takes e.mu)
	}
	if e.q.spillFrom != 0 {
		s.QueueDepth += int(e.q.maxSpilled - e.q.spillFrom + 1) // estimate of what waits in the store
	}
	s.Lanes = make([]Lane, 0, len(views))
	s.Groups = make([]Group, 0, len(views))
	for _, v := range views {
		ls := e.lanes[v.ID]
		row := Lane{ID: v.ID, Egress: v.Egress, Hosts: sortedKeys(v.Hosts), Parents: len(v.Parents),
			Queued: v.Queued, Done: v.Done, Paused: v.Paused}
		if ls != nil {
			row.Status, row.Current, row.NextFetch = ls.Status, ls.Current, ls.NextFetch
		}
		if v.Paused {
			row.Status = LanePaused
		}
		if h := laneGapHost(row); h != "" {
			gap, why := e.hostGap(h) // lock order: e.mu, then the gate's
			row.Gap, row.GapWhy = gap, string(why)
		}
		s.Lanes = append(s.Lanes, row)
		g := Group{Lane: v.ID, Egress: v.Egress}
		for _, h := range row.Hosts {
			gap, why := e.hostGap(h)
			g.Hosts = append(g.Hosts, HostRef{Host: h, Tasks: v.Hosts[h], Gap: gap, GapWhy: string(why)})
		}
		for p, n := range v.Parents {
			u, _ := e.parentURLs.Peek(p)
			g.Parents = append(g.Parents, ParentRef{Hash: p, URL: u, Tasks: n})
		}
		sort.Slice(g.Parents, func(i, j int) bool { return g.Parents[i].URL < g.Parents[j].URL })
		s.Groups = append(s.Groups, g)
	}
	if e.cluster != nil {
		pending, out := e.cluster.book.Counts()
		s.QueueDepth += pending + out
		var rows []Lane
		s.Nodes, rows = e.cluster.book.View()
		s.HeartbeatEvery = e.cluster.o.HeartbeatEvery
		s.LanesMax = 0
		for _, n := range s.Nodes {
			if n.State != NodeDead {
				s.LanesMax += n.LanesMax
			}
		}
		for _, r := range rows {
			s.LanesBusy++
			s.Lanes = append(s.Lanes, r)
		}
	}
	var egressView *EgressView
	var dnsView *DNSView
	var workerRefused int64
	if e.cluster != nil {
		egressView = e.cluster.book.EgressView(now)
		dnsView = e.cluster.book.DNSView(now)
		workerRefused = e.cluster.book.WorkerRefusals()
	}
	peak := e.lanesPeak()
	e.mu.Unlock()
	s.Totals = e.c.totals(peak)
	s.Totals.Refused += workerRefused
	if egressView != nil {
		s.Egress = egressView
	}
	s.LastEvent = e.events.last()
	s.DNS = e.dnsView()
	if dnsView != nil {
		s.DNS = dnsView
	}
	if e.st != nil { // a worker has no revisit state: the master schedules revisits
		s.Revisit = e.revisitView(now)
		s.Sites = e.sitesView(now, s.Discovery)
	}
	if e.pool != nil {
		v := e.pool.View()
		s.Egress = &v
	}
	s.Sizing = e.sizing(s.Egress)
	return s
}

// EventsSince implements Control.
func (e *Engine) EventsSince(after uint64, max int) []Event { return e.events.since(after, max) }

// Pause implements Control: lanes finish their current request, then wait.
func (e *Engine) Pause() {
	e.mu.Lock()
	changed := !e.paused
	e.paused = true
	e.mu.Unlock()
	if e.cluster != nil {
		e.cluster.broadcastPause() // M4: every worker
	}
	if changed {
		e.logf(LevelInfo, 0, "", "crawl paused by operator")
	}
}

// Resume implements Control.
func (e *Engine) Resume() {
	e.mu.Lock()
	changed := e.paused
	e.paused = false
	e.broadcast()
	e.mu.Unlock()
	if e.cluster != nil {
		e.cluster.broadcastPause()
		e.cluster.book.Kick()
	}
	if changed {
		e.logf(LevelInfo, 0, "", "crawl resumed by operator")
	}
}

// PauseLane implements Control.
func (e *Engine) PauseLane(id int, paused bool) error {
	if e.cluster != nil {
		return e.cluster.pauseLane(id, paused)
	}
	e.mu.Lock()
	err := e.board.SetPaused(id, paused)
	if err == nil && !paused {
		e.broadcast()
	}
	e.mu.Unlock()
	if err != nil {
		return err
	}
	e.logf(LevelInfo, id, "", "lane %d %s by operator", id, map[bool]string{true: "paused", false: "resumed"}[paused])
	return nil
}

// PauseHost implements Control: every lane holds its requests to host.
func (e *Engine) PauseHost(host string, paused bool) error {
	if e.cluster != nil {
		return e.cluster.hostControl(wire.OpPauseHost, host, paused)
	}
	if host == "" {
		return errors.New("no host given")
	}
	e.mu.Lock()
	if paused {
		e.pausedHosts[host] = true
	} else {
		delete(e.pausedHosts, host)
		e.broadcast()
	}
	e.mu.Unlock()
	e.logf(LevelInfo, 0, host, "host %s %s by operator", host, map[bool]string{true: "paused", false: "resumed"}[paused])
	return nil
}

// SetMaxLanes implements Control.
func (e *Engine) SetMaxLanes(n int) error {
	if e.cluster != nil {
		if n < 1 {
			return fmt.Errorf("lanes.max must be at least 1, got %d", n)
		}
		_, err := e.cluster.everyWorker(&wire.Control{Op: wire.OpSetLanes, N: n})
		return err
	}
	e.mu.Lock()
	opened, err := e.board.SetMax(n)
	for _, l := range opened {
		e.startLane(l)
	}
	e.mu.Unlock()
	if err != nil {
		return err
	}
	e.logf(LevelInfo, 0, "", "lanes.max set to %d by operator", n)
	return nil
}

// costMeter keeps the mean fetch duration, the basis of lane cost estimates.
type costMeter struct {
	mu    sync.Mutex
	n     int64
	total time.Duration
}

func (c *costMeter) add(d time.Duration) {
	c.mu.Lock()
	c.n++
	c.total += d
	c.mu.Unlock()
}

func (c *costMeter) mean() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		return 0
	}
	return c.total / time.Duration(c.n)
}

// PlanRebalance implements Control. On one box it re-deals lanes over the egress
// addresses so each address carries about the same observed work: a lane's cost is
// its queued tasks plus the one in hand, times (mean fetch time + mean lane pause).
// The deal is longest-processing-time first onto the least-loaded address.
func (e *Engine) PlanRebalance() RebalancePlan {
	if e.cluster != nil { // seed 003: sites and keyword shards over workers
		p, err := e.cluster.planBalance()
		if err != nil {
			p.Summary = "no plan: " + err.Error()
		}
		return p
	}
	per := (e.fetchCost.mean() + (e.opts.Lanes.DelayMin+e.opts.Lanes.DelayMax)/2).Seconds()
	e.mu.Lock()
	views := e.board.View()
	egs := append([]string(nil), e.board.Egresses()...)
	e.mu.Unlock()
	idx := map[string]int{}
	for i, n := range egs {
		idx[n] = i
	}
	before := make([]EgressLoad, len(egs))
	after := make([]EgressLoad, len(egs))
	for i, n := range egs {
		before[i].Egress, after[i].Egress = n, n
	}
	type lc struct {
		id   int
		from int
		cost float64
	}
	var ls []lc
	for _, v := range views {
		c := float64(v.Queued+1) * per
		ls = append(ls, lc{v.ID, idx[v.Egress], c})
		before[idx[v.Egress]].Lanes++
		before[idx[v.Egress]].Cost += c
	}
	plan := RebalancePlan{Before: before}
	if len(egs) < 2 {
		plan.After = before
		plan.Summary = "one egress address: nothing to rebalance"
		return plan
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].cost > ls[j].cost || ls[i].cost == ls[j].cost && ls[i].id < ls[j].id })
	for _, l := range ls {
		best := l.from
		for i := range after {
			if after[i].Cost < after[best].Cost {
				best = i
			}
		}
		after[best].Lanes++
		after[best].Cost += l.cost
		if best != l.from {
			plan.Moves = append(plan.Moves, LaneMove{Lane: l.id, From: egs[l.from], To: egs[best], Cost: l.cost})
		}
	}
	plan.After = after
	plan.Summary = fmt.Sprintf("move %d of %d lanes; busiest address %.1fs -> %.1fs of queued work",
		len(plan.Moves), len(ls), maxCost(before), maxCost(after))
	return plan
}

func maxCost(loads []EgressLoad) float64 {
	var m float64
	for _, l := range loads {
		m = max(m, l.Cost)
	}
	return m
}

// ApplyRebalance implements Control: each move rebinds a lane (and what it holds) to
// another address, unless that address already holds something adjacent to it.
func (e *Engine) ApplyRebalance(p RebalancePlan) error {
	if e.cluster != nil {
		return e.cluster.applyBalance(p)
	}
	e.mu.Lock()
	idx := map[string]int{}
	for i, n := range e.board.Egresses() {
		idx[n] = i
	}
	var errs []error
	moved := 0
	for _, m := range p.Moves {
		to, ok := idx[m.To]
		if !ok {
			errs = append(errs, fmt.Errorf("lane %d: no egress %q", m.Lane, m.To))
			continue
		}
		if err := e.board.SetEgress(m.Lane, to); err != nil {
			errs = append(errs, err)
			continue
		}
		moved++
	}
	e.mu.Unlock()
	e.logf(LevelInfo, 0, "", "rebalance applied: %d of %d lanes moved", moved, len(p.Moves))
	return errors.Join(errs...)
}

// errNoNodes is the answer of the node controls on a single-process crawl.
var errNoNodes = errors.New("no workers: this crawl runs in one process (start a master and workers to have nodes)")

// PauseNode implements Control.
func (e *Engine) PauseNode(name string, paused bool) error {
	if e.cluster == nil {
		return errNoNodes
	}
	return e.cluster.pauseNode(name, paused)
}
