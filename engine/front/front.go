package front

import (
	"sync"
	"sync/atomic"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/feeds"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/hostreport"
	"github.com/crawlconsole/crawlconsole/engine/refresh"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/stories"
	"github.com/crawlconsole/crawlconsole/store"
)

// Parts are what a front works with, built by the engine: its lock, options, store
// (nil on a worker) and the frontier's parts it shares with the rest of the crawl.
type Parts struct {
	Mu   *sync.Mutex     // the engine's lock: guards the front's state
	Opts *config.Options // the crawl's options (the engine's copy)
	// Store is nil on a worker, whose front is its master (worker.Front): there the
	// lanes only take their tasks from this front (placing, marks); seeds,
	// steering, discovery and records go to the master, so no path of a worker
	// reaches a method that writes or reads the store, and none checks for nil.
	Store    *store.Store
	Counters *Counters        // the crawl's running totals
	Budgets  *Budgets         // the page budgets' ledger
	Hosts    *hostreport.Book // the hosts report
	Scope    *frontier.Scope
	Dedupe   *frontier.Dedupe     // nil on a worker
	Traps    *frontier.TrapGuard  // nil when every trap guard is off
	Variants *frontier.Canonicals // URL variants and the canonicals remembered

	Sites   *atomic.Pointer[sites.Book] // the declared sites, swapped whole by live steering
	Rounds  *sites.Rounds               // the rounds over the declared sites (M3)
	Tally   *sites.Tally                // per-site figures for the Sites pane
	Revisit *refresh.Runtime            // M2: the revisit tracker, policy, classes and scheduler
	Stories *stories.Book               // articles grouped into stories across URLs and sites
}

// Front is the store side of a crawl's queue: what is queued in memory and what
// spilled to the store, the link inserts on their way, steering's early marks,
// urgent sources and withdrawals, and the page budgets' admission. Its state is
// guarded by the engine's lock (Parts.Mu); a method says when it expects it held.
type Front struct {
	Parts
	crawl Crawl
	disc  *feeds.Discovery // news discovery (NewFeeds); nil when it is off

	q           queueState
	outstanding int                  // URLs handed to the store whose insert result has not come back
	early       map[string]earlyMark // steering's new sources placed before their insert commits (early.go)
	urgent      map[string]bool      // sources added live that go to the head of their lane's queue
	out         steerOut             // queued sources withdrawn by :keyword rm and :site rm (withdrawals.go)
	marks       Marks                // the revisits queued and where they are (marks.go)
	claimed     int                  // revisits marked whose queueing write is on its way, not placed yet (requeue.go)
	end         endCheck             // the store's word before the crawl says it ran dry (endcheck.go)
	placed      atomic.Uint64        // tasks Place was given: work that came since a point (endcheck.go)

	// fresh counts, by URL, the links the dedupe called New whose insert has not
	// come back (Extract to SubmitLinks): a "maybe" batch whose insert of one of
	// them lands first rescued no Bloom false positive.
	fresh map[string]int

	failed  chan struct{} // closed when a store failure stopped the crawl (WatchStore)
	failure error         // that failure, a *StoreError

	// ssrfWarned are the (worker, host) pairs whose refusal by a worker's SSRF guard
	// was logged (a sync.Map of string -> struct{}): once each, not per URL.
	ssrfWarned sync.Map
}

// New builds a crawl's front from its parts, reaching the crawl through c.
func New(p Parts, c Crawl) *Front {
	return &Front{Parts: p, crawl: c, fresh: map[string]int{}, failed: make(chan struct{})}
}
