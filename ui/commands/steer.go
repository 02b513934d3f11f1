package commands

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/steer"
)

// Live steering: seeds, sites, keywords, budgets and date windows change while the
// crawl runs. Each command's words go to steer.Parse, the parser
// `crawlconsole ctl` uses too, and the change to Control.Steer: over SSH and over
// NATS (console --attach) alike. A read-only session changes nothing.
//
// :budget takes a site's or a host's page budget, per round or in total:
// "budget SITE N", "budget SITE N total", "budget host HOST N [total]" (0: no cap).

func init() {
	for _, c := range []Command{
		{Name: "seed add", Args: "URL", Min: 1, Max: 1, Help: "queue a new seed URL now"},
		{Name: "site add", Args: "KIND …", Min: 2, Max: 64,
			Help: "news URL [KW…] | social NAME TEMPLATE [KW…]"},
		{Name: "site rm", Args: "NAME", Min: 1, Max: 1, Help: "stop a site's rounds (nothing deleted)",
			Complete: siteNames},
		{Name: "keyword add", Args: "SITE WORD", Min: 2, Max: 16, Help: "add a keyword; social sites search it now",
			Complete: siteNames},
		{Name: "keyword rm", Args: "SITE WORD", Min: 2, Max: 16, Help: "remove a keyword from a site",
			Complete: siteNames},
		{Name: "budget", Args: "SITE N [round|total]", Min: 2, Max: 4, Help: "also: budget host HOST N …",
			Complete: budgetTargets},
		{Name: "window", Args: "SITE DAYS", Min: 2, Max: 2, Help: "news keyword results only from pages published in the last DAYS days (0: any date)",
			Complete: siteNames},
	} {
		c.Control = true
		c.Run = runSteer(c.Name)
		Register(c)
	}
}

// runSteer parses a steering command's words and sends the change.
func runSteer(name string) func(con Console, args []string) (tea.Cmd, error) {
	return func(con Console, args []string) (tea.Cmd, error) {
		s, err := steer.Parse(append(strings.Fields(name), args...))
		if err != nil {
			return nil, err
		}
		return con.Common().ControlResult(s.String(), func(ctrl control.Control) (string, error) {
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
