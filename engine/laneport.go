package engine

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// lanePort is the engine as its lanes' front (lanes.Front): the board's tasks with
// their pauses and revisit counts, the frontier side's record (e.front: this
// process's store, or the master), the counters and the event log.
type lanePort struct{ e *Engine }

var _ lanes.Front = lanePort{}

func (p lanePort) Opened(lane int, egress string) {
	p.e.front.laneOpened(lane, egress, p.e.now())
}

// Next blocks while the crawl or the lane is paused, then hands out the lane's next
// task (held while its host is paused). Caller holds e.mu.
func (p lanePort) Next(s *lanes.Slot) (frontier.Task, bool) {
	e := p.e
	for {
		if e.ctx.Err() != nil {
			return frontier.Task{}, false
		}
		if e.paused || s.Lane.Paused() {
			s.Status, s.NextFetch = view.LanePaused, time.Time{}
			if !e.waitWake() {
				return frontier.Task{}, false
			}
			continue
		}
		t, ok, opened := e.board.Next(s.Lane)
		for _, l := range opened {
			e.startLane(l)
		}
		e.fr.StartRefill()
		if !ok {
			if s.Lane.Paused() {
				continue
			}
			e.run.Retire(s)
			e.checkIdle()
			id, done := s.Lane.ID, s.Lane.Done()
			e.mu.Unlock()
			e.front.laneRetired(id, e.now(), done)
			e.logf(view.LevelDebug, id, "", "lane %d retired", id)
			e.mu.Lock()
			return frontier.Task{}, false
		}
		s.Urgent = s.Lane.TookUrgent()
		e.inHand++ // in hand from here, even while its host is paused: not idle
		e.fr.Marks().Taken(t.URL)
		if !p.Hold(s, t) {
			return frontier.Task{}, false
		}
		return t, true
	}
}

// Hold keeps a task the lane took in hand while the crawl, the lane or the task's
// host is paused. Caller holds e.mu. false means the engine is stopping: the task
// is released.
func (p lanePort) Hold(s *lanes.Slot, t frontier.Task) bool {
	e := p.e
	for (e.paused || s.Lane.Paused() || e.run.HostPaused(t.Host)) && e.ctx.Err() == nil {
		s.Status, s.Current, s.NextFetch = view.LanePaused, t.URL, time.Time{}
		if !e.waitWake() {
			break
		}
	}
	if e.ctx.Err() != nil {
		p.Release(t, false)
		return false
	}
	return true
}

// Release ends a lane's hold on a task taken by Next; ended says its fetch is over
// (not moved to another egress or deferred), so a revisit is no longer queued.
// Caller holds e.mu.
func (p lanePort) Release(t frontier.Task, ended bool) {
	e := p.e
	e.inHand--
	e.fr.Marks().Released(t.URL, ended)
}

func (p lanePort) CheckIdle() { p.e.checkIdle() }

func (p lanePort) SwapForUrgent(s *lanes.Slot, t frontier.Task) (swapped, dropped bool) {
	return p.e.swapForUrgent(s, t)
}

func (p lanePort) Place(t frontier.Task) { localCrew{p.e}.queue(p.e.fr.Placing(t)) }

func (p lanePort) OffBoard(ts []frontier.Task) []frontier.Task { return p.e.offBoard(ts) }

func (p lanePort) Defer(t frontier.Task, until time.Time) { p.e.deferTask(t, until) }

func (p lanePort) Flush() { p.e.flushDeferred() }

func (p lanePort) Prepare(o *lanes.Outcome)          { p.e.front.prepare(o) }
func (p lanePort) Begin(t frontier.Task, lane int)   { p.e.front.begin(t, lane) }
func (p lanePort) Abandon(t frontier.Task, lane int) { p.e.front.abandon(t, lane) }
func (p lanePort) Deliver(o lanes.Outcome)           { p.e.front.deliver(o) }
func (p lanePort) Refused(r store.Refusal)           { p.e.front.refused(r) }
func (p lanePort) Error(kind string)                 { p.e.c.AddError(kind) }
func (p lanePort) Response(status int)               { p.e.c.Response(status) }
func (p lanePort) Fetched()                          { p.e.c.PagesFetched.Add(1) }
func (p lanePort) Refusal()                          { p.e.c.Refused.Add(1) }
func (p lanePort) ConfirmFetch()                     { p.e.c.ConfirmFetches.Add(1) }
func (p lanePort) Cost(d time.Duration)              { p.e.fetchCost.Add(d) }

func (p lanePort) Logf(level view.Level, lane int, host, format string, args ...any) {
	p.e.logf(level, lane, host, format, args...)
}

// waitWake releases e.mu until something is resumed or the engine stops. Caller
// holds e.mu; it is held again on return. false means stop.
func (e *Engine) waitWake() bool {
	w := e.wake
	e.mu.Unlock()
	select {
	case <-w:
	case <-e.ctx.Done():
	}
	e.mu.Lock()
	return e.ctx.Err() == nil
}

// startLane runs a lane the board opened (lanes.Runner.Start). Caller holds e.mu.
func (e *Engine) startLane(l *lanes.Lane) { e.run.Start(l) }
