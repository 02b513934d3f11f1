// Package front is the store side of a crawl's front: the bookkeeping between the
// queue and the store that a one-box crawl and a master share. It owns its state
// (the page budgets' ledger, ...) and reaches the rest of the crawl only through
// the values and ports it is given; it never imports the engine root.
//
// Its state is guarded by the engine's lock (Engine.mu), as the lanes' is: a
// method says when it expects that lock held.
package front
