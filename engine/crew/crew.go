// Package crew defines who fetches a crawl's tasks, as the engine sees it: this
// process's lanes (package lanes/local: one box, and a worker, whose front is its
// master) or a master's workers (package master). An engine holds one from the
// start, and the paths that differ between the two ask it instead of checking the
// role.
package crew

import (
	"errors"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Crew is the port between a crawl and whoever fetches its tasks. "Mu held" marks
// the calls made with the crawl's lock held; the others are made without it.
type Crew interface {
	// Place queues a task the front admitted (steering and budgets checked). Mu held.
	Place(t frontier.Task)
	// Withdraw takes the tasks drop selects out of the queue (they end as
	// withdrawn); held withdraws those already handed out, without Mu, and counts
	// them. Mu held.
	Withdraw(drop func(frontier.Task) bool) (n int, held func() int)
	// CountsAtHandOut tells whether the crew counts page budgets itself as it hands
	// tasks out (a master, at dispatch: what its workers hold counts, not what waits
	// at the master); Place then leaves them to it.
	CountsAtHandOut() bool
	// Recall takes back, to be counted again, the tasks handed out that match
	// selects and no lane has in hand (a budget lowered live), and returns how many
	// came back.
	Recall(match func(frontier.Task) bool) int
	// PlacesEarly tells whether steering's new sources are placed before their
	// insert commits: not on a master, whose workers' queues are its board.
	PlacesEarly() bool
	// Counts are the tasks waiting in memory and those being fetched. Mu held.
	Counts() (waiting, inHand int)
	// LanesPeak is the most lanes alive at once. Mu held.
	LanesPeak() int
	// LanesMax is lanes.max as it stands now, per node that fetches (the
	// operator may have changed it since the start). Mu held.
	LanesMax() int
	// PausedChanged passes the crawl's pause or resume on.
	PausedChanged()
	// Start and Stop begin and end the crew's own work (a master's listening to its
	// workers), within the crawl's Start and Stop.
	Start() error
	Stop()
	// Show adds the crew's rows to a snapshot (a master's workers and their lanes).
	// Mu held.
	Show(s *view.Snapshot)
	// Panes are the crew's Egress and DNS panes and the refusals counted apart when
	// they are not this process's (a master's, added up over its workers); nil and 0
	// for this process's lanes, whose own figures the crawl reads. Mu held.
	Panes(now time.Time) (egress *view.EgressView, dns *view.DNSView, refused int64)
	// ClusterStats is the stats object's part on the workers; nil without any.
	ClusterStats() *view.ClusterStats
	// BusyState is the crawl's state while it has not run dry: RUNNING, or DRAINING
	// on a master with nothing left to hand out. Mu held.
	BusyState() view.State
	Controls
}

// Controls are the operator's controls a crew carries out (the engine's Control
// methods of the same names).
type Controls interface {
	PauseLane(id int, paused bool) error
	PauseHost(host string, paused bool) error
	SetMaxLanes(n int) error
	PlanRebalance() view.RebalancePlan
	ApplyRebalance(p view.RebalancePlan) error
	PauseNode(name string, paused bool) error
	RotateLane(id int) (string, error)
	SetHostDisabled(host string, disabled bool) error
	// PauseHostKept and DisableHostKept set again a host pause, and a disable for
	// d (what is left of it), the store kept from the last run: logged as kept, so
	// an operator reading the log after a restart knows no key was pressed.
	PauseHostKept(host string) error
	DisableHostKept(host string, d time.Duration) error
	AddEgress(spec string) (string, error)
	RemoveEgress(name string) error
	FlushDNS(domain string) (int, error)
}

// Unanswered is a control's error when the crew holds the control all the same but
// some of those who fetch did not carry it out (a master's worker that did not
// answer: the master tells it again as it rejoins, and tells those joining later).
// The crawl keeps such a control as it keeps one every fetcher answered.
type Unanswered struct{ Err error }

func (u *Unanswered) Error() string { return u.Err.Error() }
func (u *Unanswered) Unwrap() error { return u.Err }

// Holds tells whether the crew holds a control that answered err: it did with no
// error, or with an Unanswered one.
func Holds(err error) bool {
	var u *Unanswered
	return err == nil || errors.As(err, &u)
}
