package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/local"
	"github.com/crawlconsole/crawlconsole/engine/master"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/engine/worker"
	"github.com/crawlconsole/crawlconsole/store"
)

// Worker is a running worker of a distributed crawl (M4): a worker.Node, the
// conversation with the master, around an Engine built in the worker role (lanes,
// no store; its front is the master). Leave ends it gracefully; Close ends it at
// once (the master reassigns what it held after the heartbeat timeout).
type Worker struct {
	*worker.Node
	e *Engine
}

// StartWorker joins the master and starts fetching what it hands out.
func StartWorker(o config.WorkerOptions) (*Worker, error) {
	w := &Worker{}
	n, err := worker.Start(o, func(n *worker.Node, opts config.Options, granted []egress.Spec) (worker.Lanes, error) {
		e, err := newEngine(opts, workerRole{&local.Supply{Granted: granted, Claim: n.Claim}})
		if err != nil {
			return nil, err
		}
		if rd := e.lanes.Renderer; rd != nil { // what the crawl learned before this worker joined
			rd.Decider.Restore(n.RenderVerdicts())
		}
		e.front = &remoteFront{e: e, box: n.Outbox()}
		e.lanes.Run.Lease = n.LeaseWait
		w.e = e
		return workerLanes{e}, nil
	})
	if err != nil {
		return nil, err
	}
	w.Node = n
	return w, nil
}

// Engine is the worker's lane half, for a local console or tests (Snapshot).
func (w *Worker) Engine() *Engine { return w.e }

// workerRole is a worker's part of a crawl (role): the lanes, with the egresses its
// master granted, and no store (its front is the master).
type workerRole struct{ we *local.Supply }

func (workerRole) name() string                                   { return view.RoleWorker }
func (workerRole) openStore(config.Options) (*store.Store, error) { return nil, nil }
func (workerRole) ssrfFix() string {
	return "start this worker with --allow-private %s (every worker that may fetch it needs it)"
}
func (r workerRole) equip(e *Engine) error                { return e.equipLanes(r.we, nil) }
func (workerRole) started(*Engine)                        {}              // nothing resumed: the queue is the master's
func (workerRole) waitsWhenDry(*config.Options) bool      { return true } // the master decides the end
func (workerRole) telemetry(e *Engine, t *view.Telemetry) { e.lanes.Telemetry(t) }

// workerLanes is a worker's engine as its node sees it (worker.Lanes): the
// engine's own Start, Snapshot, Pause, Resume and operator's controls, and its
// board's side of the master's batches, releases and withdrawals.
type workerLanes struct{ *Engine }

var _ worker.Lanes = workerLanes{}

func (l workerLanes) Close() { l.Engine.Close() }
func (l workerLanes) Logf(level view.Level, format string, args ...any) {
	l.logf(level, 0, "", format, args...)
}

func (l workerLanes) Paused() bool {
	l.Engine.mu.Lock()
	defer l.Engine.mu.Unlock()
	return l.Engine.paused
}

func (l workerLanes) InHand() int {
	l.Engine.mu.Lock()
	defer l.Engine.mu.Unlock()
	return l.Engine.lanes.InHand()
}

// Place puts a batch of the master's tasks on the board; those for a disabled
// host are deferred back to the master at once.
func (l workerLanes) Place(tasks []frontier.Task) {
	e := l.Engine
	e.mu.Lock()
	for _, t := range tasks {
		e.fr.Place(t)
	}
	e.mu.Unlock()
	e.lanes.FlushDeferred()
}

func (l workerLanes) Carry(host string, at time.Time) {
	if g := l.Engine.lanes.Run.Gate; g != nil {
		g.Carry(host, at)
	}
}

// Release hands back the queued tasks of hosts moving to another worker; tasks in
// hand finish here and report as results.
func (l workerLanes) Release(hosts, units []string) []frontier.Task {
	moving := make(map[string]bool, len(units))
	for _, u := range units {
		moving[u] = true
	}
	e := l.Engine
	e.mu.Lock()
	defer e.mu.Unlock()
	var out, stay []frontier.Task
	for _, h := range hosts {
		for _, t := range e.lanes.OffBoard(e.lanes.Board.DropHost(h)) {
			if len(units) == 0 || moving[master.UnitOf(t)] {
				out = append(out, t)
			} else {
				stay = append(stay, t) // another unit's task on a shared host (a social site's keyword shards)
			}
		}
	}
	for _, t := range stay {
		e.fr.Place(t)
	}
	return out
}

// Withdraw takes the master's withdrawn hand-outs off this worker's board and keeps
// them off (a batch still in the task stream is withdrawn when it arrives); each is
// reported as a result of kind steered_out (front.Front.Withdraw).
func (l workerLanes) Withdraw(tasks []frontier.Task) int {
	leases := make(map[string]uint64, len(tasks))
	for _, t := range tasks {
		leases[t.URL] = t.Lease
	}
	e := l.Engine
	e.mu.Lock()
	e.fr.MarkOut(leases)
	out := e.lanes.OffBoard(e.lanes.Board.Withdraw(func(t frontier.Task) bool {
		lease, ok := leases[t.URL]
		return ok && lease == t.Lease
	}))
	for _, t := range out {
		e.fr.SetOut(t)
	}
	e.checkIdle()
	e.mu.Unlock()
	e.fr.FlushSteeredOut()
	return len(out)
}

func (l workerLanes) Holding() []frontier.Task {
	l.Engine.mu.Lock()
	defer l.Engine.mu.Unlock()
	return append(l.Engine.lanes.Run.InHand(), l.Engine.lanes.Board.Tasks()...)
}

func (l workerLanes) Drop(drop func(frontier.Task) bool) {
	l.Engine.mu.Lock()
	l.Engine.lanes.OffBoard(l.Engine.lanes.Board.Withdraw(drop))
	l.Engine.mu.Unlock()
}

func (l workerLanes) TakeAll() []frontier.Task {
	l.Engine.mu.Lock()
	defer l.Engine.mu.Unlock()
	return l.Engine.lanes.OffBoard(l.Engine.lanes.Board.TakeAll())
}
