package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine"
)

// Live steering: seeds, sites, keywords and budgets change while the
// crawl runs. Each command's words go to engine.ParseSteer, the parser
// `crawlconsole ctl` uses too, and the change to Control.Steer: over SSH and over
// NATS (console --attach) alike. A read-only session changes nothing.
//
// :budget takes a site's or a host's page budget, per round or in total:
// "budget SITE N", "budget SITE N total", "budget host HOST N [total]" (0: no cap).

func init() {
	for _, c := range []command{
		{name: "seed add", args: "URL", min: 1, max: 1, help: "queue a new seed URL now"},
		{name: "site add", args: "KIND …", min: 2, max: 64,
			help: "news URL [KW…] | social NAME TEMPLATE [KW…]"},
		{name: "site rm", args: "NAME", min: 1, max: 1, help: "stop a site's rounds (nothing deleted)",
			complete: siteNames},
		{name: "keyword add", args: "SITE WORD", min: 2, max: 16, help: "add a keyword; social sites search it now",
			complete: siteNames},
		{name: "keyword rm", args: "SITE WORD", min: 2, max: 16, help: "remove a keyword from a site",
			complete: siteNames},
		{name: "budget", args: "SITE N [round|total]", min: 2, max: 4, help: "also: budget host HOST N …",
			complete: budgetTargets},
	} {
		c.control = true
		c.run = runSteer(c.name)
		registerCommand(c)
	}
}

// runSteer parses a steering command's words and sends the change.
func runSteer(name string) func(con Console, args []string) (tea.Cmd, error) {
	return func(con Console, args []string) (tea.Cmd, error) {
		s, err := engine.ParseSteer(append(strings.Fields(name), args...))
		if err != nil {
			return nil, err
		}
		return con.Common().ControlResult(s.String(), func(ctrl engine.Control) (string, error) {
			return ctrl.Steer(s)
		}), nil
	}
}

// budgetTargets proposes the sites' names and the word that starts a host's budget.
func budgetTargets(con Console) []string { return append(siteNames(con), "host") }

// siteNames proposes the declared sites' names for completion.
func siteNames(con Console) []string {
	if con.Snapshot().Sites == nil {
		return nil
	}
	out := make([]string, 0, len(con.Snapshot().Sites.Sites))
	for _, s := range con.Snapshot().Sites.Sites {
		out = append(out, s.Name)
	}
	return out
}
