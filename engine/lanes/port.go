package lanes

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// Front is the port the lanes need from the side that hands them tasks (on one box
// and on a worker, this process's crew over its board): a lane asks it for tasks
// (Tasks), moves the crawl's figures (Tally) and says what it did (Logf). What each
// task came to goes to the Record port, the crawl's record itself (Runner.Record):
// a task's way in and out calls the record directly, through no other adapter.
type Front interface {
	Tasks
	Tally
	// Logf says what a lane did, in the crawl's event log.
	Logf(level view.Level, lane int, host, format string, args ...any)
}

// Tasks is a front's side of the board: the tasks it hands out, holds while paused,
// takes back and sets aside. Calls marked "Mu held" are made with Runner.Mu held,
// and a call that waits releases it meanwhile; the others without it.
type Tasks interface {
	// Opened says a lane began, on egress, in the crawl's history and log (Mu not
	// held).
	Opened(lane int, egress string)
	// Next blocks while the crawl or the lane is paused, then hands out the lane's
	// next task, kept in hand while the task's host is paused. false: the lane
	// retired (it ran dry) or the crawl is stopping. Mu held.
	Next(s *Slot) (frontier.Task, bool)
	// Hold keeps a task taken by Next in hand while the crawl or the lane is
	// paused. A task whose host the operator paused goes back to the lane's queue
	// and is released (aside): the lane takes its next turn. held false: the crawl
	// is stopping and the task was released. Mu held.
	Hold(s *Slot, t frontier.Task) (held, aside bool)
	// SetAsideInHand gives back to the lane's queue a task whose host the operator
	// paused while it waited in hand (at the gate, for the lease), as Hold sets one
	// aside, but leaves its release to the lane (Release). false: the host is not
	// held now. Mu held.
	SetAsideInHand(s *Slot, t frontier.Task) bool
	// Release ends the lane's hold on a task taken by Next; ended says its fetch is
	// over (not moved to another egress, deferred or left queued). The front then
	// sees whether the crawl ran dry. Mu held.
	Release(t frontier.Task, ended bool)
	// CheckIdle lets the front see whether the crawl ran dry (a task ended with
	// no Release of the lane's: its render delivers it). Mu held.
	CheckIdle()
	// SwapForUrgent gives the lane's task in hand back to the head of its queue,
	// behind an operator's task waiting there (the lane takes that one first);
	// dropped: the task was withdrawn meanwhile and is not given back. Mu held.
	SwapForUrgent(s *Slot, t frontier.Task) (swapped, dropped bool)
	// Place puts a task on the board again (moved off an egress). Mu held.
	Place(t frontier.Task)
	// OffBoard takes note of tasks the board gave back (evicted, dropped for a
	// disabled host), which the lanes place or defer again. Mu held.
	OffBoard(ts []frontier.Task) []frontier.Task
	// Defer sets a task aside until a time (M3: a disabled host, an unreachable
	// robots.txt, a Retry-After). Mu held; Flush writes it.
	Defer(t frontier.Task, until time.Time)
	// DeferAs is Defer for a URL that counts under kind while set aside (an
	// unreachable robots.txt), counted already with Error here: a worker's
	// deferral carries kind to the master, whose figures count it too. Mu held.
	DeferAs(t frontier.Task, until time.Time, kind string)
	// DeferBehind is Defer for a task whose site's robots.txt redirects to held, a
	// host the operator holds: the hold's end brings it back with held's own (a
	// worker's deferral tells its master so). Mu held.
	DeferBehind(t frontier.Task, until time.Time, held string)
	// Flush writes the deferrals made since the last one. Mu not held.
	Flush()
}

// Record is where a task's end goes (Mu not held): the store that has the URL, on
// one box or on the master (a worker's record sends it there).
type Record interface {
	// Prepare completes a task a lane is about to fetch: a stored page is a
	// refetch, with its validators for a conditional GET (M2). A Kind it sets
	// ends the task unsent: the lane delivers it as it is.
	Prepare(o *Outcome)
	// Begin marks the task in progress (back to unprocessed after a crash).
	Begin(t frontier.Task, lane int)
	// Abandon puts the task back to unprocessed: the lane let go of it (stopping).
	Abandon(t frontier.Task, lane int)
	// Deliver hands over a task that ended on the lane.
	Deliver(o Outcome)
	// Refused records a refusal the crawl acted on, with its evidence and what
	// followed (`show URL` says why).
	Refused(r model.Refusal)
}

// Tally is the crawl's figures a lane moves (Mu not held).
type Tally interface {
	// Error counts a URL that ended here without a page, under kind; url is kept
	// as an example of the kind for the end-of-crawl summary.
	Error(kind, url string)
	// Response counts a response the lane handled itself (not delivered).
	Response(status int)
	// Fetched counts a fetch whose response the lane set aside (not delivered).
	Fetched()
	// Refusal counts a refusal in the figures' "refused".
	Refusal()
	// ConfirmFetch counts a refetch confirming a soft refusal.
	ConfirmFetch()
	// Cost learns how long a fetch took (the sizing estimates).
	Cost(d time.Duration)
}

// Slot is a lane at run time: the board's lane and what the console shows of it.
// Its fields are guarded by Runner.Mu.
type Slot struct {
	Lane      *Lane
	Status    view.LaneStatus
	Current   string        // the URL in hand
	Task      frontier.Task // the task in hand (zero when none)
	NextFetch time.Time     // when the lane's pause ends
	FetchEnd  time.Time     // when the lane's last response ended (its pause runs from here)

	// An operator's task (steering, Board.AddFirst) joined the head of the lane's
	// queue; a lane waiting with an ordinary task in hand trades it.
	Kick   chan struct{} // signalled (never blocking) when such a task joins
	Urgent bool          // the task in hand is one: it goes first at the gate

	// HandedOff says the task just processed went on to be rendered: the render
	// delivers it and releases it, not the lane. The lane's own goroutine sets and
	// clears it.
	HandedOff bool
	renders   chan struct{} // one token per page of this lane rendering (laneRenders)

	// Rendering counts the lane's pages rendering now, Rendered those it rendered
	// in a browser, RenderTime their renders' time.
	Rendering  int
	Rendered   int64
	RenderTime time.Duration
}

// NewSlot is a new lane's slot, idle.
func NewSlot(l *Lane) *Slot {
	return &Slot{Lane: l, Status: view.LaneIdle, Kick: make(chan struct{}, 1), renders: make(chan struct{}, laneRenders)}
}
