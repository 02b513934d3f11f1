// Package control is the one interface through which the console, the SSH server
// and the CLI steer a running crawl. It sits apart from the engine so that the UI
// packages depend on this interface and the snapshot types (engine/view) only: they
// and their tests neither build nor link the crawl, its store or its browser.
package control

import (
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Control is everything the console and the CLI may ask of a running crawl.
// *engine.Engine implements it; the UI depends only on this interface (and tests
// use fakes).
type Control interface {
	// Snapshot returns a copy of the crawl's state for display.
	Snapshot() view.Snapshot
	// EventsSince returns up to max events with Seq > after, oldest first.
	EventsSince(after uint64, max int) []view.Event
	// Pause stops handing out new fetches; in-flight requests finish.
	Pause()
	// Resume undoes Pause.
	Resume()
	// PauseLane pauses or resumes one lane by ID.
	PauseLane(id int, paused bool) error
	// PauseNode pauses or resumes one worker of a distributed crawl by name (M4);
	// an error on a single-process crawl or for an unknown worker.
	PauseNode(name string, paused bool) error
	// PauseHost pauses or resumes every lane's fetches to one host.
	PauseHost(host string, paused bool) error
	// KnowsHost says whether the crawl has seen host in any way the Snapshot may
	// not show: a seed on it, or a URL of it in the store, queued, deferred, parked
	// or done. A pause of a host the crawl does not know is refused; one queued
	// and not fetched yet is held back before it starts.
	KnowsHost(host string) (bool, error)
	// SetMaxLanes changes lanes.max at run time (>= 1).
	SetMaxLanes(n int) error
	// PlanRebalance proposes a re-deal of lanes over egresses by observed cost.
	PlanRebalance() view.RebalancePlan
	// ApplyRebalance carries out a plan returned by PlanRebalance.
	ApplyRebalance(p view.RebalancePlan) error

	// RotateLane moves one lane to the least recently used other egress now (M3,
	// the console's `e`); it returns the egress the lane moved to.
	RotateLane(id int) (string, error)
	// SetHostDisabled puts a host on the host_disable_list (its queued URLs are
	// deferred, never dropped) or takes it off and requeues them (M3, `x`).
	SetHostDisabled(host string, disabled bool) error
	// AddEgress adds an egress SPEC at run time (`:egress add`); returns its name.
	AddEgress(spec string) (string, error)
	// RemoveEgress takes an egress out (`:egress rm`); its lanes move to the others.
	RemoveEgress(name string) error
	// FlushDNS drops cached DNS answers for a registered domain, or all if ""
	// (`:dns flush [domain]`); returns how many entries went.
	FlushDNS(domain string) (int, error)

	// RevisitNow puts a stored page back in the crawl queue at once, whatever its
	// next due time (M2, `:revisit now URL`).
	RevisitNow(url string) error

	// Steer makes one live steering change (seeds, sites, keywords, budgets;
	// see ParseSteer), keeps it in the store so it survives a restart, and
	// says what happened.
	Steer(s steer.Change) (string, error)
}
