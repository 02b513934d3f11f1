// Package rebalance plans how the lanes are re-dealt over the egress addresses so
// each carries about the same observed work. It plans from a copy of the board (the
// lanes, the addresses, what binds each lane to its address) and changes nothing:
// the lanes' Runner takes that copy under its lock and carries out the moves.
package rebalance

import (
	"fmt"
	"sort"

	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Lane is one lane as a plan weighs it.
type Lane struct {
	ID     int
	Egress string // name of the address it is bound to
	Queued int    // tasks waiting in it, the one in hand not counted
}

// Plan re-deals lanes over egs (the addresses' names, by index) so each
// address carries about the same observed work: a lane's cost is its queued tasks
// plus the one in hand, times per (a task's seconds: mean fetch time plus mean lane
// pause). The deal is longest-processing-time first onto the least-loaded address
// that can take the lane: one where no other lane holds one of its hosts or parent
// pages (a host bound to lanes on two addresses, as a social site's rotation does,
// cannot join them) and that may serve its hosts. So every move the plan lists is
// one the board makes, unless it changes in between. binds is the plan's own copy:
// Plan records its moves in it.
func Plan(lanes []Lane, egs []string, binds *Bindings, per float64) view.RebalancePlan {
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
	for _, v := range lanes {
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
	held := 0 // lanes the bindings kept off a less loaded address
	for _, l := range ls {
		best, lightest := l.from, l.from
		for i := range after {
			if after[i].Cost < after[best].Cost && binds.free(l.id, i) {
				best = i
			}
			if after[i].Cost < after[lightest].Cost {
				lightest = i
			}
		}
		if after[lightest].Cost < after[best].Cost {
			held++
		}
		binds.move(l.id, l.from, best)
		after[best].Lanes++
		after[best].Cost += l.cost
		if best != l.from {
			plan.Moves = append(plan.Moves, view.LaneMove{Lane: l.id, From: egs[l.from], To: egs[best], Cost: l.cost})
		}
	}
	plan.After = after
	if len(plan.Moves) == 0 {
		plan.Summary = stayReason(before, lanes, held)
		return plan
	}
	plan.Summary = fmt.Sprintf("move %d of %d lanes; busiest address %.1fs -> %.1fs of queued work",
		len(plan.Moves), len(ls), maxCost(before), maxCost(after))
	return plan
}

// stayReason says why a plan moves no lane, with the busiest address's load, so that
// "busiest address 113.9s -> 113.9s" does not read as a move that changed nothing.
func stayReason(before []view.EgressLoad, lanes []Lane, held int) string {
	if len(lanes) == 0 {
		return "no lanes open"
	}
	busiest := 0
	for i := range before {
		if before[i].Cost > before[busiest].Cost {
			busiest = i
		}
	}
	b := before[busiest]
	switch {
	case b.Lanes == 1:
		lane := 0
		for _, v := range lanes {
			if v.Egress == b.Egress {
				lane = v.ID
			}
		}
		return fmt.Sprintf("the busiest address, %s, carries one lane (lane %d, %.1fs of queued work), and a lane moves whole", b.Egress, lane, b.Cost)
	case held > 0:
		return fmt.Sprintf("lanes that would even the load are bound where they are (%d: a host or parent page of theirs is held on the less loaded address, or it may not serve their hosts); busiest address %s, %.1fs of queued work",
			held, b.Egress, b.Cost)
	}
	return fmt.Sprintf("already even: no move of a whole lane makes the busiest address, %s (%.1fs of queued work in %s), lighter", b.Egress, b.Cost, plural.Count(b.Lanes, "lane"))
}

// Bindings is what binds each lane to its address, copied from the board for a
// plan: the hosts and parent pages it holds, which lane holds each key on each
// address (by the address's index), and the addresses each lane's hosts may not use.
type Bindings struct {
	Hosts    map[int][]string
	Parents  map[int][]uint64
	Banned   map[int]map[int]bool // lane -> egress its hosts may not use
	ByHost   []map[string]int     // per egress: host -> lane
	ByParent []map[uint64]int     // per egress: parent -> lane
}

// free says whether lane id could be bound to egress e as the plan stands: no other
// lane holds one of its keys there, and its hosts may use e.
func (lb *Bindings) free(id, e int) bool {
	if lb.Banned[id][e] {
		return false
	}
	for _, h := range lb.Hosts[id] {
		if o, ok := lb.ByHost[e][h]; ok && o != id {
			return false
		}
	}
	for _, p := range lb.Parents[id] {
		if o, ok := lb.ByParent[e][p]; ok && o != id {
			return false
		}
	}
	return true
}

// move records lane id's keys as held on to instead of from.
func (lb *Bindings) move(id, from, to int) {
	if from == to {
		return
	}
	for _, h := range lb.Hosts[id] {
		if lb.ByHost[from][h] == id {
			delete(lb.ByHost[from], h)
		}
		lb.ByHost[to][h] = id
	}
	for _, p := range lb.Parents[id] {
		if lb.ByParent[from][p] == id {
			delete(lb.ByParent[from], p)
		}
		lb.ByParent[to][p] = id
	}
}

func maxCost(loads []view.EgressLoad) float64 {
	var m float64
	for _, l := range loads {
		m = max(m, l.Cost)
	}
	return m
}
