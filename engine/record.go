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
	// Prepare completes a task a lane is about to fetch: a stored page is a
	// refetch, with its validators for a conditional GET (M2); a Kind it sets
	// ends the task unsent (a URL a fetched page stands for as its canonical).
	Prepare(o *lanes.Outcome)
	// Begin marks the task in progress (back to unprocessed after a crash).
	Begin(t frontier.Task, lane int)
	// Abandon puts the task back to unprocessed: the lane let go of it (stopping).
	Abandon(t frontier.Task, lane int)
	// Deliver hands over a task that ended on the lane.
	Deliver(o lanes.Outcome)
	// DeferURLs sets URLs aside until a time (M3 disabled host, robots.txt down).
	DeferURLs(list []lanes.Deferred)
	// Withdrawn ends a task the operator's steering took out of the queue
	// (front.Front.Withdraw): skipped, kind steered_out.
	Withdrawn(t frontier.Task)
	// Refused records a refusal the crawl acted on, with its evidence and what
	// followed (`show URL` says why), in the store that has the URL.
	Refused(r store.Refusal)
	// RequeueDeferred queues again the deferred URLs whose time has come (the
	// master does it for what its workers deferred).
	RequeueDeferred()
	// EndChecked tells whether the front's store agreed that the crawl ran dry,
	// false while it is asked (front.Front.EndChecked); a worker's master decides, so a
	// worker's front always agrees.
	EndChecked() bool
	// Start, Run, Started and Stop are the front's part of the crawl's Start and
	// Stop (front.go); Close closes its store, if it has one, once the crawl stopped.
	Start() error
	Run()
	Started()
	Stop()
	Close() error
	// Event keeps a warning or an error in the crawl's store.
	Event(ev view.Event)
	// LaneOpened and LaneRetired keep the lanes' history.
	LaneOpened(lane int, egress string, at time.Time)
	LaneRetired(lane int, at time.Time, done int64)
	// The operator's side of the front (front.go): Show adds its panes to a
	// snapshot (revisit, sites, stories), Undefer brings deferred URLs back now (a
	// host enabled again), FeedSeeds queues a batch of a seed list, and Steer makes
	// a live steering change. A worker's front is its master, which does these.
	Show(s *view.Snapshot, now time.Time)
	Undefer(urls []string, now time.Time)
	FeedSeeds(seeds []string) error
	Steer(s steer.Change) (string, error)
	// KnowsHost tells whether the front's store has a URL of host in any state; a
	// worker's front, whose store is its master's, cannot tell and takes every host.
	KnowsHost(host string) (bool, error)
}

// localFront is the frontier side in this process: the store and record.
type localFront struct{ e *Engine }

func (f localFront) Prepare(o *lanes.Outcome) { f.e.fr.Prepare(o) }

func (f localFront) Begin(t frontier.Task, lane int) {
	f.e.st.SetState(t.URL, store.InProgress, lane, "")
}

func (f localFront) Abandon(t frontier.Task, lane int) {
	f.e.st.SetState(t.URL, store.Unprocessed, lane, "")
}

func (f localFront) Deliver(o lanes.Outcome)   { f.e.fr.Record(o) }
func (f localFront) Withdrawn(t frontier.Task) { f.e.fr.EndSteeredOut(t) }

func (f localFront) Refused(r store.Refusal) { f.e.st.AddRefusal(r) }

func (f localFront) Close() error { return f.e.st.Close() }

func (f localFront) KnowsHost(host string) (bool, error) { return f.e.st.HasHost(host) }

func (f localFront) EndChecked() bool { return f.e.fr.EndChecked() }

func (f localFront) DeferURLs(list []lanes.Deferred) {
	for _, d := range list {
		f.e.fr.SetAside(d.Task.URL, d.Task.Host, d.Until, d.Kind, d.Behind)
	}
}
