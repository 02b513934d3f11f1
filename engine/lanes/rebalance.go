package lanes

import (
	"errors"
	"fmt"
	"sort"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// PlanRebalance re-deals the lanes over the egress addresses so each address
// carries about the same observed work: a lane's cost is its queued tasks plus the
// one in hand, times per (a task's seconds: mean fetch time plus mean lane pause).
// The deal is longest-processing-time first onto the least-loaded address. It takes
// the lock.
func (r *Runner) PlanRebalance(per float64) view.RebalancePlan {
	r.Mu.Lock()
	views := r.Board.View()
	egs := append([]string(nil), r.Board.Egresses()...)
	r.Mu.Unlock()
	idx := map[string]int{}
	for i, n := range egs {
		idx[n] = i
	}
	before := make([]view.EgressLoad, len(egs))
	after := make([]view.EgressLoad, len(egs))
	for i, n := range egs {
		before[i].Egress, after[i].Egress = n, n
	}
	type lc struct {
		id   int
		from int
		cost float64
	}
	var ls []lc
	for _, v := range views {
		c := float64(v.Queued+1) * per
		ls = append(ls, lc{v.ID, idx[v.Egress], c})
		before[idx[v.Egress]].Lanes++
		before[idx[v.Egress]].Cost += c
	}
	plan := view.RebalancePlan{Before: before}
	if len(egs) < 2 {
		plan.After = before
		plan.Summary = "one egress address: nothing to rebalance"
		return plan
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].cost > ls[j].cost || ls[i].cost == ls[j].cost && ls[i].id < ls[j].id })
	for _, l := range ls {
		best := l.from
		for i := range after {
			if after[i].Cost < after[best].Cost {
				best = i
			}
		}
		after[best].Lanes++
		after[best].Cost += l.cost
		if best != l.from {
			plan.Moves = append(plan.Moves, view.LaneMove{Lane: l.id, From: egs[l.from], To: egs[best], Cost: l.cost})
		}
	}
	plan.After = after
	plan.Summary = fmt.Sprintf("move %d of %d lanes; busiest address %.1fs -> %.1fs of queued work",
		len(plan.Moves), len(ls), maxCost(before), maxCost(after))
	return plan
}

func maxCost(loads []view.EgressLoad) float64 {
	var m float64
	for _, l := range loads {
		m = max(m, l.Cost)
	}
	return m
}

// ApplyRebalance carries out a plan over the egresses: each move rebinds a lane
// (and what it holds) to another address, unless that address already holds
// something adjacent to it. It returns how many lanes moved, and why the others did
// not. It takes the lock.
func (r *Runner) ApplyRebalance(p view.RebalancePlan) (moved int, err error) {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	idx := map[string]int{}
	for i, n := range r.Board.Egresses() {
		idx[n] = i
	}
	var errs []error
	for _, m := range p.Moves {
		to, ok := idx[m.To]
		if !ok {
			errs = append(errs, fmt.Errorf("lane %d: no egress %q", m.Lane, m.To))
			continue
		}
		if err := r.Board.SetEgress(m.Lane, to); err != nil {
			errs = append(errs, err)
			continue
		}
		moved++
	}
	return moved, errors.Join(errs...)
}
