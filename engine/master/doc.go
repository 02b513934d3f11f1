// Package master is the bookkeeping of a distributed crawl's master (M4): the
// workers it knows (the node table), the assignment units each holds (seed 003: a
// news site, a social site's keyword shard, the registered domain of other hosts),
// the URLs waiting at the master for their unit's worker, the hand-outs in flight
// and their leases, the cost table that balancing deals from, and the console's
// numbering of the workers' lanes.
//
// A Table knows no transport and no store. A Link holds the master's conversation
// with its workers over the transport (package cluster/wire's messages): their joins,
// heartbeats, claims, leaves and deaths, and the operator's controls and rebalances;
// it asks the table under the lock the Host port gives, and reaches the crawl only
// through that port (the event log, the clock, the crawl's pause, the settings a
// worker follows, the store's meta table). A Runtime runs the two over the
// transport: it dispatches batches, commits the workers' results and deferrals and
// carries out the operator's controls, reaching the crawl through the Crawl port.
// A Crew is the master as its crawl's crew (package crew): the Runtime, and its
// Crawl port over the crawl's parts (Parts: store, front, budgets, revisit
// runtime) and life (Shell: lock, clock, log, pause), with the render verdicts its
// workers learn (verdicts.Book).
// What the table needs from the crawl's front while it moves tasks is the Front
// port. So the dealing, the moves and the balancing are tested here on their own,
// with no NATS server and no database.
//
// A Table is not safe for concurrent use: its caller holds one lock around every
// call (the engine's mutex, which also guards the queue the tasks come from).
package master
