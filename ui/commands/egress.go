package commands

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// The egress rotation controls (M3): e and x in the Lanes, Groups and Egress panes,
// and their ":" commands. Every one goes through Common.Control*, so a read-only
// session changes nothing and says so.

func init() {
	for _, c := range []Command{
		{Name: "egress add", Args: "SPEC", Min: 1, Max: 1, Control: true,
			Help: "add bind:IP, http:// or socks5://", Run: runEgressAdd},
		{Name: "egress rm", Args: "NAME", Min: 1, Max: 1, Control: true,
			Help: "remove an egress; lanes move on", Complete: egressNames, Run: runEgressRm},
		{Name: "rotate lane", Args: "N", Min: 1, Max: 1, Control: true,
			Help: "move a lane to another egress (e)", Run: runRotateLane},
		{Name: "disable host", Args: "NAME", Min: 1, Max: 1, Control: true,
			Help: "disable a host; defer its URLs (x)", Complete: knownHosts, Run: hostDisableOp(true)},
		{Name: "enable host", Args: "NAME", Min: 1, Max: 1, Control: true,
			Help: "re-enable a disabled host (x)", Complete: disabledHosts, Run: hostDisableOp(false)},
	} {
		Register(c)
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
		// A host typed wrong is refused, as :pause host refuses it: disabled, a host
		// the crawl does not have would hold nothing while the answer says it does;
		// enabled, a host not disabled has no deferred URLs to bring back.
		shown := inSnapshot(con, host)
		rotation, off := con.Snapshot().Egress != nil, disabledHosts(con)
		return setHostDisabled(con.Common(), host, disabled, func(ctrl control.Control) error {
			switch {
			case disabled:
				return checkHost(ctrl, shown, host)
			case rotation && !slices.Contains(off, host):
				list := "no host is disabled"
				if len(off) > 0 {
					list = "disabled: " + strings.Join(off, ", ")
				}
				return &NotInCrawlError{fmt.Sprintf("host %s is not disabled (%s)", host, list)}
			}
			return nil
		}), nil
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
	return RotateLane(con.Common(), id, from), nil
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
	return con.Common().ControlResult("add egress "+masked, func(ctrl control.Control) (string, error) {
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
	return con.Common().Control("remove egress "+name, "egress "+name+" removed; its lanes moved to the others", func(ctrl control.Control) error {
		return ctrl.RemoveEgress(name)
	}), nil
}
