// Package panes holds the console's tabs, one file each: Lanes, Adjacency groups,
// Log, DNS, Egress (with the sizing estimate), Revisit, Nodes (a distributed crawl
// only) and Sites (declared sites only). Each registers itself with pane.Register
// in init; package ui imports this package for that. A key that changes the crawl
// calls the control its ":" command calls (package commands).
package panes
