// Package view holds what the UI reads of a crawl: the Snapshot the console pulls on
// each tick and the rows and panes in it (lanes, groups, nodes, revisit, sites,
// sizing, DNS and egress views), the events, the rebalance plans, the --stats-json
// object and the Telemetry a monitoring scrape reads. They are plain values, copied
// out of the engine: nothing in them aliases engine memory.
//
// The engine fills them; package engine declares an alias of each type
// (engine.Snapshot is view.Snapshot) and re-declares the constants, so that code
// outside the engine (ui/, bench/, sandbox/, tests) can move to this package at its
// own pace.
package view
