package worker

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
	"github.com/crawlconsole/crawlconsole/store/model"
)

// Logf adds an event to the worker's log, with the lane and host it is about.
type Logf func(level view.Level, lane int, host, format string, args ...any)

// Front is the frontier side as a worker's lanes see it: the master, over NATS
// (through the node's outbox). Each task that ends here goes to the master as a
// result, each URL set aside as a deferral; the store, the queue's life, the
// operator's panes, seeds and steering are the master's, so the rest is empty
// here.
type Front struct {
	box  *Outbox
	c    *front.Counters // the worker's own figures, for its heartbeat and console
	logf Logf
	now  func() time.Time
	// renderCuts counts the pages whose render captures were cut to fit a report.
	renderCuts atomic.Int64
}

// Front is the front of the lanes n runs: it reports through n's outbox, counts
// what it sends in c, and logs and dates through logf and now.
func (n *Node) Front(c *front.Counters, logf Logf, now func() time.Time) *Front {
	return &Front{box: n.box, c: c, logf: logf, now: now}
}

// Prepare: the master set Refetch and validators, and Stood on a URL a fetched
// page stands for as its canonical, which ends unsent.
func (f *Front) Prepare(o *lanes.Outcome) {
	if o.Task.Stood {
		o.Kind = front.SkipCanonicalVariant
	}
}

// Begin: the master marked the task in progress when it handed it out.
func (f *Front) Begin(frontier.Task, int) {}

// Abandon: stopping, the master requeues what this worker held.
func (f *Front) Abandon(frontier.Task, int) {}

// Deliver sends an outcome to the master as a result (Report: what the master's
// record reads of the page, from the parse that found its links).
func (f *Front) Deliver(o lanes.Outcome) {
	if o.Res != nil {
		f.c.Response(o.Res.Status) // the worker's own rate, for its heartbeat
		f.c.BytesFetched.Add(int64(len(o.Res.Body)))
	}
	r := Report(o, front.RecordHeaders, front.ParsedMeta)
	if cut := FitRender(&r, MaxRenderBytes); cut != "" {
		n := f.renderCuts.Add(1)
		f.logf(view.LevelWarn, o.Lane, o.Task.Host, "render captures of %s over a report's %d MiB: %s left out of the master's archive (%d pages so far)",
			o.Task.URL, MaxRenderBytes>>20, cut, n)
	}
	f.box.Result(r)
}

// DeferURLs sends each URL set aside to the master as a deferral, with the kind it
// counts under and the held host it waits behind: the master defers it and counts
// it so, it counts no fetch.
func (f *Front) DeferURLs(list []lanes.Deferred) {
	for _, d := range list {
		f.box.Defer(d)
	}
}

// RequeueDeferred: the master requeues what its workers deferred.
func (f *Front) RequeueDeferred() {}

// EndChecked: the master checks its store and decides the end.
func (f *Front) EndChecked() bool { return true }

// Start, Run, Started, Stop, Close, Event, LaneOpened and LaneRetired do nothing on
// a worker: the front's life and the lanes' history are the master's.
func (f *Front) Start() error                      { return nil }
func (f *Front) Run()                              {}
func (f *Front) Started()                          {}
func (f *Front) Stop()                             {}
func (f *Front) Close() error                      { return nil }
func (f *Front) Event(view.Event)                  {}
func (f *Front) LaneOpened(int, string, time.Time) {}
func (f *Front) LaneRetired(int, time.Time, int64) {}

// Show and Undefer do nothing: a worker's console shows no revisit, sites or
// stories pane, and its deferred URLs come back at the master.
func (f *Front) Show(*view.Snapshot, time.Time) {}
func (f *Front) Undefer([]string, time.Time)    {}

// FeedSeeds refuses: seeds go to the master.
func (f *Front) FeedSeeds([]string) error {
	return errors.New("seed list: a worker has no queue of its own; give seeds to its master")
}

// KnowsHost takes every host: the store that knows the crawl's hosts is the
// master's.
func (f *Front) KnowsHost(string) (bool, error) { return true, nil }

// Steer refuses: steering changes go to the master.
func (f *Front) Steer(steer.Change) (string, error) {
	return "", errors.New("steering changes are made on the master of a distributed crawl (crawlconsole ctl --attach URL ...)")
}

// Refused keeps a refusal for the master's store: it travels with the next report.
func (f *Front) Refused(r model.Refusal) { f.box.Refused(r) }

// Withdrawn reports a hand-out the master withdrew as a result of kind
// steered_out: the master ends it under its lease, as any other result.
func (f *Front) Withdrawn(t frontier.Task) {
	f.box.Result(wire.Result{Task: t, Kind: front.SkipSteeredOut, At: f.now()})
}
