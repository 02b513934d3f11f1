package lanes

import (
	"errors"
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/lanes/rebalance"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// PlanRebalance re-deals the lanes over the egress addresses so each address
// carries about the same observed work (rebalance.Plan: a lane's cost is its queued
// tasks plus the one in hand, times per, a task's seconds), onto addresses that can
// take each lane: where no other lane holds one of its hosts or parent pages and
// that may serve its hosts (Board.Allowed). So every move the plan lists is one
// ApplyRebalance makes, unless the board changes in between. It takes the lock.
func (r *Runner) PlanRebalance(per float64) view.RebalancePlan {
	r.Mu.Lock()
	views := r.Board.View()
	egs := append([]string(nil), r.Board.Egresses()...)
	binds := r.Board.bindings()
	r.Mu.Unlock()
	ls := make([]rebalance.Lane, len(views))
	for i, v := range views {
		ls[i] = rebalance.Lane{ID: v.ID, Egress: v.Egress, Queued: v.Queued}
	}
	return rebalance.Plan(ls, egs, binds, per)
}

// bindings copies the board's bindings. Caller holds the lock.
func (b *Board) bindings() *rebalance.Bindings {
	lb := &rebalance.Bindings{Hosts: map[int][]string{}, Parents: map[int][]uint64{}, Banned: map[int]map[int]bool{}}
	for e := range b.egresses {
		hs := make(map[string]int, len(b.byHost[e]))
		for h, l := range b.byHost[e] {
			hs[h] = l.ID
		}
		ps := make(map[uint64]int, len(b.byParent[e]))
		for p, l := range b.byParent[e] {
			ps[p] = l.ID
		}
		lb.ByHost, lb.ByParent = append(lb.ByHost, hs), append(lb.ByParent, ps)
	}
	for id, l := range b.lanes {
		for h := range l.hosts {
			lb.Hosts[id] = append(lb.Hosts[id], h)
			for e := range b.egresses {
				if !b.allowed(e, h) {
					if lb.Banned[id] == nil {
						lb.Banned[id] = map[int]bool{}
					}
					lb.Banned[id][e] = true
				}
			}
		}
		for p := range l.parents {
			lb.Parents[id] = append(lb.Parents[id], p)
		}
	}
	return lb
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
