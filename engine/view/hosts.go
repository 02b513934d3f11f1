package view

import (
	"encoding/json"
	"time"
)

// HostsView is the Hosts pane's data: what the crawl did per host, and the same
// figures added up per site and per egress.
type HostsView struct {
	Hosts    HostRows  // in the order hosts were first seen
	Sites    []HostRow // per declared site, else per registered domain, by name
	Egresses []HostRow // per egress the responses came through ("direct" without rotation), by name
	// Live is what holds now for the hosts a lane holds: their politeness gap and
	// its reason, and their pages this round against their budget.
	Live map[string]HostLive
	// Untracked counts responses and endings of hosts past the report's cap
	// (hostreport.MaxHosts), added up in the row named OtherHosts.
	Untracked int64
	// Render are the renders per host, for the hosts that had a page rendered;
	// nil when the crawl renders no page (no browser, render.mode off).
	Render map[string]RenderHost `json:",omitempty"`
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
	Classes         [StatusClassCount]int64 // responses by status class (Class2xx, ...)
	Skipped         int64                   // URLs skipped by choice (robots.txt, scope, budget, ...)
	Errors          int64                   // URLs that failed
	Refused         int64                   // 403/429/ban or captcha answers
	// Kinds are the skip and error kinds with their counts, most first. The slice
	// is never changed once in a row: a copy of the row may share it.
	Kinds []KindCount
}

// HostLive is a held host's figures of the moment.
type HostLive struct {
	// Gap is the host's politeness gap and GapWhy the term that sets it (see
	// Lane.Gap).
	Gap    time.Duration `json:"gap"`
	GapWhy string        `json:"gap_why,omitempty"`
	// BudgetUsed is the pages handed to lanes this round, Budget the host's page
	// budget per round (0: none).
	BudgetUsed int `json:"budget_used"`
	Budget     int `json:"budget"`
}

// KindCount is one skip or error kind and how many URLs ended with it.
type KindCount struct {
	Kind  string `json:"kind"`
	Count int64  `json:"count"`
	Skip  bool   `json:"skip,omitempty"` // chosen (robots.txt, scope, budget), not failed
}

// HostRowsChunk is how many rows one chunk of HostRows holds.
const HostRowsChunk = 64

// HostRows is a long list of rows kept in chunks that are never changed once handed
// out: a snapshot of 10,000 hosts shares with the one before every chunk in which no
// host moved, so taking one costs what changed, not what exists.
type HostRows struct {
	chunks [][]HostRow
	n      int
}

// NewHostRows makes rows from chunks of HostRowsChunk rows (the last may be
// shorter); the caller changes none of them afterwards.
func NewHostRows(chunks [][]HostRow) HostRows {
	r := HostRows{chunks: chunks}
	for _, c := range chunks {
		r.n += len(c)
	}
	return r
}

// HostRowsOf chunks a flat list of rows (tests, stand-ins for the engine).
func HostRowsOf(rows []HostRow) HostRows {
	var chunks [][]HostRow
	for len(rows) > 0 {
		n := min(len(rows), HostRowsChunk)
		chunks = append(chunks, rows[:n:n])
		rows = rows[n:]
	}
	return NewHostRows(chunks)
}

// Len is the number of rows.
func (r HostRows) Len() int { return r.n }

// At is row i, to read only.
func (r HostRows) At(i int) *HostRow { return &r.chunks[i/HostRowsChunk][i%HostRowsChunk] }

// Chunks gives the chunks, to read only.
func (r HostRows) Chunks() [][]HostRow { return r.chunks }

// MarshalJSON writes the rows as one array (an attached console's snapshot).
func (r HostRows) MarshalJSON() ([]byte, error) {
	flat := make([]HostRow, 0, r.n)
	for _, c := range r.chunks {
		flat = append(flat, c...)
	}
	return json.Marshal(flat)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *HostRows) UnmarshalJSON(b []byte) error {
	var flat []HostRow
	if err := json.Unmarshal(b, &flat); err != nil {
		return err
	}
	*r = HostRowsOf(flat)
	return nil
}
