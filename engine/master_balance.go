package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/balance"
)

// Seed 003's load balancing over workers (M4): every unit — a news site, a social
// site's keyword shard, the registered domain of other hosts — weighs its average
// fetch cost ÷ the sum of all (equal weights where nothing is known yet), and the
// units are dealt out so the workers' weight totals come out even (engine/balance:
// the seed's exchange loop, started from a longest-first deal). It runs daily
// (MasterOptions.BalanceEvery) and on the console's rebalance key; a plan is shown
// first and moves units only once their old owner reported their tasks.

const costsMetaKey = "cluster.costs.v1"

// unitCost is what the master measured of one unit: fetch seconds per period. The
// current period accumulates; a balance closes it.
type unitCost struct {
	Periods []float64 `json:"periods"` // closed periods, newest last (at most costPeriods)
	Current float64   `json:"current"`
}

const costPeriods = 7

// addCost counts a result's fetch time for its unit. Caller holds e.mu.
func (m *masterRuntime) addCost(unit string, d time.Duration) {
	if d <= 0 {
		return
	}
	c := m.costs[unit]
	if c == nil {
		c = &unitCost{}
		m.costs[unit] = c
	}
	c.Current += d.Seconds()
}

// weights are the units' balancing weights from their costs. Caller holds e.mu.
func (m *masterRuntime) weights(units []string) map[string]float64 {
	costs := make(map[string][]float64, len(units))
	for _, u := range units {
		var xs []float64
		if c := m.costs[u]; c != nil {
			xs = append(xs, c.Periods...)
			if c.Current > 0 {
				xs = append(xs, c.Current)
			}
		}
		costs[u] = xs
	}
	return balance.Weights(costs)
}

// planBalance computes seed 003's re-deal of the units over the live workers.
func (m *masterRuntime) planBalance() (RebalancePlan, error) {
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	plan := RebalancePlan{Workers: true}
	var live []string
	for _, name := range sortedKeys(m.nodes) {
		// A paused worker is left out, its units with it: moving work onto it
		// would hold that work paused (its own units stay until it resumes).
		if n := m.nodes[name]; n.state == NodeActive {
			live = append(live, name)
		}
	}
	if len(live) < 2 {
		plan.Summary = fmt.Sprintf("%d active worker: nothing to balance", len(live))
		return plan, nil
	}
	index := map[string]int{}
	for i, name := range live {
		index[name] = i
	}
	var units []string
	current := balance.Assignment{}
	for _, u := range sortedKeys(m.units) {
		q := m.units[u]
		owner := q.owner
		if q.next != "" {
			owner = q.next
		}
		if i, ok := index[owner]; ok {
			units = append(units, u)
			current[u] = i
		}
	}
	if len(units) == 0 {
		plan.Summary = "no sites held yet: nothing to balance"
		return plan, nil
	}
	w := m.weights(units)
	items := make([]balance.Item, len(units))
	for i, u := range units {
		items[i] = balance.Item{Key: u, Weight: w[u]}
	}
	next, err := balance.Rebalance(items, current, len(live), balance.Options{Threshold: m.o.BalanceThreshold,
		CounterThreshold: m.e.opts.Balance.CounterThreshold, IterationThreshold: m.e.opts.Balance.IterationThreshold,
		Seed: uint64(time.Now().UnixNano())})
	if err != nil {
		return plan, err
	}
	before, after := balance.Totals(items, current, len(live)), balance.Totals(items, next, len(live))
	plan.VarianceBefore, plan.VarianceAfter = balance.Variance(before), balance.Variance(after)
	count := func(a balance.Assignment, i int) int {
		n := 0
		for _, j := range a {
			if j == i {
				n++
			}
		}
		return n
	}
	for i, name := range live {
		plan.Before = append(plan.Before, EgressLoad{Egress: name, Lanes: count(current, i), Cost: before[i]})
		plan.After = append(plan.After, EgressLoad{Egress: name, Lanes: count(next, i), Cost: after[i]})
	}
	for _, mv := range balance.Moves(current, next) {
		if mv.From < 0 || mv.To < 0 {
			continue
		}
		plan.Units = append(plan.Units, UnitMove{Unit: mv.Key, From: live[mv.From], To: live[mv.To], Weight: w[mv.Key]})
	}
	sort.Slice(plan.Units, func(i, j int) bool { return plan.Units[i].Weight > plan.Units[j].Weight })
	gap := func(t []float64) float64 { return balance.Gap(t) }
	if len(plan.Units) == 0 {
		plan.Summary = fmt.Sprintf("workers within the threshold (gap %.3f of a total weight of 1): nothing to move", gap(before))
	} else {
		plan.Summary = fmt.Sprintf("move %d sites/keyword shards; gap %.3f -> %.3f, variance %.2g -> %.2g",
			len(plan.Units), gap(before), gap(after), plan.VarianceBefore, plan.VarianceAfter)
	}
	return plan, nil
}

// errBalancing refuses a rebalance while one is being applied.
var errBalancing = errors.New("a rebalance is being applied: wait until its sites have moved (the Nodes pane shows them)")

// applyBalance carries out a plan over workers: each unit still held by the plan's
// From moves to its To once From reported its tasks of it (released now).
func (m *masterRuntime) applyBalance(p RebalancePlan) error {
	if !p.Workers {
		return errOnWorkers("rebalance lanes over egresses")
	}
	m.e.mu.Lock()
	if len(m.moving) > 0 {
		m.e.mu.Unlock()
		return errBalancing
	}
	release := map[string][]string{}
	moved := 0
	for _, mv := range p.Units {
		q := m.units[mv.Unit]
		from, to := m.nodes[mv.From], m.nodes[mv.To]
		if q == nil || q.owner != mv.From || q.next != "" || from == nil || to == nil ||
			to.state != NodeActive && to.state != NodePaused {
			continue // the crawl moved on since the plan was made
		}
		moved++
		q.next = mv.To
		to.units[mv.Unit] = true
		delete(from.units, mv.Unit)
		if q.out == 0 {
			m.moveUnit(mv.Unit, q)
			continue
		}
		m.moving[mv.Unit] = true
		release[mv.From] = append(release[mv.From], mv.Unit)
	}
	m.closePeriod()
	m.e.mu.Unlock()
	for name, units := range release {
		go m.release(name, units)
	}
	m.e.logf(LevelInfo, 0, "", "rebalance over workers: %d of %d sites/keyword shards moving (%s)", moved, len(p.Units), p.Summary)
	m.signal()
	return nil
}

// closePeriod ends the current cost period of every unit and saves the table.
// Caller holds e.mu.
func (m *masterRuntime) closePeriod() {
	for _, c := range m.costs {
		if c.Current > 0 {
			c.Periods = append(c.Periods, c.Current)
			if len(c.Periods) > costPeriods {
				c.Periods = c.Periods[len(c.Periods)-costPeriods:]
			}
			c.Current = 0
		}
	}
	m.saveCosts()
}

// saveCosts keeps the cost table in the store (it survives a restart). Caller holds
// e.mu.
func (m *masterRuntime) saveCosts() {
	if data, err := json.Marshal(m.costs); err == nil {
		m.e.st.SetMeta(costsMetaKey, data)
	}
}

// loadCosts restores the cost table an earlier run kept.
func (m *masterRuntime) loadCosts() {
	if b, err := m.e.st.GetMeta(costsMetaKey); err == nil && len(b) > 0 {
		var costs map[string]*unitCost
		if json.Unmarshal(b, &costs) == nil {
			for u, c := range costs {
				if c != nil {
					m.costs[u] = c
				}
			}
		}
	}
}

// balanceDaily applies a plan when the workers' totals drifted apart (seed 003: daily).
func (m *masterRuntime) balanceDaily(time.Time) {
	p, err := m.planBalance()
	if err != nil || len(p.Units) == 0 {
		return
	}
	if err := m.applyBalance(p); err != nil && !errors.Is(err, errBalancing) {
		m.e.logf(LevelWarn, 0, "", "daily rebalance: %v", err)
	}
}
