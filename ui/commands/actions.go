package commands

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// The controls a pane's key and a ":" command share. Each goes through
// Common.Control or ControlResult, so it runs in a Cmd and a read-only session
// changes nothing.

// ToggleLane pauses a running lane or resumes a paused one.
func ToggleLane(c *pane.Common, id int, paused bool) tea.Cmd {
	v := verbs[!paused]
	return c.Control(fmt.Sprintf("%s lane %d", v[0], id), fmt.Sprintf("lane %d %s", id, v[1]), func(ctrl control.Control) error {
		return ctrl.PauseLane(id, !paused)
	})
}

// ToggleHost pauses a host or resumes it if it is on the paused list.
func ToggleHost(c *pane.Common, host string, pausedHosts []string) tea.Cmd {
	_, paused := slices.BinarySearch(pausedHosts, host)
	v := verbs[!paused]
	return c.Control(fmt.Sprintf("%s host %s", v[0], host), fmt.Sprintf("host %s %s", host, v[1]), func(ctrl control.Control) error {
		return ctrl.PauseHost(host, !paused)
	})
}

// SetNodePaused pauses or resumes one worker (M4). A paused worker keeps its hosts
// and fetches nothing; the global p pauses every worker through the master.
func SetNodePaused(c *pane.Common, name string, paused bool) tea.Cmd {
	v := verbs[paused]
	return c.Control(v[0]+" node "+name, "node "+name+" "+v[1], func(ctrl control.Control) error {
		return ctrl.PauseNode(name, paused)
	})
}

// RevisitNow asks the engine to refetch u now (n, ":revisit now URL").
func RevisitNow(c *pane.Common, u string) tea.Cmd {
	return c.Control("revisit "+u+" now", u+" queued for a refetch now", func(ctrl control.Control) error {
		return ctrl.RevisitNow(u)
	})
}

// RotateLane is e on a lane: the engine moves it to the least recently used other
// egress that may serve its hosts, and says which.
func RotateLane(c *pane.Common, id int, from string) tea.Cmd {
	return c.ControlResult(fmt.Sprintf("rotate lane %d", id), func(ctrl control.Control) (string, error) {
		to, err := ctrl.RotateLane(id)
		if err != nil {
			return "", err
		}
		if from == "" {
			return fmt.Sprintf("lane %d rotated to %s", id, to), nil
		}
		return fmt.Sprintf("lane %d rotated: %s -> %s", id, from, to), nil
	})
}

// RotateLanesOff is e on an egress: each of its lanes rotates in turn. Lanes that
// cannot move (retired meanwhile, nowhere to go) are named in the outcome.
func RotateLanesOff(c *pane.Common, name string, ids []int) tea.Cmd {
	return c.ControlResult("move lanes off "+name, func(ctrl control.Control) (string, error) {
		var moved, failed []string
		var firstErr error
		for _, id := range ids {
			to, err := ctrl.RotateLane(id)
			if err != nil {
				failed = append(failed, fmt.Sprint(id))
				firstErr = cmpOr(firstErr, err)
				continue
			}
			moved = append(moved, fmt.Sprintf("%d->%s", id, to))
		}
		if len(moved) == 0 {
			return "", firstErr
		}
		text := fmt.Sprintf("%s: %s moved (%s)", name, plural.Count(len(moved), "lane"), strings.Join(moved, ", "))
		if len(failed) > 0 {
			text += "; " + pane.Refusal("lane "+strings.Join(failed, ", ")+" stayed", firstErr) // not "lane 9 stayed: lane 9: ..."
		}
		return text, nil
	})
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// SetHostDisabled is x: on the host_disable_list the host's queued URLs are set
// aside (deferred, never dropped) until it expires or is taken off.
func SetHostDisabled(c *pane.Common, host string, disabled bool) tea.Cmd {
	return setHostDisabled(c, host, disabled, nil)
}

// setHostDisabled is SetHostDisabled after check, run first in the Cmd (nil: none).
func setHostDisabled(c *pane.Common, host string, disabled bool, check func(control.Control) error) tea.Cmd {
	do := func(ctrl control.Control) error {
		if check != nil {
			if err := check(ctrl); err != nil {
				return err
			}
		}
		return ctrl.SetHostDisabled(host, disabled)
	}
	if disabled {
		return c.Control("disable host "+host, "host "+host+" disabled: its URLs are deferred", do)
	}
	return c.Control("enable host "+host, "host "+host+" enabled: its deferred URLs come back", do)
}

// ToggleDisabled is x on a host shown in the Lanes or Groups pane.
func ToggleDisabled(c *pane.Common, host string, v *view.EgressView) tea.Cmd {
	if c.ReadOnly {
		return pane.Status(pane.ReadOnlyText, true)
	}
	return SetHostDisabled(c, host, !IsDisabled(v, host))
}

// IsDisabled reports whether host is on the view's host_disable_list.
func IsDisabled(v *view.EgressView, host string) bool {
	if v == nil {
		return false
	}
	return slices.ContainsFunc(v.Disabled, func(d egress.DisabledHost) bool { return d.Host == host })
}

// LaneTarget is what the lane keys (p, H, e, x) act on, in the Lanes and the
// Groups pane alike: a lane, whether it is paused, its egress, and the host H and
// x take ("" when the lane holds none).
type LaneTarget struct {
	Lane   int
	Paused bool
	Egress string
	Host   string
}

// LaneKey runs the lane key k (PauseLane, PauseHost, Rotate, DisableHost) on t,
// nil when no row is selected (none says so: "no lane selected"); the paused hosts
// and the egress view decide which way H and x toggle. It reports false for any
// other key. e and x are refused in a read-only session before anything else.
func LaneKey(c *pane.Common, k string, t *LaneTarget, none string, pausedHosts []string, eg *view.EgressView) (tea.Cmd, bool) {
	km := c.Keys
	switch {
	case !pane.Matches(k, km.PauseLane, km.PauseHost, km.Rotate, km.DisableHost):
		return nil, false
	case c.ReadOnly && pane.Matches(k, km.Rotate, km.DisableHost):
		return pane.Status(pane.ReadOnlyText, true), true
	case t == nil:
		return pane.Status(none, true), true
	case t.Host == "" && pane.Matches(k, km.PauseHost, km.DisableHost):
		return pane.Status(fmt.Sprintf("lane %d holds no host", t.Lane), true), true
	case pane.Matches(k, km.PauseLane):
		return ToggleLane(c, t.Lane, t.Paused), true
	case pane.Matches(k, km.PauseHost):
		return ToggleHost(c, t.Host, pausedHosts), true
	case pane.Matches(k, km.Rotate):
		return RotateLane(c, t.Lane, t.Egress), true
	}
	return ToggleDisabled(c, t.Host, eg), true
}
