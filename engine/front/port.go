package front

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Crawl is what the front needs from the crawl around it, in three parts: who
// fetches its tasks (Crew), what recording a page feeds besides the store and the
// front's own parts (Pages), and the crawl's life, clock and log (Life). The
// engine implements it (engine/frontport.go). Methods marked "Lock held" are called
// with the engine's lock held and must not take it; the others are called without.
type Crawl interface {
	Crew
	Pages
	Life
}

// Crew is who fetches the front's tasks: this process's lane board, or a master's
// workers.
type Crew interface {
	// Place queues a task the front admitted (steering and budgets checked). Lock held.
	Place(t frontier.Task)
	// Counts are the tasks waiting in memory and those being fetched. Lock held.
	Counts() (waiting, inHand int)
	// CountsAtHandOut tells whether the crew counts page budgets itself as it hands
	// tasks out (a master); placing then leaves them to it.
	CountsAtHandOut() bool
	// PlacesEarly tells whether steering's new sources are placed before their
	// insert commits (not on a master, whose workers' queues are its board).
	PlacesEarly() bool
	// Withdraw takes the tasks drop selects out of the crew's queue, each ended by
	// SetOut; held withdraws those already handed out, without the lock, and counts
	// them. Lock held.
	Withdraw(drop func(frontier.Task) bool) (n int, held func() int)
	// TakeOff takes the tasks match selects off the lane board, uncounted. Lock held.
	TakeOff(match func(frontier.Task) bool)
	// Defer sets a task aside until a time (a budget held it back). Lock held.
	Defer(t frontier.Task, until time.Time)
	// FlushDeferred writes the deferrals set aside so far.
	FlushDeferred()
	// Recall takes back, to be counted again, the tasks handed out that match
	// selects and no lane has in hand (a budget lowered live), and returns how many
	// came back.
	Recall(match func(frontier.Task) bool) int
	// Withdrawn ends a task the operator's steering withdrew, on the frontier side
	// (the store here; the master, as a result, on a worker).
	Withdrawn(t frontier.Task)
}

// Pages is what a link and a recorded page feed besides the store and the front's
// own parts: the refusals' count and the adjacency pane.
type Pages interface {
	// DirectRefusals tells whether a refusal is counted as the front records it
	// (no egress rotation: nothing counted it on the lane).
	DirectRefusals() bool
	// LinkedFrom remembers the URL of a page whose links were queued (the
	// adjacency pane names a parent by it).
	LinkedFrom(hash uint64, url string)
}

// Life is the crawl's state, background work, clock and log.
type Life interface {
	// Running reports whether the crawl is running (not starting, not stopping). Lock held.
	Running() bool
	// CheckIdle ends the crawl's discovery when nothing is left. Lock held.
	CheckIdle()
	// Dry reports whether the crawl's discovery has run dry: nothing queued, no
	// lane at work, no link insert outstanding. Lock held.
	Dry() bool
	// Go runs f in the background, counted by the crawl's Stop; false, and f not
	// run, when the crawl is stopping.
	Go(f func()) bool
	// Stopping reports whether the crawl is stopping.
	Stopping() bool
	// Wake wakes everything waiting for a resume (a store failure stops them). Lock held.
	Wake()
	// Cancel stops the crawl's work: lanes, schedulers, the master's dispatch.
	Cancel()
	// Now is the crawl's clock.
	Now() time.Time
	// Logf records an event in the crawl's log.
	Logf(level view.Level, host, format string, args ...any)
	// LaneLogf is Logf for a lane's task.
	LaneLogf(level view.Level, lane int, host, format string, args ...any)
}
