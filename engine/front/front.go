package front

import (
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
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
	Now() time.Time
	Logf(level view.Level, host, format string, args ...any)
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
}

// New builds a crawl's front from its parts, reaching the crawl through c.
func New(p Parts, c Crawl) *Front {
	return &Front{Parts: p, crawl: c, maybeNew: map[string]struct{}{}}
}
