package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/lanes/local"
	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/engine/worker"
	"github.com/crawlconsole/crawlconsole/store"
)

// Worker is a running worker of a distributed crawl (M4): a worker.Node, the
// conversation with the master, around an Engine built in the worker role (lanes,
// no store; its front is the master, worker.Front). Leave ends it gracefully;
// Close ends it at once (the master reassigns what it held after the heartbeat
// timeout).
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
		e.front = n.Front(&e.c, e.logf, e.now)
		w.e = e
		return worker.Join(n, worker.Parts{Mu: &e.mu, Lanes: e.lanes, Front: e.fr}, workerCrawl{e}), nil
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
func (workerRole) verdicts(e *Engine) render.Verdicts     { return e.laneVerdicts() }

// workerCrawl is the engine as its worker node's crawl (worker.Crawl).
type workerCrawl struct{ *Engine }

func (c workerCrawl) Logf(level view.Level, format string, args ...any) {
	c.logf(level, 0, "", format, args...)
}
func (c workerCrawl) Paused() bool { return c.paused }
func (c workerCrawl) CheckIdle()   { c.checkIdle() }
