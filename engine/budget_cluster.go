package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Budgets on a master (M4). The master's queue is not where pages are fetched: a
// budget counted there (as place does on one box) let every task already handed to
// a worker through, and a worker holds a window of hundreds. So a master counts a
// budget's pages as it hands them out (masterFront.Admit, which marks the task
// Budgeted) and takes the count back for a hand-out that comes back unfetched
// (HandedBack); a budget set or lowered live recalls from the workers' queues what
// their lanes have not taken, and deals it again within the budget. What was handed
// out before any budget was set is not counted until fetched (the totals read the
// store then); what the lanes hold is fetched: a host's pages end at most at its
// budget plus the lanes in flight on it.

// Admit counts t against the page budgets as the master hands it to a worker, or
// holds it back as place does on one box. Caller holds e.mu.
func (f masterFront) Admit(t *frontier.Task) bool {
	e := f.e
	t.Budgeted = false
	if !e.budget.Active() {
		return true // not counted: a budget set later counts what was fetched (the store) and recalls the rest
	}
	kind, until := e.budget.Admit(*t, e.now())
	if kind == "" {
		t.Budgeted = true
		return true
	}
	e.rv.leftQueue(t.URL) // it leaves the master's queue unfetched
	e.holdBack(*t, kind, until)
	return false
}

func (m *masterRuntime) countsAtHandOut() bool { return true }

// recall has the workers hand back what they hold of match and their lanes have not
// taken; it is counted again as it is dealt anew.
func (m *masterRuntime) recall(match func(frontier.Task) bool) int {
	back := m.link.Recall(match)
	m.book.Kick()
	return back
}

func (c localCrew) countsAtHandOut() bool { return false }

// recall on one box takes what the board holds of match off it and places it again:
// what place counted as it came (under a budget) is taken back, and the budget now
// in force admits it or holds it back.
func (c localCrew) recall(match func(frontier.Task) bool) int {
	e := c.e
	e.mu.Lock()
	back := e.offBoard(e.board.Withdraw(match))
	for _, t := range back {
		if t.Budgeted {
			e.budget.Unadmit(t)
		}
		e.place(t)
	}
	e.checkIdle()
	e.mu.Unlock()
	e.flushDeferred()
	return len(back)
}

// recallOver takes back the hand-outs a budget k, just set or lowered, may hold
// (its host's, or its site's): those no lane has in hand are counted again.
func (e *Engine) recallOver(k front.BudgetKey) int {
	return e.crew.recall(func(t frontier.Task) bool {
		if k.Host {
			return t.Host == k.Name
		}
		return t.Site == k.Name
	})
}
