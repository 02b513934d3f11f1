package revisit

import (
	"sort"
	"sync"
	"time"
)

// CostKey names what a cost is recorded for (M3, seed 003 tables 8/9): a news site
// (Keyword empty) or a social site with one keyword.
type CostKey struct {
	Site    string
	Keyword string
}

// CostRow is one line of the cost table: what collecting Site (or Site+Keyword) cost
// in the last round that touched it, and when that round ended.
type CostRow struct {
	CostKey
	Cost  time.Duration // fetch time spent on it in the round
	Pages int           // pages fetched for it in the round
	Round time.Time     // end of that round
}

// CostTable records per-round fetch costs by site and site+keyword. A node sends it to
// the master, whose load balancing weighs sites by their average cost (M3). Costs add
// up during a round; EndRound stamps them with the round's end and replaces the rows
// of the keys it touched. Safe for concurrent use.
type CostTable struct {
	mu    sync.Mutex
	round map[CostKey]*CostRow // being accumulated
	rows  map[CostKey]CostRow  // closed rounds
}

// NewCostTable returns an empty table.
func NewCostTable() *CostTable {
	return &CostTable{round: make(map[CostKey]*CostRow), rows: make(map[CostKey]CostRow)}
}

// Add records one fetch for site (and keyword, for a social search) that cost cost.
func (c *CostTable) Add(site, keyword string, cost time.Duration) {
	k := CostKey{Site: site, Keyword: keyword}
	c.mu.Lock()
	r := c.round[k]
	if r == nil {
		r = &CostRow{CostKey: k}
		c.round[k] = r
	}
	r.Cost += cost
	r.Pages++
	c.mu.Unlock()
}

// EndRound closes the round at end: every key touched in it gets a row with the
// round's cost and end time. It returns the closed round's rows, sorted.
func (c *CostTable) EndRound(end time.Time) []CostRow {
	c.mu.Lock()
	out := make([]CostRow, 0, len(c.round))
	for k, r := range c.round {
		row := *r
		row.Round = end
		c.rows[k] = row
		out = append(out, row)
	}
	c.round = make(map[CostKey]*CostRow)
	c.mu.Unlock()
	sortCostRows(out)
	return out
}

// Rows returns the table: the latest closed round of every key, sorted by site then
// keyword.
func (c *CostTable) Rows() []CostRow {
	c.mu.Lock()
	out := make([]CostRow, 0, len(c.rows))
	for _, r := range c.rows {
		out = append(out, r)
	}
	c.mu.Unlock()
	sortCostRows(out)
	return out
}

func sortCostRows(rows []CostRow) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Site != rows[j].Site {
			return rows[i].Site < rows[j].Site
		}
		return rows[i].Keyword < rows[j].Keyword
	})
}

// Restore loads rows saved from an earlier run as the table's closed rounds, so
// the table survives a restart (M3: the node's cost table is persisted).
func (c *CostTable) Restore(rows []CostRow) {
	c.mu.Lock()
	for _, r := range rows {
		c.rows[r.CostKey] = r
	}
	c.mu.Unlock()
}
