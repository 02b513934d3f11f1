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
// The deal is longest-processing-time first onto the least-loaded address that can
// take the lane: one where no other lane holds one of its hosts or parent pages (a
// host bound to lanes on two addresses, as a social site's rotation does, cannot
// join them) and that may serve its hosts (Board.Allowed). So every move the plan
// lists is one ApplyRebalance makes, unless the board changes in between. It takes
// the lock.
func (r *Runner) PlanRebalance(per float64) view.RebalancePlan {
	r.Mu.Lock()
	views := r.Board.View()
	egs := append([]string(nil), r.Board.Egresses()...)
	binds := r.Board.bindings()
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
		plan.Summary = stayReason(before, views, held)
		return plan
	}
	plan.Summary = fmt.Sprintf("move %d of %d lanes; busiest address %.1fs -> %.1fs of queued work",
		len(plan.Moves), len(ls), maxCost(before), maxCost(after))
	return plan
}

// stayReason says why a plan moves no lane, with the busiest address's load, so that
// "busiest address 113.9s -> 113.9s" does not read as a move that changed nothing.
func stayReason(before []view.EgressLoad, views []LaneView, held int) string {
	if len(views) == 0 {
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
		for _, v := range views {
			if v.Egress == b.Egress {
				lane = v.ID
			}
		}
		return fmt.Sprintf("the busiest address, %s, carries one lane (lane %d, %.1fs of queued work), and a lane moves whole", b.Egress, lane, b.Cost)
	case held > 0:
		return fmt.Sprintf("lanes that would even the load are bound where they are (%d: a host or parent page of theirs is held on the less loaded address, or it may not serve their hosts); busiest address %s, %.1fs of queued work",
			held, b.Egress, b.Cost)
	}
	return fmt.Sprintf("already even: no move of a whole lane makes the busiest address, %s (%.1fs of queued work in %s), lighter", b.Egress, b.Cost, plural(b.Lanes, "lane"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// laneBindings is what binds each lane to its address, copied from the board for a
// plan: the hosts and parent pages it holds, which lane holds each key on each
// address, and the addresses each lane's hosts may not use.
type laneBindings struct {
	hosts    map[int][]string
	parents  map[int][]uint64
	banned   map[int]map[int]bool // lane -> egress its hosts may not use
	byHost   []map[string]int     // per egress: host -> lane
	byParent []map[uint64]int     // per egress: parent -> lane
}

// bindings copies the board's bindings. Caller holds the lock.
func (b *Board) bindings() *laneBindings {
	lb := &laneBindings{hosts: map[int][]string{}, parents: map[int][]uint64{}, banned: map[int]map[int]bool{}}
	for e := range b.egresses {
		hs := make(map[string]int, len(b.byHost[e]))
		for h, l := range b.byHost[e] {
			hs[h] = l.ID
		}
		ps := make(map[uint64]int, len(b.byParent[e]))
		for p, l := range b.byParent[e] {
			ps[p] = l.ID
		}
		lb.byHost, lb.byParent = append(lb.byHost, hs), append(lb.byParent, ps)
	}
	for id, l := range b.lanes {
		for h := range l.hosts {
			lb.hosts[id] = append(lb.hosts[id], h)
			for e := range b.egresses {
				if !b.allowed(e, h) {
					if lb.banned[id] == nil {
						lb.banned[id] = map[int]bool{}
					}
					lb.banned[id][e] = true
				}
			}
		}
		for p := range l.parents {
			lb.parents[id] = append(lb.parents[id], p)
		}
	}
	return lb
}

// free says whether lane id could be bound to egress e as the plan stands: no other
// lane holds one of its keys there, and its hosts may use e.
func (lb *laneBindings) free(id, e int) bool {
	if lb.banned[id][e] {
		return false
	}
	for _, h := range lb.hosts[id] {
		if o, ok := lb.byHost[e][h]; ok && o != id {
			return false
		}
	}
	for _, p := range lb.parents[id] {
		if o, ok := lb.byParent[e][p]; ok && o != id {
			return false
		}
	}
	return true
}

// move records lane id's keys as held on to instead of from.
func (lb *laneBindings) move(id, from, to int) {
	if from == to {
		return
	}
	for _, h := range lb.hosts[id] {
		if lb.byHost[from][h] == id {
			delete(lb.byHost[from], h)
		}
		lb.byHost[to][h] = id
	}
	for _, p := range lb.parents[id] {
		if lb.byParent[from][p] == id {
			delete(lb.byParent[from], p)
		}
		lb.byParent[to][p] = id
	}
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
