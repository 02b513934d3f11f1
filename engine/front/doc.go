// Package front is the store side of a crawl's queue, shared by a one-box crawl
// and a master (a worker's front is its master): the seeds and links handed to the
// store and queued as it confirms them, the queue's spill to the store and its
// page-in, link extraction (scope, variants, trap guards, dedupe), the page
// budgets' ledger and admission, steering's early marks, urgent sources and
// withdrawals, the crawl's counters and skip kinds, and the store failure's record.
//
// It owns that state and reaches the rest of the crawl only through the Crawl port
// (who fetches the tasks, the revisit marks, the idle check, background work, the
// clock and the log), which the engine implements (engine/frontport.go); it never
// imports the engine root.
//
// Its state is guarded by the engine's lock (Parts.Mu), as the lanes' is: a method
// says "Lock held" when it expects that lock held; the others take it themselves.
// Store calls never happen under it except the non-blocking queueing ones.
package front
