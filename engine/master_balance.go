package engine

import (
	"errors"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/balance"
	"github.com/crawlconsole/crawlconsole/engine/master"
)

// Balancing over workers (M4, package master): a plan is computed on the table and
// shown; applying it moves units, and asks their old owners to release them.

// planRebalance computes the re-deal of the units over the live workers.
func (m *masterRuntime) planRebalance() RebalancePlan {
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	p, err := m.book.PlanBalance(balance.Options{Threshold: m.o.BalanceThreshold,
		CounterThreshold: m.e.opts.Balance.CounterThreshold, IterationThreshold: m.e.opts.Balance.IterationThreshold,
		Seed: uint64(time.Now().UnixNano())})
	if err != nil {
		p.Summary = "no plan: " + err.Error()
	}
	return p
}

// applyRebalance carries out a plan over workers: each unit still held by the plan's
// From moves to its To once From reported its tasks of it (released now).
func (m *masterRuntime) applyRebalance(p RebalancePlan) error {
	if !p.Workers {
		return errOnWorkers("rebalance lanes over egresses")
	}
	m.e.mu.Lock()
	moved, release, err := m.book.ApplyBalance(p)
	if err == nil {
		m.saveCosts()
	}
	m.e.mu.Unlock()
	if err != nil {
		return err
	}
	m.releaseAll(release)
	m.e.logf(LevelInfo, 0, "", "rebalance over workers: %d of %d sites/keyword shards moving (%s)", moved, len(p.Units), p.Summary)
	return nil
}

// balanceDaily applies a plan when the workers' totals drifted apart (daily).
func (m *masterRuntime) balanceDaily(time.Time) {
	p := m.planRebalance()
	if len(p.Units) == 0 {
		return
	}
	if err := m.applyRebalance(p); err != nil && !errors.Is(err, master.ErrBalancing) {
		m.e.logf(LevelWarn, 0, "", "daily rebalance: %v", err)
	}
}
