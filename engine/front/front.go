package front

import (
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Crawl is what the front needs from the crawl around it: who fetches its tasks
// (the crew: this process's lane board, or a master's workers), the revisit marks,
// the crawl's idle check, its background work, its clock and its log. The engine
// implements it. Methods marked "lock held" are called with the engine's lock held
// and must not take it; the others are called without it.
type Crawl interface {
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
	// Unmark drops the revisit mark of a task that left the queue for good. Lock held.
	Unmark(url string)
	// CheckIdle ends the crawl's discovery when nothing is left. Lock held.
	CheckIdle()
	// Withdrawn ends a task the operator's steering withdrew, on the frontier side
	// (the store here; the master, as a result, on a worker).
	Withdrawn(t frontier.Task)
	// Classify is a host's site (a declared site's name, else its registered
	// domain) and its page class.
	Classify(host string) (site, class string)
	// Go runs f in the background, counted by the crawl's Stop; false, and f not
	// run, when the crawl is stopping.
	Go(f func()) bool
	// Stopping reports whether the crawl is stopping.
	Stopping() bool
	// Wake wakes everything waiting for a resume (a store failure stops them). Lock held.
	Wake()
	// Cancel stops the crawl's work: lanes, schedulers, the master's dispatch.
	Cancel()
	Now() time.Time
	Logf(level view.Level, host, format string, args ...any)
	// LaneLogf is Logf for a lane's task.
	LaneLogf(level view.Level, lane int, host, format string, args ...any)

	// What recording a task's end needs besides the store: the revisit state (M2),
	// the discovery (nil when off), the fetch costs, the archive, the rounds and
	// the Sites pane, the stories and the adjacency pane.

	// RevisitState is the revisit state of a page about to be fetched: prev nil for
	// a first fetch; track false when it could not be read.
	RevisitState(t frontier.Task) (prev *revisit.Page, track bool)
	// Observe applies one fetch outcome to a page's state in its class and returns
	// the state to store; prev is nil for a first fetch.
	Observe(url string, prev *revisit.Page, now time.Time, o revisit.Outcome) *store.Revisit
	// KeepReplacedText keeps the text a refetch replaces, for the Revisit pane.
	KeepReplacedText(url string, rv *store.Revisit)
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
	// Running reports whether the crawl is running (not starting, not stopping). Lock held.
	Running() bool
	// DueRevisits takes the pages due for a revisit now (M2), parked until requeued.
	DueRevisits(now time.Time) ([]string, error)
	// InWindow tells whether a page on host first fetched at first is inside its
	// class's revisit window now (M2/M3).
	InWindow(host string, first, now time.Time) bool
	// MarkRevisit marks url queued as a revisit; false when it is already. Lock held.
	MarkRevisit(url string) bool
	// RevisitQueued tells whether url is queued as a revisit. Lock held.
	RevisitQueued(url string) bool
	// Requeued counts revisits put back in the queue.
	Requeued(n int)
	// FlushDeferred writes the deferrals set aside so far.
	FlushDeferred()
	// LinkedFrom remembers the URL of a page whose links were queued (the
	// adjacency pane names a parent by it).
	LinkedFrom(hash uint64, url string)
}

// Parts are what a front works with, built by the engine: its lock, options, store
// (nil on a worker) and the frontier's parts it shares with the rest of the crawl.
type Parts struct {
	Mu       *sync.Mutex      // the engine's lock: guards the front's state
	Opts     *config.Options  // the crawl's options (the engine's copy)
	Store    *store.Store     // nil on a worker, whose front is its master
	Counters *Counters        // the crawl's running totals
	Budgets  *Budgets         // the page budgets' ledger
	Hosts    *hostreport.Book // the hosts report
	Scope    *frontier.Scope
	Dedupe   *frontier.Dedupe     // nil on a worker
	Traps    *frontier.TrapGuard  // nil when every trap guard is off
	Variants *frontier.Canonicals // URL variants and the canonicals remembered
}

// Front is the store side of a crawl's queue: what is queued in memory and what
// spilled to the store, the link inserts on their way, steering's early marks,
// urgent sources and withdrawals, and the page budgets' admission. Its state is
// guarded by the engine's lock (Parts.Mu); a method says when it expects it held.
type Front struct {
	Parts
	crawl Crawl

	q           queueState
	outstanding int                  // URLs handed to the store whose insert result has not come back
	maybeNew    map[string]struct{}  // Bloom "maybe" links the store did not have when asked, until it reports them
	early       map[string]earlyMark // steering's new sources placed before their insert commits (early.go)
	urgent      map[string]bool      // sources added live that go to the head of their lane's queue
	out         steerOut             // queued sources withdrawn by :keyword rm and :site rm (withdrawals.go)

	failed  chan struct{} // closed when a store failure stopped the crawl (WatchStore)
	failure error         // that failure, a *StoreError

	// ssrfWarned are the (worker, host) pairs whose refusal by a worker's SSRF guard
	// was logged (a sync.Map of string -> struct{}): once each, not per URL.
	ssrfWarned sync.Map
}

// New builds a crawl's front from its parts, reaching the crawl through c.
func New(p Parts, c Crawl) *Front {
	return &Front{Parts: p, crawl: c, maybeNew: map[string]struct{}{}, failed: make(chan struct{})}
}
