// Package costs is a master's cost table (M4, seed 003): what each assignment unit
// (a news site, a social site's keyword shard, the registered domain of other
// hosts) cost its workers in fetch seconds, period by period, and the balancing
// weights taken from it. It survives the master's restart as JSON in the store.
package costs

import (
	"encoding/json"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/balance"
)

// unit is what the master measured of one unit: fetch seconds per period. The
// current period accumulates; a balance closes it.
type unit struct {
	Periods []float64 `json:"periods"` // closed periods, newest last (at most periods)
	Current float64   `json:"current"`
}

const periods = 7

// Table is the cost table, by unit name. The zero value is not usable: make it
// with New. Not safe for concurrent use (the master's Table holds it under its lock).
type Table struct {
	units map[string]*unit
}

// New is an empty cost table.
func New() *Table { return &Table{units: map[string]*unit{}} }

// Add counts a result's fetch time for its unit.
func (c *Table) Add(name string, d time.Duration) {
	if d <= 0 {
		return
	}
	u := c.units[name]
	if u == nil {
		u = &unit{}
		c.units[name] = u
	}
	u.Current += d.Seconds()
}

// Current is what the unit cost in the current period.
func (c *Table) Current(name string) time.Duration {
	if u := c.units[name]; u != nil {
		return time.Duration(u.Current * float64(time.Second))
	}
	return 0
}

// Weights are the units' balancing weights from their costs.
func (c *Table) Weights(names []string) map[string]float64 {
	costs := make(map[string][]float64, len(names))
	for _, name := range names {
		var xs []float64
		if u := c.units[name]; u != nil {
			xs = append(xs, u.Periods...)
			if u.Current > 0 {
				xs = append(xs, u.Current)
			}
		}
		costs[name] = xs
	}
	return balance.Weights(costs)
}

// ClosePeriod ends the current cost period of every unit.
func (c *Table) ClosePeriod() {
	for _, u := range c.units {
		if u.Current > 0 {
			u.Periods = append(u.Periods, u.Current)
			if len(u.Periods) > periods {
				u.Periods = u.Periods[len(u.Periods)-periods:]
			}
			u.Current = 0
		}
	}
}

// JSON is the cost table as the store keeps it (it survives a restart).
func (c *Table) JSON() ([]byte, error) { return json.Marshal(c.units) }

// Load restores a cost table JSON wrote; one that does not parse is ignored (the
// costs are measured again).
func (c *Table) Load(data []byte) {
	var units map[string]*unit
	if len(data) == 0 || json.Unmarshal(data, &units) != nil {
		return
	}
	for name, u := range units {
		if u != nil {
			c.units[name] = u
		}
	}
}
