package engine

import (
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/crew"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/holds"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Control is control.Control, everything the console and the CLI may ask of a
// running crawl; *Engine implements it.
type Control = control.Control

var _ Control = (*Engine)(nil)

// Snapshot implements Control.
func (e *Engine) Snapshot() view.Snapshot {
	now := e.now()
	rate, hist := e.rate.Current()
	nextRound := e.fr.NextRoundAt()
	e.mu.Lock()
	views := e.lanes.Board.View()
	s := view.Snapshot{
		At: now, State: e.state, StartedAt: e.startedAt, NextRound: nextRound, PagesPerSec: rate, RateHistory: hist,
		QueueDepth: e.lanes.Board.Queued(), LanesBusy: e.lanes.Board.Len(), LanesMax: e.lanes.Board.Max(),
		PausedHosts: e.lanes.Run.PausedHosts(), Egresses: append([]string(nil), e.lanes.Board.Egresses()...),
	}
	s.Render = e.lanes.RenderTelemetry() // the pool's own locks, never e.mu
	if e.disc != nil {
		s.Discovery = e.disc.View() // its own lock, taken under e.mu (discovery never takes e.mu)
	}
	s.QueueDepth += e.fr.SpilledCount() // an estimate of what waits in the store
	waiting := s.QueueDepth             // and the tasks bound to a lane, not yet in hand
	for _, v := range views {
		waiting += v.Queued
	}
	s.State = e.stateNow(nextRound, waiting)
	if s.State == view.StatePaused {
		// A paused crawl fetches nothing: the rate reads 0 at once (header, ctl
		// status, progress lines), not the last seconds' mean falling over the
		// window while the fetches in hand end; the sparkline keeps the history.
		s.PagesPerSec = 0
	}
	if err := e.fr.Failure(); err != nil {
		s.StoreError = front.ErrorText(err)
	}
	s.Lanes, s.Groups = e.lanes.Run.Rows(views, func(hash uint64) string {
		u, _ := e.parentURLs.Peek(hash)
		return u
	})
	e.crew.Show(&s)
	s.Hosts = e.hostsView(s.Groups)
	crewEgress, crewDNS, crewRefused := e.crew.Panes(now)
	peak := e.lanesPeak()
	e.mu.Unlock()
	s.Totals = e.c.Totals(peak)
	s.Totals.Refused += crewRefused
	if crewEgress != nil {
		s.Egress = crewEgress
	}
	s.LastEvent = e.events.Last()
	s.DNS = e.lanes.DNSView(now)
	if crewDNS != nil {
		s.DNS = crewDNS
	}
	e.front.Show(&s, now)
	if pool := e.lanes.Pool; pool != nil {
		v := pool.View()
		s.Egress = &v
	}
	s.Sizing = e.sizing(s.Egress)
	s.Totals.Robots = e.c.RobotsWaiting(disabledHosts(s.Egress))
	return s
}

// disabledHosts are the hosts on the host_disable_list of v (this process's, or a
// master's workers' added up), nil without rotation.
func disabledHosts(v *view.EgressView) map[string]bool {
	if v == nil || len(v.Disabled) == 0 {
		return nil
	}
	m := make(map[string]bool, len(v.Disabled))
	for _, d := range v.Disabled {
		if d.TimeLeft > 0 { // an expired entry waits for the next round to go
			m[d.Host] = true
		}
	}
	return m
}

// stateNow is the crawl's state as the header says it: RUNNING refined by what is
// left (DRAINING, IDLE, DONE), PAUSED, FAILED. waiting counts the tasks no lane
// has in hand yet. Caller holds e.mu.
func (e *Engine) stateNow(nextRound time.Time, waiting int) view.State {
	switch {
	case e.fr.Failure() != nil:
		return view.StateFailed
	case e.state != view.StateRunning:
		return e.state
	case e.paused:
		return view.StatePaused
	case !e.discoveryIdle():
		return e.crew.BusyState()
	case e.fr.Marks().Pending() > 0:
		return view.StateRunning // revisiting
	case !nextRound.IsZero() || e.role.waitsWhenDry(&e.opts):
		return view.StateIdle
	}
	return view.StateDone
}

// EventsSince implements Control.
func (e *Engine) EventsSince(after uint64, max int) []view.Event { return e.events.Since(after, max) }

// Pause implements Control: lanes finish their current request, then wait.
func (e *Engine) Pause() {
	e.mu.Lock()
	changed := !e.paused
	e.paused = true
	e.mu.Unlock()
	e.crew.PausedChanged()
	if changed {
		e.logf(view.LevelInfo, 0, "", "crawl paused by operator")
	}
}

// Resume implements Control.
func (e *Engine) Resume() {
	e.mu.Lock()
	changed := e.paused
	e.paused = false
	e.broadcast()
	e.mu.Unlock()
	e.crew.PausedChanged()
	if changed {
		e.logf(view.LevelInfo, 0, "", "crawl resumed by operator")
	}
}

// PauseLane implements Control.
func (e *Engine) PauseLane(id int, paused bool) error { return e.crew.PauseLane(id, paused) }

// PauseHost implements Control: every lane holds its requests to host. This
// process's runner keeps the pause too: on one box it is the one the crew set, on a
// master (whose workers' lanes hold it) it is what the snapshot's paused hosts say.
func (e *Engine) PauseHost(host string, paused bool) error {
	return e.pauseHost(host, paused, e.crew.PauseHost(host, paused))
}

// pauseHost records a pause the crew holds, whatever a worker answered (crew.Holds).
func (e *Engine) pauseHost(host string, paused bool, err error) error {
	if !crew.Holds(err) {
		return err
	}
	e.mu.Lock()
	e.lanes.Run.SetHostPaused(host, paused)
	e.mu.Unlock()
	e.holds.Pause(host, paused)
	return err
}

// KnowsHost implements Control: a seed on host (before the store took it in), or a
// URL of host in the store. A process without a store (a worker) cannot tell, and
// takes every host.
func (e *Engine) KnowsHost(host string) (bool, error) {
	for _, s := range e.opts.Seeds {
		if n, err := frontier.Normalize(strings.TrimSpace(s)); err == nil && front.HostOf(n) == host {
			return true, nil
		}
	}
	return e.front.KnowsHost(host)
}

// SetMaxLanes implements Control.
func (e *Engine) SetMaxLanes(n int) error { return e.crew.SetMaxLanes(n) }

// PlanRebalance implements Control: on one box lanes over the egress addresses, on
// a master sites and keyword shards over workers.
func (e *Engine) PlanRebalance() view.RebalancePlan { return e.crew.PlanRebalance() }

// ApplyRebalance implements Control: it carries out a plan of PlanRebalance.
func (e *Engine) ApplyRebalance(p view.RebalancePlan) error { return e.crew.ApplyRebalance(p) }

// PauseNode implements Control.
func (e *Engine) PauseNode(name string, paused bool) error { return e.crew.PauseNode(name, paused) }

// RotateLane implements Control: the lane (with what it holds) moves to the least
// recently used other egress that may serve its hosts.
func (e *Engine) RotateLane(id int) (string, error) { return e.crew.RotateLane(id) }

// SetHostDisabled implements Control: the disable lasts rotation.disable_for, and
// the store keeps it (and the pauses) for the next start (restoreHolds). Enabled
// again, the host gets back its URLs the store holds deferred, those an earlier run
// set aside included (the crew knows only its own run's).
func (e *Engine) SetHostDisabled(host string, disabled bool) error {
	err := e.crew.SetHostDisabled(host, disabled)
	e.holds.Disabled(host, disabled, e.now().Add(e.opts.Rotation.DisableFor), err)
	if !disabled && crew.Holds(err) && e.st != nil {
		e.st.UndeferHost(host, e.now())
	}
	return err
}

// restoreHolds sets again the host pauses and disables the operator left on the
// store's last run (package holds), before the first task is handed out.
func (e *Engine) restoreHolds() {
	e.holds = holds.New(e.st)
	e.held = e.holds.Restore(holds.Controls{DisableFor: e.crew.DisableHostKept,
		PauseHost: func(h string) error { return e.pauseHost(h, true, e.crew.PauseHostKept(h)) },
		Warn:      func(msg string) { e.logf(view.LevelWarn, 0, "", "%s", msg) }}, e.now())
}

// HeldHosts are the operator's host holds the start set again (the start line
// says them).
func (e *Engine) HeldHosts() holds.Restored { return e.held }

// AddEgress implements Control: the egress joins the table and the node's list at
// once (the operator wants it used), with its own transport. The spec comes from a
// console session: a ${env:}/${file:} password reference is refused, and so is a
// proxy on a loopback/private/link-local address that allow_private does not cover.
func (e *Engine) AddEgress(spec string) (string, error) { return e.crew.AddEgress(spec) }

// RemoveEgress implements Control.
func (e *Engine) RemoveEgress(name string) error { return e.crew.RemoveEgress(name) }

// FlushDNS implements Control.
func (e *Engine) FlushDNS(domain string) (int, error) { return e.crew.FlushDNS(domain) }
