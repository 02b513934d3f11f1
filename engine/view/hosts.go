package view

import "time"

// HostsView is the Hosts pane's data: what the crawl did per host, and the same
// figures added up per site and per egress. Rows are sorted by name.
type HostsView struct {
	Hosts    []HostRow
	Sites    []HostRow // per declared site, else per registered domain
	Egresses []HostRow // per egress the responses came through ("direct" without rotation)
	// Untracked counts responses and endings of hosts past the report's cap
	// (hostreport.MaxHosts), added up in the row named OtherHosts.
	Untracked int64
}

// OtherHosts names the row that adds up the hosts past the report's cap.
const OtherHosts = "(other hosts)"

// Status classes of a HostRow's Classes, in order.
const (
	ClassOther = iota // a status outside 100..599
	Class1xx
	Class2xx
	Class3xx
	Class4xx
	Class5xx
	StatusClassCount
)

// HostRow is one host (or site, or egress) of the hosts report.
type HostRow struct {
	Name   string
	Site   string // a host's site: its declared site, else its registered domain
	Egress string // the egress of a host's last response
	// Fetched counts responses (any status); Stored, pages committed to the store.
	Fetched, Stored int64
	Bytes           int64                   // body bytes received
	Classes         [StatusClassCount]int64 // responses by status class (Class2xx, ...)
	Skipped         int64                   // URLs skipped by choice (robots.txt, scope, budget, ...)
	Errors          int64                   // URLs that failed
	// Kinds are the skip and error kinds with their counts, most first. The slice
	// is never changed once in a row: a copy of the row may share it.
	Kinds   []KindCount
	Refused int64     // 403/429/ban or captcha answers
	Last    time.Time // when its last response came
	// Gap is the host's politeness gap now and GapWhy the term that sets it (see
	// Lane.Gap); zero while no lane holds the host.
	Gap    time.Duration
	GapWhy string
	// BudgetUsed is the pages handed to lanes this round, Budget the host's page
	// budget per round (0: none).
	BudgetUsed, Budget int
}

// KindCount is one skip or error kind and how many URLs ended with it.
type KindCount struct {
	Kind  string `json:"kind"`
	Count int64  `json:"count"`
	Skip  bool   `json:"skip,omitempty"` // chosen (robots.txt, scope, budget), not failed
}
