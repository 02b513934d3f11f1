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
			help: "remove an egress; lanes move on", complete: egressNames, run: runEgressRm},
		{name: "rotate lane", args: "N", min: 1, max: 1, control: true,
			help: "move a lane to another egress (e)", run: runRotateLane},
		{name: "disable host", args: "NAME", min: 1, max: 1, control: true,
			help: "disable a host; defer its URLs (x)", complete: knownHosts, run: hostDisableOp(true)},
		{name: "enable host", args: "NAME", min: 1, max: 1, control: true,
			help: "re-enable a disabled host (x)", complete: disabledHosts, run: hostDisableOp(false)},
	} {
		registerCommand(c)
	}
}

// disabledHosts lists the disable list's hosts, for completion.
func disabledHosts(con Console) []string {
	if con.Snapshot().Egress == nil {
		return nil
	}
	out := make([]string, 0, len(con.Snapshot().Egress.Disabled))
	for _, d := range con.Snapshot().Egress.Disabled {
		out = append(out, d.Host)
	}
	return out
}

// egressNames lists the account table's egresses, for completion.
func egressNames(con Console) []string {
	if con.Snapshot().Egress == nil {
		return nil
	}
	out := make([]string, 0, len(con.Snapshot().Egress.Egresses))
	for _, r := range con.Snapshot().Egress.Egresses {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

func hostDisableOp(disabled bool) func(con Console, args []string) (tea.Cmd, error) {
	return func(con Console, args []string) (tea.Cmd, error) {
		host := strings.TrimSuffix(strings.ToLower(args[0]), ".")
		if host == "" || strings.ContainsAny(host, "/:@") {
			return nil, fmt.Errorf("%q is not a host name", args[0])
		}
		return setHostDisabled(con.Common(), host, disabled), nil
	}
}

func runRotateLane(con Console, args []string) (tea.Cmd, error) {
	id, err := parseLaneID(con, args[0])
	if err != nil {
		return nil, err
	}
	from := ""
	for _, l := range con.Snapshot().Lanes {
		if l.ID == id {
			from = l.Egress
		}
	}
	return rotateLane(con.Common(), id, from), nil
}

// runEgressAdd is ":egress add SPEC". The spec may hold a proxy password, and is
// only ever shown masked. It is parsed as a session's spec (egress.ParseSessionSpec):
// a ${env:}/${file:} reference is refused here, and again by the engine, which also
// refuses a proxy on a private address that its allow_private does not cover.
func runEgressAdd(con Console, args []string) (tea.Cmd, error) {
	spec := args[0]
	sp, err := egress.ParseSessionSpec(spec)
	if err != nil {
		return nil, scrubError(err, spec)
	}
	masked := sp.Masked()
	if sp.Name != "" {
		masked = sp.Name + "=" + masked
	}
	return con.Common().ControlResult("add egress "+masked, func(ctrl engine.Control) (string, error) {
		name, err := ctrl.AddEgress(spec)
		if err != nil {
			return "", scrubError(err, spec)
		}
		return fmt.Sprintf("egress %s added (%s)", name, masked), nil
	}), nil
}

// runEgressRm is ":egress rm NAME"; a name the table does not have is refused here.
func runEgressRm(con Console, args []string) (tea.Cmd, error) {
	name := args[0]
	if v := con.Snapshot().Egress; v != nil && !slices.ContainsFunc(v.Egresses, func(r egress.EgressRow) bool { return r.Name == name }) {
		return nil, fmt.Errorf("no egress %q (have %s)", name, strings.Join(egressNames(con), ", "))
	}
	return con.Common().Control("remove egress "+name, "egress "+name+" removed; its lanes moved to the others", func(ctrl engine.Control) error {
		return ctrl.RemoveEgress(name)
	}), nil
}
