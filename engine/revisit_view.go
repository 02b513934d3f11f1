package engine

import "time"

// RevisitView is what the console's Revisit pane shows (M2, seed 001; classes and
// windows from seed 003): the pages due next, what refetches found, each class's
// active window and how the learned revisit intervals (t/x) spread.
type RevisitView struct {
	Enabled   bool          // the scheduler requeues due pages (revisit.enabled)
	Policy    string        // "estimator" or "seed" (revisit.policy)
	Threshold int           // Hamming distance above which a page counts as changed
	Every     time.Duration // scheduler period (revisit.every)
	LastTick  time.Time     // when the scheduler last ran; zero before its first tick
	Ticks     int64         // scheduler ticks so far

	Tracked int64 // pages with revisit state (fetched at least once)
	Queued  int   // revisit tasks waiting for a lane or being fetched now

	Refetches   int64 // fetches of pages already stored, 304s included
	Changes     int64 // refetches whose main text changed (Hamming > threshold)
	NotModified int64 // refetches answered 304 to a conditional GET: unchanged, no body
	Unknown     int64 // refetches with no usable text or a failed fetch: nothing learned
	Requeued    int64 // pages put back in the crawl queue (scheduler and :revisit now)

	// Due is the due queue: the first pages by next due time, soonest (or most
	// overdue) first, at most 50. Pages waiting in the crawl queue are counted in
	// Queued, not listed here.
	Due []RevisitDue
	// Windows lists every class with its active window, in the order soc, web_com,
	// web_net, web_edu, web_gov.
	Windows []ClassWindow
	// Intervals is the histogram of the learned interval t/x over pages compared at
	// least once, in ascending log buckets.
	Intervals []IntervalBucket
}

// RevisitDue is one row of the due queue (M2 seed state).
type RevisitDue struct {
	URL      string
	Class    string        // soc, web_com, web_net, web_edu or web_gov
	T        time.Duration // time observed since the first fetch (seed "t")
	X        int           // changes seen, starting at 1 (seed "x")
	Next     time.Time     // when the page is due; before Snapshot.At means overdue
	Distance int           // Hamming distance at the last comparison, -1 before any
	Fetches  int           // fetches of the page so far
}

// ClassWindow is one page class's active window: a page whose first fetch is older
// than it is no longer revisited.
type ClassWindow struct {
	Class  string
	Window time.Duration // 0: no limit
	Pages  int64         // pages of the class with revisit state
}

// IntervalBucket is one bar of the interval histogram: pages whose t/x lies in
// [Min, Max).
type IntervalBucket struct {
	Min, Max time.Duration // Max 0: no upper bound
	Pages    int64
}
