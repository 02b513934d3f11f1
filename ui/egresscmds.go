package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// The egress rotation controls (M3): e and x in the Lanes, Groups and Egress panes,
// and their ":" commands. Every one goes through Common.Control*, so a read-only
// session changes nothing and says so.

func init() {
	for _, c := range []command{
		{name: "egress add", args: "SPEC", min: 1, max: 1, control: true,
			help: "add bind:IP, http:// or socks5://", run: runEgressAdd},
		{name: "egress rm", args: "NAME", min: 1, max: 1, control: true,
			help: "remove an egress; lanes move on", complete: (*Model).egressNames, run: runEgressRm},
		{name: "rotate lane", args: "N", min: 1, max: 1, control: true,
			help: "move a lane to another egress (e)", run: runRotateLane},
		{name: "disable host", args: "NAME", min: 1, max: 1, control: true,
			help: "disable a host; defer its URLs (x)", complete: (*Model).knownHosts, run: hostDisableOp(true)},
		{name: "enable host", args: "NAME", min: 1, max: 1, control: true,
			help: "re-enable a disabled host (x)", complete: (*Model).disabledHosts, run: hostDisableOp(false)},
	} {
		registerCommand(c)
	}
}

// rotateLane is e on a lane: the engine moves it to the least recently used other
// egress that may serve its hosts, and says which.
func rotateLane(c *Common, id int, from string) tea.Cmd {
	return c.ControlResult(fmt.Sprintf("rotate lane %d", id), func(ctrl engine.Control) (string, error) {
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

// rotateLanesOff is e on an egress: each of its lanes rotates in turn. Lanes that
// cannot move (retired meanwhile, nowhere to go) are named in the outcome.
func rotateLanesOff(c *Common, name string, ids []int) tea.Cmd {
	return c.ControlResult("move lanes off "+name, func(ctrl engine.Control) (string, error) {
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
		text := fmt.Sprintf("%s: %s moved (%s)", name, plural(len(moved), "lane"), strings.Join(moved, ", "))
		if len(failed) > 0 {
			text += "; " + Refusal("lane "+strings.Join(failed, ", ")+" stayed", firstErr) // not "lane 9 stayed: lane 9: ..."
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

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// setHostDisabled is x: on the host_disable_list the host's queued URLs are set
// aside (deferred, never dropped) until it expires or is taken off.
func setHostDisabled(c *Common, host string, disabled bool) tea.Cmd {
	if disabled {
		return c.Control("disable host "+host, "host "+host+" disabled: its URLs are deferred", func(ctrl engine.Control) error {
			return ctrl.SetHostDisabled(host, true)
		})
	}
	return c.Control("enable host "+host, "host "+host+" enabled: its deferred URLs come back", func(ctrl engine.Control) error {
		return ctrl.SetHostDisabled(host, false)
	})
}

// toggleDisabled is x on a host shown in the Lanes or Groups pane.
func toggleDisabled(c *Common, host string, v *engine.EgressView) tea.Cmd {
	if c.readOnly {
		return status(ReadOnlyText, true)
	}
	return setHostDisabled(c, host, !isDisabled(v, host))
}

// isDisabled reports whether host is on the view's host_disable_list.
func isDisabled(v *engine.EgressView, host string) bool {
	if v == nil {
		return false
	}
	return slices.ContainsFunc(v.Disabled, func(d egress.DisabledHost) bool { return d.Host == host })
}

// disabledHosts lists the disable list's hosts, for completion.
func (m *Model) disabledHosts() []string {
	if m.snap.Egress == nil {
		return nil
	}
	out := make([]string, 0, len(m.snap.Egress.Disabled))
	for _, d := range m.snap.Egress.Disabled {
		out = append(out, d.Host)
	}
	return out
}

// egressNames lists the account table's egresses, for completion.
func (m *Model) egressNames() []string {
	if m.snap.Egress == nil {
		return nil
	}
	out := make([]string, 0, len(m.snap.Egress.Egresses))
	for _, r := range m.snap.Egress.Egresses {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

func hostDisableOp(disabled bool) func(m *Model, args []string) (tea.Cmd, error) {
	return func(m *Model, args []string) (tea.Cmd, error) {
		host := strings.TrimSuffix(strings.ToLower(args[0]), ".")
		if host == "" || strings.ContainsAny(host, "/:@") {
			return nil, fmt.Errorf("%q is not a host name", args[0])
		}
		return setHostDisabled(m.c, host, disabled), nil
	}
}

func runRotateLane(m *Model, args []string) (tea.Cmd, error) {
	id, err := m.parseLaneID(args[0])
	if err != nil {
		return nil, err
	}
	from := ""
	for _, l := range m.snap.Lanes {
		if l.ID == id {
			from = l.Egress
		}
	}
	return rotateLane(m.c, id, from), nil
}

// runEgressAdd is ":egress add SPEC". The spec may hold a proxy password, and is
// only ever shown masked. It is parsed as a session's spec (egress.ParseSessionSpec):
// a ${env:}/${file:} reference is refused here, and again by the engine, which also
// refuses a proxy on a private address that its allow_private does not cover.
func runEgressAdd(m *Model, args []string) (tea.Cmd, error) {
	spec := args[0]
	sp, err := egress.ParseSessionSpec(spec)
	if err != nil {
		return nil, scrubError(err, spec)
	}
	masked := sp.Masked()
	if sp.Name != "" {
		masked = sp.Name + "=" + masked
	}
	return m.c.ControlResult("add egress "+masked, func(ctrl engine.Control) (string, error) {
		name, err := ctrl.AddEgress(spec)
		if err != nil {
			return "", scrubError(err, spec)
		}
		return fmt.Sprintf("egress %s added (%s)", name, masked), nil
	}), nil
}

// runEgressRm is ":egress rm NAME"; a name the table does not have is refused here.
func runEgressRm(m *Model, args []string) (tea.Cmd, error) {
	name := args[0]
	if v := m.snap.Egress; v != nil && !slices.ContainsFunc(v.Egresses, func(r egress.EgressRow) bool { return r.Name == name }) {
		return nil, fmt.Errorf("no egress %q (have %s)", name, strings.Join(m.egressNames(), ", "))
	}
	return m.c.Control("remove egress "+name, "egress "+name+" removed; its lanes moved to the others", func(ctrl engine.Control) error {
		return ctrl.RemoveEgress(name)
	}), nil
}
