package worker

import (
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/local"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Crawl is the crawl around a worker's lanes, as its node drives it: its own
// Start, Close, Snapshot, Pause and Resume, the operator's controls, its log, and
// under Mu the crawl's pause and its idle check.
type Crawl interface {
	Start() error
	Close() error
	Snapshot() view.Snapshot
	Pause()
	Resume()
	Controls
	// Logf adds an event to the crawl's log.
	Logf(level view.Level, format string, args ...any)
	// Paused tells whether the crawl is paused. Mu held.
	Paused() bool
	// CheckIdle lets the crawl see whether it ran dry. Mu held.
	CheckIdle()
}

// Parts are what the master's batches, releases and withdrawals move through on a
// worker: the crawl's lock, this process's lanes and the front's queue they are
// placed from (steering's marks, the board's bookkeeping).
type Parts struct {
	Mu    *sync.Mutex
	Lanes *local.Crew
	Front *front.Front
}

// Join makes c, a crawl built with p for node n, the node's Lanes: the lanes wait
// for n's lease, defer the tasks of a site behind a paused host (the master deals
// them: held in the lanes they would fill the window), and its renderer starts
// from the verdicts the master gave at join (what the crawl learned before this
// worker joined).
func Join(n *Node, p Parts, c Crawl) Lanes {
	if rd := p.Lanes.Renderer; rd != nil {
		rd.Decider.Restore(n.RenderVerdicts())
	}
	p.Lanes.Run.Lease, p.Lanes.Run.LeaseBound = n.LeaseWait, n.LeaseBound
	p.Lanes.Run.DeferBehindPaused = true
	return joined{c, p}
}

// joined is a worker's crawl as its node sees it (Lanes): the crawl's own life,
// snapshot, pause and controls, and its board's side of the master's batches,
// releases and withdrawals.
type joined struct {
	Crawl
	p Parts
}

func (l joined) Close() { l.Crawl.Close() }

func (l joined) Paused() bool {
	l.p.Mu.Lock()
	defer l.p.Mu.Unlock()
	return l.Crawl.Paused()
}

func (l joined) InHand() int {
	l.p.Mu.Lock()
	defer l.p.Mu.Unlock()
	return l.p.Lanes.InHand()
}

// Place puts a batch of the master's tasks on the board; those for a disabled
// host are deferred back to the master at once.
func (l joined) Place(tasks []frontier.Task) {
	l.p.Mu.Lock()
	for _, t := range tasks {
		l.p.Front.Place(t)
	}
	l.p.Mu.Unlock()
	l.p.Lanes.FlushDeferred()
}

func (l joined) DisableHostFor(host string, d time.Duration) error {
	return l.p.Lanes.DisableHostFor(host, d)
}

func (l joined) Carry(host string, at time.Time) {
	if g := l.p.Lanes.Run.Gate; g != nil {
		g.Carry(host, at)
	}
}

// Release hands back the queued tasks of hosts moving to another worker; tasks in
// hand finish here and report as results.
func (l joined) Release(hosts, units []string) []frontier.Task {
	moving := make(map[string]bool, len(units))
	for _, u := range units {
		moving[u] = true
	}
	lanes := l.p.Lanes
	l.p.Mu.Lock()
	defer l.p.Mu.Unlock()
	var out, stay []frontier.Task
	for _, h := range hosts {
		for _, t := range lanes.OffBoard(lanes.Board.DropHost(h)) {
			if len(units) == 0 || moving[wire.UnitOf(t)] {
				out = append(out, t)
			} else {
				stay = append(stay, t) // another unit's task on a shared host (a social site's keyword shards)
			}
		}
	}
	for _, t := range stay {
		l.p.Front.Place(t)
	}
	return out
}

// Withdraw takes the master's withdrawn hand-outs off this worker's board and keeps
// them off (a batch still in the task stream is withdrawn when it arrives); each is
// reported as a result of kind steered_out (front.Front.Withdraw).
func (l joined) Withdraw(tasks []frontier.Task) int {
	leases := make(map[string]uint64, len(tasks))
	for _, t := range tasks {
		leases[t.URL] = t.Lease
	}
	fr, lanes := l.p.Front, l.p.Lanes
	l.p.Mu.Lock()
	fr.MarkOut(leases)
	out := lanes.OffBoard(lanes.Board.Withdraw(func(t frontier.Task) bool {
		lease, ok := leases[t.URL]
		return ok && lease == t.Lease
	}))
	for _, t := range out {
		fr.SetOut(t)
	}
	l.Crawl.CheckIdle()
	l.p.Mu.Unlock()
	fr.FlushSteeredOut()
	return len(out)
}

func (l joined) Holding() []frontier.Task {
	l.p.Mu.Lock()
	defer l.p.Mu.Unlock()
	return append(l.p.Lanes.Run.InHand(), l.p.Lanes.Board.Tasks()...)
}

func (l joined) Drop(drop func(frontier.Task) bool) {
	l.p.Mu.Lock()
	l.p.Lanes.OffBoard(l.p.Lanes.Board.Withdraw(drop))
	l.p.Mu.Unlock()
}

func (l joined) TakeAll() []frontier.Task {
	l.p.Mu.Lock()
	defer l.p.Mu.Unlock()
	return l.p.Lanes.OffBoard(l.p.Lanes.Board.TakeAll())
}
