package local

import (
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// queue puts a task the front marked (front.Placing) on the board: an operator's
// at the head of its lane, an article discovery just listed ahead of the lane's
// due reads, the others in line; a lane the board opens starts. Mu held.
func (c *Crew) queue(t frontier.Task) {
	if t.Urgent {
		c.addUrgent(t)
		return
	}
	if t.Ahead {
		c.placed(t, c.Board.AddAhead(t))
		return
	}
	c.placed(t, c.Board.Add(t))
}

// placed starts the lane the board opened for t, or wakes the lane t joined when
// that lane is holding a task back and t's host is not paused: if it holds a paused
// host's task it sets it aside and takes t (see lanePort.hold); held by a pause of
// the crawl or the lane, it waits again. Mu held.
func (c *Crew) placed(t frontier.Task, p lanes.Placement) {
	switch {
	case p.Opened:
		c.Run.Start(p.Lane)
	case p.Lane != nil && !c.Run.HostPaused(t.Host):
		if s := c.Run.Slot(p.Lane.ID); s != nil && s.Status == view.LanePaused {
			c.crawl.Wake()
		}
	}
}

// addUrgent puts an operator's task (a keyword or site added live) at the head of
// its lane's queue and tells the lane, so that a lane pausing, or waiting with an
// ordinary task in hand, takes it first (see SwapForUrgent); a lane waiting in the
// crawl's Wait is woken as for any task (placed). Mu held.
func (c *Crew) addUrgent(t frontier.Task) {
	p := c.Board.AddFirst(t)
	c.placed(t, p)
	if p.Lane != nil && !p.Opened {
		c.Run.Kick(p.Lane.ID)
	}
}

// SwapForUrgent gives the lane's task in hand back to the head of its queue, behind
// the operator's tasks, when one of those is waiting there and t is not one itself:
// the lane then takes the operator's task without pausing again (it has served its
// pause before taking t). A task withdrawn meanwhile (:keyword rm, :site rm) is not
// given back but dropped: its end as steered_out is written by Front.FlushSteeredOut.
// Mu held; the caller still releases t (lanes.Front.Release(t, false)).
func (c *Crew) SwapForUrgent(ls *lanes.Slot, t frontier.Task) (swapped, dropped bool) {
	if ls.Urgent || !c.Board.UrgentAhead(ls.Lane) {
		return false, false
	}
	marks := c.fr.Marks()
	revisiting := marks.Holds(t.URL, t.Hand)
	if c.fr.SteeredOut(t) { // it is no longer a queued revisit: Release will not count it
		if revisiting {
			marks.DroppedInHand()
		}
		return true, true
	}
	c.Board.PutBack(ls.Lane, t)
	marks.PutBack(t.URL, t.Hand) // waiting again: Release will not count it
	return true, false
}

// OffBoard uncounts tasks the board gave back (evicted, dropped for a disabled
// host, withdrawn); whoever took them places, defers or ends them. Mu held.
func (c *Crew) OffBoard(tasks []frontier.Task) []frontier.Task {
	for _, t := range tasks {
		c.fr.Marks().LeftQueue(t.URL)
	}
	return tasks
}
