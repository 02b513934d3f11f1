package master

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/balance"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Load balancing over workers (M4): every unit — a news site, a social site's
// keyword shard, the registered domain of other hosts — weighs its average fetch
// cost ÷ the sum of all (equal weights where nothing is known yet), and the units
// are dealt out so the workers' weight totals come out even (engine/balance: an
// exchange loop started from a longest-first deal). The master runs it daily
// (MasterOptions.BalanceEvery) and on the console's rebalance key; a plan is shown
// first and moves units only once their old owner reported their tasks.

// AddCost counts a result's fetch time for its unit (the cost table:
// internal/costs).
func (t *Table) AddCost(unit string, d time.Duration) { t.costs.Add(unit, d) }

// PlanBalance computes a re-deal of the units over the active workers (o: the
// balancing thresholds and seed). A worker the operator paused is dealt no unit (its
// lanes would hold it paused) and, while a worker is active, gives up the units it
// holds, as at a join (spread): they are placed first, heaviest on the lightest.
func (t *Table) PlanBalance(o balance.Options) (view.RebalancePlan, error) {
	plan := view.RebalancePlan{Workers: true}
	var live []string
	for _, name := range sortedKeys(t.nodes) {
		if n := t.nodes[name]; n.state == view.NodeActive {
			live = append(live, name)
		}
	}
	index := map[string]int{}
	for i, name := range live {
		index[name] = i
	}
	var units []string
	current := balance.Assignment{}
	away := map[string]string{} // a paused worker's units: their owner
	for _, u := range sortedKeys(t.units) {
		q := t.units[u]
		owner := q.owner
		if q.next != "" {
			owner = q.next
		}
		if i, ok := index[owner]; ok {
			units = append(units, u)
			current[u] = i
		} else if n := t.nodes[owner]; n != nil && n.state == view.NodePaused && len(live) > 0 && q.next == "" {
			units = append(units, u)
			away[u] = owner
		}
	}
	if len(live) < 2 && len(away) == 0 {
		plan.Summary = fmt.Sprintf("%d active worker: nothing to balance", len(live))
		return plan, nil
	}
	if len(units) == 0 {
		plan.Summary = "no sites held yet: nothing to balance"
		return plan, nil
	}
	w := t.costs.Weights(units)
	items := make([]balance.Item, len(units))
	for i, u := range units {
		items[i] = balance.Item{Key: u, Weight: w[u]}
	}
	next, err := balance.Rebalance(items, current, len(live), o)
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
		plan.Before = append(plan.Before, view.EgressLoad{Egress: name, Lanes: count(current, i), Cost: before[i]})
		plan.After = append(plan.After, view.EgressLoad{Egress: name, Lanes: count(next, i), Cost: after[i]})
	}
	paused := map[string]*view.EgressLoad{}
	for _, u := range sortedKeys(away) {
		if paused[away[u]] == nil {
			paused[away[u]] = &view.EgressLoad{Egress: away[u]}
		}
		paused[away[u]].Lanes++
		paused[away[u]].Cost += w[u]
	}
	for _, name := range sortedKeys(paused) {
		plan.Before = append(plan.Before, *paused[name])
		plan.After = append(plan.After, view.EgressLoad{Egress: name})
	}
	for _, mv := range balance.Moves(current, next) {
		from := away[mv.Key]
		if mv.From >= 0 {
			from = live[mv.From]
		}
		if from == "" || mv.To < 0 {
			continue
		}
		plan.Units = append(plan.Units, view.UnitMove{Unit: mv.Key, From: from, To: live[mv.To], Weight: w[mv.Key]})
	}
	sort.Slice(plan.Units, func(i, j int) bool { return plan.Units[i].Weight > plan.Units[j].Weight })
	if len(plan.Units) == 0 {
		plan.Summary = fmt.Sprintf("nothing to move: workers within the threshold (gap %.3f of a total weight of 1)", balance.Gap(before))
	} else {
		plan.Summary = fmt.Sprintf("move %s; gap %.3f -> %.3f, variance %.2g -> %.2g",
			plural.Count(len(plan.Units), "site/keyword shard", "sites/keyword shards"), balance.Gap(before), balance.Gap(after), plan.VarianceBefore, plan.VarianceAfter)
	}
	return plan, nil
}

// ErrBalancing refuses a rebalance while one is being applied.
var ErrBalancing = errors.New("a rebalance is being applied: wait until its sites have moved (the Nodes pane shows them)")

// Applied is what applying a plan did.
type Applied struct {
	Moved   int                 // the units that move
	Release map[string][]string // the units each worker is to hand back now
	// Paused counts, by worker, the moves left out because the operator paused
	// their To since the plan was made: its lanes would hold the units paused.
	Paused map[string]int
}

// ApplyBalance carries out a plan over workers: each unit still held by the plan's
// From moves to its To, if To is still active, at once when From holds none of its
// tasks, or else once From reported them. The cost period closes.
func (t *Table) ApplyBalance(p view.RebalancePlan) (Applied, error) {
	if len(t.moving) > 0 {
		return Applied{}, ErrBalancing
	}
	a := Applied{Release: map[string][]string{}, Paused: map[string]int{}}
	for _, mv := range p.Units {
		q := t.units[mv.Unit]
		from, to := t.nodes[mv.From], t.nodes[mv.To]
		if q == nil || q.owner != mv.From || q.next != "" || from == nil || to == nil || !to.live() {
			continue // the crawl moved on since the plan was made
		}
		if to.state != view.NodeActive {
			a.Paused[mv.To]++
			continue
		}
		a.Moved++
		q.next = mv.To
		to.units[mv.Unit] = true
		delete(from.units, mv.Unit)
		if q.out == 0 {
			t.moveUnit(mv.Unit, q)
			continue
		}
		t.moving[mv.Unit] = true
		a.Release[mv.From] = append(a.Release[mv.From], mv.Unit)
	}
	t.costs.ClosePeriod()
	t.Kick()
	return a, nil
}

// CostsJSON is the cost table as the store keeps it (it survives a restart).
func (t *Table) CostsJSON() ([]byte, error) { return t.costs.JSON() }

// LoadCosts restores a cost table CostsJSON wrote; one that does not parse is
// ignored (the costs are measured again).
func (t *Table) LoadCosts(data []byte) { t.costs.Load(data) }
