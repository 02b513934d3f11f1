// Package panes holds the console's tabs, one file each: Lanes, Adjacency groups,
// Log, DNS, Egress (with the sizing estimate), Revisit, Nodes (a distributed crawl
// only), Sites (declared sites only) and Stories (once an article is found under two
// URLs). Each registers itself with pane.Register
// in init; package ui imports this package for that. A key that changes the crawl
// calls the control its ":" command calls (package commands).
package panes
