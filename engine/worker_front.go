package engine

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/engine/worker"
	"github.com/crawlconsole/crawlconsole/store"
)

// remoteFront is the frontier side as a worker sees it: the master, over NATS
// (through its node's outbox).
type remoteFront struct {
	e   *Engine
	box *worker.Outbox
	// renderCuts counts the pages whose render captures were cut to fit a report.
	renderCuts atomic.Int64
}

// prepare: the master set Refetch and validators, and Stood on a URL a fetched
// page stands for as its canonical, which ends unsent.
func (f *remoteFront) Prepare(o *lanes.Outcome) {
	if o.Task.Stood {
		o.Kind = front.SkipCanonicalVariant
	}
}

func (f *remoteFront) Begin(frontier.Task, int)       {} // the master marked it in progress when it handed it out
func (f *remoteFront) Abandon(t frontier.Task, _ int) {} // stopping: the master requeues what this worker held
// deliver sends an outcome to the master as a result (worker.Report: what the
// master's record reads of the page, from the parse that found its links).
func (f *remoteFront) Deliver(o lanes.Outcome) {
	if o.Res != nil {
		f.e.c.Response(o.Res.Status) // the worker's own rate, for its heartbeat
		f.e.c.BytesFetched.Add(int64(len(o.Res.Body)))
	}
	r := worker.Report(o, front.RecordHeaders, front.ParsedMeta)
	if cut := worker.FitRender(&r, worker.MaxRenderBytes); cut != "" {
		n := f.renderCuts.Add(1)
		f.e.logf(view.LevelWarn, o.Lane, o.Task.Host, "render captures of %s over a report's %d MiB: %s left out of the master's archive (%d pages so far)",
			o.Task.URL, worker.MaxRenderBytes>>20, cut, n)
	}
	f.box.Result(r)
}

func (f *remoteFront) DeferURLs(list []lanes.Deferred) {
	for _, d := range list {
		f.box.Defer(d.Task, d.Until)
	}
}

func (f *remoteFront) RequeueDeferred() {} // the master requeues what its workers deferred

func (f *remoteFront) EndChecked() bool { return true } // the master checks its store

// The front's life and the lanes' history are the master's: nothing to keep here.

func (f *remoteFront) Start() error                      { return nil }
func (f *remoteFront) Run()                              {}
func (f *remoteFront) Started()                          {}
func (f *remoteFront) Stop()                             {}
func (f *remoteFront) Close() error                      { return nil }
func (f *remoteFront) Event(view.Event)                  {}
func (f *remoteFront) LaneOpened(int, string, time.Time) {}
func (f *remoteFront) LaneRetired(int, time.Time, int64) {}

// The operator's side of the front is the master's: a worker's console shows no
// revisit, sites or stories pane, its deferred URLs come back at the master, and
// seeds and steering go to the master.

func (f *remoteFront) Show(*view.Snapshot, time.Time) {}
func (f *remoteFront) Undefer([]string, time.Time)    {}
func (f *remoteFront) FeedSeeds([]string) error {
	return errors.New("seed list: a worker has no queue of its own; give seeds to its master")
}
func (f *remoteFront) Steer(steer.Change) (string, error) {
	return "", errors.New("steering changes are made on the master of a distributed crawl (crawlconsole ctl --attach URL ...)")
}

// refused keeps a refusal for the master's store: it travels with the next report.
func (f *remoteFront) Refused(r store.Refusal) { f.box.Refused(r) }

// send reports an outcome the worker decided itself (a task withdrawn from its board).
func (f *remoteFront) send(r wire.Result) { f.box.Result(r) }

// withdrawn reports a hand-out the master withdrew as a result of kind steered_out:
// the master ends it under its lease, as any other result.
func (f *remoteFront) Withdrawn(t frontier.Task) {
	f.send(wire.Result{Task: t, Kind: front.SkipSteeredOut, At: f.e.now()})
}
