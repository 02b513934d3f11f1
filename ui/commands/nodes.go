package commands

import (
	"fmt"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

func init() {
	for _, c := range []Command{
		{Name: "pause node", Args: "NAME", Min: 1, Max: 1, Control: true, Help: "pause one worker (it keeps its hosts)",
			When: hasWorkers, Complete: nodesNot(view.NodePaused), Run: nodeOp(true)},
		{Name: "resume node", Args: "NAME", Min: 1, Max: 1, Control: true, Help: "resume a paused worker",
			When: hasWorkers, Complete: nodesIn(view.NodePaused), Run: nodeOp(false)},
	} {
		Register(c)
	}
}

// hasWorkers reports whether the crawl has workers (M4).
func hasWorkers(con Console) bool { return len(con.Snapshot().Nodes) > 0 }

// nodeOp runs :pause node NAME and :resume node NAME.
func nodeOp(paused bool) func(con Console, args []string) (tea.Cmd, error) {
	return func(con Console, args []string) (tea.Cmd, error) {
		name, err := parseNode(con, args[0])
		if err != nil {
			return nil, err
		}
		return SetNodePaused(con.Common(), name, paused), nil
	}
}

// parseNode checks the crawl has a worker called s (the case may differ) and
// returns its name.
func parseNode(con Console, s string) (string, error) {
	if !hasWorkers(con) {
		return "", fmt.Errorf("no nodes: this crawl runs in one process")
	}
	var names []string
	for _, n := range con.Snapshot().Nodes {
		if strings.EqualFold(n.Name, s) {
			return n.Name, nil
		}
		names = append(names, n.Name)
	}
	return "", fmt.Errorf("no node %q (have %s)", s, strings.Join(names, ", "))
}

// nodesIn completes the names of the workers in state s; nodesNot the others'.
func nodesIn(s view.NodeState) func(Console) []string {
	return func(con Console) []string {
		return nodeNamesWhere(con, func(n view.NodeState) bool { return n == s })
	}
}

func nodesNot(s view.NodeState) func(Console) []string {
	return func(con Console) []string {
		return nodeNamesWhere(con, func(n view.NodeState) bool { return n != s })
	}
}

func nodeNamesWhere(con Console, keep func(view.NodeState) bool) []string {
	var out []string
	for _, n := range con.Snapshot().Nodes {
		if keep(n.State) {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return out
}
