package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
)

// runRevisit is the revisit scheduler (M2, seed 001 step 3): every revisit.every it
// takes the first m pages by ascending next and puts those due back in the crawl
// queue, until the engine stops.
func (e *Engine) runRevisit() {
	defer e.wg.Done()
	e.every(e.opts.Revisit.Every, e.fr.RevisitTick)
}

// RevisitNow implements Control: the page goes back in the crawl queue at once,
// whatever its next due time and its class window (`:revisit now URL`).
func (e *Engine) RevisitNow(raw string) error { return e.fr.RevisitNow(raw) }

// addUrgent puts an operator's task (a keyword or site added live) at the
// head of its lane's queue and tells the lane, so that a lane waiting with an
// ordinary task in hand trades it for this one (see swapForUrgent). Caller holds e.mu.
func (e *Engine) addUrgent(t frontier.Task) {
	p := e.board.AddFirst(t)
	if p.Opened {
		e.startLane(p.Lane)
		return
	}
	if p.Lane == nil {
		return
	}
	e.run.Kick(p.Lane.ID)
}

// swapForUrgent gives the lane's task in hand back to the head of its queue, behind
// the operator's tasks, when one of those is waiting there and t is not one itself:
// the lane then takes the operator's task without pausing again (it has served its
// pause before taking t). A task withdrawn meanwhile (:keyword rm, :site rm) is not
// given back but dropped: its end as steered_out is written by Front.FlushSteeredOut.
// Caller holds e.mu; the caller still releases t (lanePort.Release(t, false)).
func (e *Engine) swapForUrgent(ls *lanes.Slot, t frontier.Task) (swapped, dropped bool) {
	if ls.Urgent || !e.board.UrgentAhead(ls.Lane) {
		return false, false
	}
	marks := e.fr.Marks()
	revisiting := marks.Queued(t.URL)
	if e.fr.SteeredOut(t) { // it is no longer a queued revisit: Release will not count it
		if revisiting {
			marks.DroppedInHand()
		}
		return true, true
	}
	e.board.PutBack(ls.Lane, t)
	marks.Placed(t.URL)
	return true, false
}

// offBoard uncounts tasks the board gave back (evicted, dropped for a disabled
// host); whoever took them places or defers them again. Caller holds e.mu.
func (e *Engine) offBoard(tasks []frontier.Task) []frontier.Task {
	for _, t := range tasks {
		e.fr.Marks().LeftQueue(t.URL)
	}
	return tasks
}

// discoveryIdle reports whether the discovery crawl has run dry: nothing queued, no
// lane at work, no link insert outstanding, revisit tasks aside (they never end: a
// crawl with revisits goes on until stopped). Caller holds e.mu.
func (e *Engine) discoveryIdle() bool {
	if e.fr.Busy() { // a write on its way, or a withdrawn source not ended yet
		return false
	}
	_, inHand := e.crew.Counts()
	if revisits := e.fr.Marks().Pending(); revisits > 0 {
		return e.queuedLen()+inHand == revisits
	}
	return e.board.Len() == 0 && e.queuedLen() == 0 && inHand == 0
}

// queuedLen is how many queued tasks wait in memory: on the lane board, or at the
// master for its workers (M4). Caller holds e.mu.
func (e *Engine) queuedLen() int {
	waiting, _ := e.crew.Counts()
	return waiting
}
