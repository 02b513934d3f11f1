package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// frontPort is what a lane needs from the frontier side: this process's store and
// record on one box, the master on a worker of a distributed crawl (M4).
type frontPort interface {
	// prepare completes a task a lane is about to fetch: a stored page is a
	// refetch, with its validators for a conditional GET (M2); a Kind it sets
	// ends the task unsent (a URL a fetched page stands for as its canonical).
	prepare(o *lanes.Outcome)
	// begin marks the task in progress (back to unprocessed after a crash).
	begin(t frontier.Task, lane int)
	// abandon puts the task back to unprocessed: the lane let go of it (stopping).
	abandon(t frontier.Task, lane int)
	// deliver hands over a task that ended on the lane.
	deliver(o lanes.Outcome)
	// deferURLs sets URLs aside until a time (M3 disabled host, robots.txt down).
	deferURLs(list []lanes.Deferred)
	// withdrawn ends a task the operator's steering took out of the queue
	// (front.Front.Withdraw): skipped, kind steered_out.
	withdrawn(t frontier.Task)
	// refused records a refusal the crawl acted on, with its evidence and what
	// followed (`show URL` says why), in the store that has the URL.
	refused(r store.Refusal)
	// requeueDeferred queues again the deferred URLs whose time has come (the
	// master does it for what its workers deferred).
	requeueDeferred()
	// endChecked tells whether the front's store agreed that the crawl ran dry,
	// false while it is asked (front.Front.EndChecked); a worker's master decides, so a
	// worker's front always agrees.
	endChecked() bool
	// start, run, started and stop are the front's part of the crawl's Start and
	// Stop (front.go); close closes its store, if it has one, once the crawl stopped.
	start() error
	run()
	started()
	stop()
	close() error
	// event keeps a warning or an error in the crawl's store.
	event(ev view.Event)
	// laneOpened and laneRetired keep the lanes' history.
	laneOpened(lane int, egress string, at time.Time)
	laneRetired(lane int, at time.Time, done int64)
	// The operator's side of the front (front.go): show adds its panes to a
	// snapshot (revisit, sites, stories), undefer brings deferred URLs back now (a
	// host enabled again), feedSeeds queues a batch of a seed list, and steer makes
	// a live steering change. A worker's front is its master, which does these.
	show(s *view.Snapshot, now time.Time)
	undefer(urls []string, now time.Time)
	feedSeeds(seeds []string) error
	steer(s steer.Change) (string, error)
}

// localFront is the frontier side in this process: the store and record.
type localFront struct{ e *Engine }

func (f localFront) prepare(o *lanes.Outcome) { f.e.fr.Prepare(o) }

func (f localFront) begin(t frontier.Task, lane int) {
	f.e.st.SetState(t.URL, store.InProgress, lane, "")
}

func (f localFront) abandon(t frontier.Task, lane int) {
	f.e.st.SetState(t.URL, store.Unprocessed, lane, "")
}

func (f localFront) deliver(o lanes.Outcome)   { f.e.fr.Record(o) }
func (f localFront) withdrawn(t frontier.Task) { f.e.fr.EndSteeredOut(t) }

func (f localFront) refused(r store.Refusal) { f.e.st.AddRefusal(r) }

func (f localFront) close() error { return f.e.st.Close() }

func (f localFront) endChecked() bool { return f.e.fr.EndChecked() }

func (f localFront) deferURLs(list []lanes.Deferred) {
	for _, d := range list {
		f.e.st.Defer(d.Task.URL, d.Until)
		f.e.c.Deferred.Add(1)
	}
}
