// Package revisit keeps crawled pages fresh without refetching pages that did not
// change (M2, seed 001) and builds the per-round crawl list (M3, seed 003).
//
// It schedules; it does not read pages. One page's life: the engine fetches it, signs
// the body with engine/page (the main text's SimHash and digests) or notes a 304, and
// hands the result to [Tracker.Observe], which judges change from churn, updates the
// page's seed state (t, x, last, next, hash) and asks the configured [Policy] when the page is due
// again. A [Scheduler] ticks (default every minute), takes the first m pages by
// ascending next from a [Store], sets their next to [Never] so they are not picked
// twice, and returns them for requeueing.
//
// Two policies are offered, picked by [NewPolicy] from config: [SeedPolicy] (next =
// last + t/x) and [EstimatorPolicy] (Cho & Garcia-Molina's change model and optimal
// allocation of a fetch budget, learned from the pages' visit histories), the default
// because `go run ./bench revisit` measures it fresher at equal cost than the seed's
// rule, a fixed interval and Nutch's AdaptiveFetchSchedule, and close to an oracle
// that knows the true change rates. What the budget buys is its [Objective]
// (freshness, age, or the balanced default that beats Nutch on freshness, age and
// changes captured at once); [ClassPolicy] plans page classes apart, each with its
// objective and budget, and [Outlook] says where each class's schedule is heading.
//
// Rounds (seed 003): [Classifier] tags each URL soc/web_com/web_net/web_edu/web_gov,
// [Windows] says how long a class stays worth revisiting, [FilterKnown] drops URLs
// outside their window, [Interleave] mixes hosts, and [CostTable] records what each
// site (or site+keyword) cost in the round.
package revisit
