package view

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
	// FirstPlanned counts new pages whose first revisit the estimator planned from
	// what their site's earlier pages showed (revisit.FirstPlanner), instead of M2's
	// blind refetch revisit.initial later; FirstProbed, new pages of those sites
	// refetched after revisit.initial all the same, to keep that evidence current.
	FirstPlanned, FirstProbed int64

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
	// Plans is, per class in the order of Windows, where its schedule is heading
	// (objective, budget, expected freshness and age, pages not followed); empty
	// under the seed policy, which plans no class.
	Plans []ClassPlan
	// Behind lists pages the budget cannot follow, at most 20, in URL order.
	Behind []RevisitBehind
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
	// The evidence of the last change: its SimHash distance (-1: none
	// yet), why it counted ("main text edited", "headline changed"; "simhash" on a
	// page without an article), why the latest comparison did or did not count
	// ("only boilerplate moved"), and whether the page has no recognisable article
	// (its fingerprint is of all its visible text).
	ChangeDistance  int
	ChangeReason    string
	LastReason      string
	BoilerplateOnly bool // the latest comparison: only the page around the article moved
	Fallback        bool
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

// RevisitStats is the --stats-json "revisit" object (M2).
type RevisitStats struct {
	Refetches   int64 `json:"refetches"`    // fetches of pages already stored, 304s included
	Changes     int64 `json:"changes"`      // refetches that found the main text changed
	NotModified int64 `json:"not_modified"` // refetches answered 304: unchanged, no body
	Unknown     int64 `json:"unknown"`      // refetches that taught nothing (no text, errors)
	Requeued    int64 `json:"requeued"`     // pages put back in the crawl queue
	// FirstPlanned are new pages whose first revisit was planned from their site's
	// evidence, FirstProbed those refetched after revisit.initial to keep it current.
	FirstPlanned int64 `json:"first_planned"`
	FirstProbed  int64 `json:"first_probed"`
}

// ClassPlan is where one page class's revisit schedule is heading: the
// objective and budget it is planned with, and the freshness and age its pages'
// estimated change rates and planned fetch frequencies lead to (revisit.Outlook),
// with the pages the budget cannot follow.
type ClassPlan struct {
	Class     string
	Objective string        // freshness, age or balanced
	Budget    float64       // fetches per page per day
	Pages     int           // pages with an estimate (compared at least once under the estimator)
	Fresh     float64       // expected share of the class's pages fresh at a time; 0 without pages
	Age       time.Duration // expected mean age of a page (0 while fresh); 0 without pages
	Behind    int           // pages that change over revisit.FollowFactor × as often as they are fetched
}

// RevisitBehind is one page the revisit budget cannot follow: it changes far faster
// than it is fetched, so most of its changes are never seen.
type RevisitBehind struct {
	URL   string
	Class string
	Rate  float64 // estimated changes per day (revisit.EstimateRate)
	Freq  float64 // planned fetches per day
}
