package front

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Crawl is what the front needs from the crawl around it, in four parts: who
// fetches its tasks (Crew), the revisit runtime (Revisits), what recording a page
// feeds besides the store (Pages), and the crawl's life, clock and log (Life). The
// engine implements it (engine/frontport.go). Methods marked "Lock held" are called
// with the engine's lock held and must not take it; the others are called without.
type Crawl interface {
	Crew
	Revisits
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
	// Withdrawn ends a task the operator's steering withdrew, on the frontier side
	// (the store here; the master, as a result, on a worker).
	Withdrawn(t frontier.Task)
}

// Revisits is the crawl's revisit runtime (M2).
type Revisits interface {
	// RevisitState is the revisit state of a page about to be fetched: prev nil for
	// a first fetch; track false when it could not be read.
	RevisitState(t frontier.Task) (prev *revisit.Page, track bool)
	// Observe applies one fetch outcome to a page's state in its class and returns
	// the state to store; prev is nil for a first fetch.
	Observe(url string, prev *revisit.Page, now time.Time, o revisit.Outcome) *store.Revisit
	// KeepReplacedText keeps the text a refetch replaces, for the Revisit pane.
	KeepReplacedText(url string, rv *store.Revisit)
	// DueRevisits takes the pages due for a revisit now, parked until requeued.
	DueRevisits(now time.Time) ([]string, error)
	// InWindow tells whether a page on host first fetched at first is inside its
	// class's revisit window now (M2/M3).
	InWindow(host string, first, now time.Time) bool
	// Requeued counts revisits put back in the queue.
	Requeued(n int)
}

// Pages is what a link and a recorded page feed besides the store: the sites'
// classes, discovery (nil when off), the fetch costs, the archive, the rounds and
// the Sites pane, the stories and the adjacency pane.
type Pages interface {
	// Classify is a host's site (a declared site's name, else its registered
	// domain) and its page class.
	Classify(host string) (site, class string)
	// Discovery is the crawl's news discovery; nil when it is off.
	Discovery() *feeds.Discovery
	// DirectRefusals tells whether a refusal is counted as the front records it
	// (no egress rotation: nothing counted it on the lane).
	DirectRefusals() bool
	// CountCost adds a response's fetch cost to its site's (M3).
	CountCost(t frontier.Task, res *fetch.Result)
	// SaveCaptures archives the exchanges of o (WARC export) and returns the one to
	// store with the page when keepPage.
	SaveCaptures(o lanes.Outcome, refetch, keepPage bool) *store.Capture
	// Collect counts a page toward its round's results (M3).
	Collect(t frontier.Task, res *fetch.Result, published, now time.Time)
	// IsSource tells whether a URL is a declared site's entry or search.
	IsSource(url string) bool
	// RefetchResults queues again the results of an entry or a search the URL
	// index knew (M3: a round refetches those still inside their class window).
	RefetchResults(known []string, now time.Time)
	// GroupStory groups a first-fetched article into its story.
	GroupStory(t frontier.Task, res *fetch.Result, text page.Text, published, at time.Time)
	// NoteStored counts a page first stored, once committed, for its site.
	NoteStored(t frontier.Task, published, at time.Time)
	// SourceFetched notes a declared site's source fetched again (the Sites pane).
	SourceFetched(site string, at time.Time)
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
