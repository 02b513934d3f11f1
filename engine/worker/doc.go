// Package worker is a distributed crawl's worker (M4). A Node is its conversation
// with the master: the join, heartbeats, task batches, the master's controls
// carried out (Controls), rejoin and leave, with its Upstream requests, its Outbox
// of results and deferrals (Report: a lane's outcome as the master records it) and
// its Lease. It drives the worker's lanes through the Lanes port, which Join builds
// over this process's lanes and front queue (Parts) and the crawl around them
// (Crawl, the engine's side). The lanes' front on a worker is Front: the master,
// reached through the outbox; it keeps no store.
package worker
