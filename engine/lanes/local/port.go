package local

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// lanePort is the crew as its lanes' front (lanes.Front): the board's tasks with
// their pauses and revisit marks, the counters and the event log. (Their record is
// the crawl's own, lanes.Runner.Record.)
type lanePort struct{ c *Crew }

var _ lanes.Front = lanePort{}

// Opened records the lane in the crawl's history and log.
func (p lanePort) Opened(lane int, egress string) {
	p.c.crawl.LaneOpened(lane, egress, p.c.parts.Opts.Now())
}

// Next blocks while the crawl or the lane is paused, then hands out the lane's next
// task (held while its host is paused). Mu held.
func (p lanePort) Next(s *lanes.Slot) (frontier.Task, bool) {
	c := p.c
	for {
		if c.parts.Ctx.Err() != nil {
			return frontier.Task{}, false
		}
		if c.crawl.Paused() || s.Lane.Paused() {
			s.Status, s.NextFetch = view.LanePaused, time.Time{}
			if !c.crawl.Wait() {
				return frontier.Task{}, false
			}
			continue
		}
		turn, retired := c.Run.Take(s)
		c.fr.StartRefill()
		if retired {
			c.crawl.LaneRanDry(s.Lane.ID, c.parts.Opts.Now(), turn.Done)
			return frontier.Task{}, false
		}
		if !turn.OK { // the lane is paused: it waits above
			continue
		}
		t := turn.Task
		s.Urgent = turn.Urgent
		c.inHand++ // in hand from here, even while its host is paused: not idle
		t.Hand = c.fr.Marks().Taken(t.URL)
		held, aside := p.hold(s, t)
		if aside {
			continue
		}
		if !held {
			return frontier.Task{}, false
		}
		return t, true
	}
}

// Hold keeps a task the lane took in hand while the crawl or the lane is paused,
// and sets it aside while its host is (hold). Mu held.
func (p lanePort) Hold(s *lanes.Slot, t frontier.Task) (held, aside bool) { return p.hold(s, t) }

// hold is Hold for a task a lane took: while only t's host is paused, t goes
// back to the lane's queue and is released (aside): the lane takes another host's
// task instead of holding every host it serves behind the paused one, or gives its
// slot up to other hosts' tasks when it has none (lanes.Board.Next).
func (p lanePort) hold(s *lanes.Slot, t frontier.Task) (held, aside bool) {
	c := p.c
	for (c.crawl.Paused() || s.Lane.Paused() || c.Run.HostPaused(t.Host)) && c.parts.Ctx.Err() == nil {
		if !c.crawl.Paused() && !s.Lane.Paused() && p.setAside(s, t) {
			return false, true
		}
		s.Status, s.Current, s.NextFetch = view.LanePaused, t.URL, time.Time{}
		if !c.crawl.Wait() {
			break
		}
	}
	if c.parts.Ctx.Err() != nil {
		p.Release(t, false)
		return false, false
	}
	return true, false
}

// Release ends a lane's hold on a task taken by Next; ended says its fetch is over
// (not moved to another egress or deferred), so a revisit is no longer queued. The
// crawl then sees whether it ran dry: the last task may have ended on a lane that
// goes on revisiting. Mu held.
func (p lanePort) Release(t frontier.Task, ended bool) {
	p.c.inHand--
	p.c.fr.Marks().Released(t.URL, t.Hand, ended)
	p.c.crawl.CheckIdle()
}

func (p lanePort) CheckIdle() { p.c.crawl.CheckIdle() }

func (p lanePort) SwapForUrgent(s *lanes.Slot, t frontier.Task) (swapped, dropped bool) {
	return p.c.SwapForUrgent(s, t)
}

// setAside gives a task in hand whose host the operator paused back to its lane's
// queue, where a revisit waits again as one (its mark back on the board), and
// releases it. Mu held.
func (p lanePort) setAside(s *lanes.Slot, t frontier.Task) bool {
	if !p.SetAsideInHand(s, t) {
		return false
	}
	p.Release(t, false)
	return true
}

// SetAsideInHand is setAside without the release, for a task the lane's runner
// releases. Mu held.
func (p lanePort) SetAsideInHand(s *lanes.Slot, t frontier.Task) bool {
	if !p.c.Board.SetAside(s.Lane, t) {
		return false
	}
	p.c.fr.Marks().PutBack(t.URL, t.Hand) // waiting again: Release will not count it
	return true
}

func (p lanePort) Place(t frontier.Task)                       { p.c.queue(p.c.fr.Placing(t)) }
func (p lanePort) OffBoard(ts []frontier.Task) []frontier.Task { return p.c.OffBoard(ts) }
func (p lanePort) Defer(t frontier.Task, until time.Time)      { p.c.Defer(t, until) }
func (p lanePort) DeferAs(t frontier.Task, until time.Time, kind string) {
	p.c.DeferAs(t, until, kind)
}
func (p lanePort) DeferBehind(t frontier.Task, until time.Time, held string) {
	p.c.DeferBehind(t, until, held)
}
func (p lanePort) Flush() { p.c.FlushDeferred() }

func (p lanePort) Error(kind, url string) {
	p.c.parts.Counters.AddError(kind)
	p.c.parts.Counters.Example(kind, url)
}

func (p lanePort) Response(status int)  { p.c.parts.Counters.Response(status) }
func (p lanePort) Fetched()             { p.c.parts.Counters.PagesFetched.Add(1) }
func (p lanePort) Refusal()             { p.c.parts.Counters.Refused.Add(1) }
func (p lanePort) ConfirmFetch()        { p.c.parts.Counters.ConfirmFetches.Add(1) }
func (p lanePort) Cost(d time.Duration) { p.c.parts.Cost.Add(d) }

func (p lanePort) Logf(level view.Level, lane int, host, format string, args ...any) {
	p.c.crawl.Logf(level, lane, host, format, args...)
}
