// Package panes holds the console's tabs, one file each: Lanes, Adjacency groups,
// Log, Revisit, Nodes (a distributed crawl only), Sites (declared sites only), Hosts
// and Stories (once an article is found under two URLs); the network's tabs, DNS and
// Egress (with the sizing estimate), are in package network, which this package
// imports so that importing it registers every stock pane. Each registers itself
// with pane.Register in init; package ui imports this package for that. A key that
// changes the crawl calls the control its ":" command calls (package commands).
package panes

import _ "github.com/crawlconsole/crawlconsole/ui/panes/network" // the DNS and Egress tabs register themselves
