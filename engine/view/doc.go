// Package view holds what the UI reads of a crawl: the Snapshot the console pulls on
// each tick and the rows and panes in it (lanes, groups, nodes, revisit, sites,
// sizing, DNS and egress views), the events, the rebalance plans, the --stats-json
// object and the Telemetry a monitoring scrape reads. They are plain values, copied
// out of the engine: nothing in them aliases engine memory.
//
// The engine fills them (Engine.Snapshot, Engine.Stats, Engine.Telemetry); its
// callers (ui/, bench/, tests) name the types here.
package view
