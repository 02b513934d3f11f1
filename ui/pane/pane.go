// Package pane is what every tab of the console is made of: the Pane interface and
// its registry, the Common context a pane gets (styles, keys, clock, and the engine
// reached only in Cmds), the row Filter, the key map, and the list and table
// drawing and the figure formats the panes share. The console (package ui), the
// panes (package panes) and the ":" commands (package commands) import it; it
// imports none of them.
package pane

import (
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Pane is one tab of the console body (Lanes, Adjacency groups, Log, DNS, Egress,
// Revisit, Nodes, Sites: package panes). A capability adds its pane with one new
// file that calls Register in init; nothing else changes.
//
// Routing (glow's focus rule): key and mouse messages reach only the active pane,
// and only when no input (command line, filter, dialog, help) is focused; every
// other message reaches every pane, which ignores what is not its own.
type Pane interface {
	help.KeyMap // the pane's own keys, shown in the help line and the ? overlay

	// Title is the tab label.
	Title() string
	// SetSize gives the body size, column header included.
	SetSize(width, height int)
	// SetSnapshot hands over a newly applied snapshot (not while the view is
	// frozen). The pane may return a Cmd, e.g. to fetch events.
	SetSnapshot(s *view.Snapshot) tea.Cmd
	// SetFilter sets the row filter typed after "/".
	SetFilter(f Filter)
	// Update handles a message; see the routing rule above.
	Update(msg tea.Msg) tea.Cmd
	// View renders exactly the visible rows, with the column header.
	View() string
	// Position is a short "row/rows" note for the tab bar ("" if not a list).
	Position() string
}

// Optional is a Pane only some crawls have: M4's Nodes pane exists only on a
// distributed crawl. While Shown is false the pane has no tab, no number, no keys
// and no place in the ? help, so a crawl without it looks as if it were not there.
// Register optional panes after the stock ones, so the others keep their numbers.
type Optional interface {
	Pane
	// Shown reports whether the last snapshot gives the pane anything to show.
	Shown() bool
}

// paneSpec is a registered pane: its place in the tab order and its constructor.
type paneSpec struct {
	order int
	build func(*Common) Pane
}

var paneSpecs []*paneSpec

// Register adds a pane to every console built afterwards. order fixes the tab
// order (Lanes 10, Groups 20, Log 30; later panes pick their own). Call from init;
// unregister takes the pane away again (a test's extra pane).
func Register(order int, build func(*Common) Pane) (unregister func()) {
	spec := &paneSpec{order: order, build: build}
	paneSpecs = append(paneSpecs, spec)
	sort.SliceStable(paneSpecs, func(i, j int) bool { return paneSpecs[i].order < paneSpecs[j].order })
	return func() { paneSpecs = slices.DeleteFunc(paneSpecs, func(s *paneSpec) bool { return s == spec }) }
}

// Build builds one console's panes, in tab order.
func Build(c *Common) []Pane {
	out := make([]Pane, len(paneSpecs))
	for i, s := range paneSpecs {
		out[i] = s.build(c)
	}
	return out
}

// ClickMsg is a mouse click on row (0 = the column header) of the active pane.
type ClickMsg struct{ Row int }

// Filter is a row filter: a case-insensitive substring, inverted by a leading "!".
type Filter struct {
	text   string // lower-cased needle
	invert bool
}

// ParseFilter reads what the operator typed after "/".
func ParseFilter(s string) Filter {
	f := Filter{}
	if strings.HasPrefix(s, "!") {
		f.invert = true
		s = s[1:]
	}
	f.text = strings.ToLower(s)
	return f
}

// Active reports whether the filter hides anything.
func (f Filter) Active() bool { return f.text != "" }

// String gives the filter back as typed.
func (f Filter) String() string {
	if f.invert {
		return "!" + f.text
	}
	return f.text
}

// Match reports whether a row whose searchable fields are fields passes the filter.
func (f Filter) Match(fields ...string) bool {
	if f.text == "" {
		return true
	}
	hit := false
	for _, s := range fields {
		if containsFold(s, f.text) {
			hit = true
			break
		}
	}
	return hit != f.invert
}

// MatchOnNode is Match for a row that runs on a worker of a distributed crawl (M4):
// a filter that is exactly the name of one of the crawl's workers keeps that
// worker's rows only ("worker-1" must not keep worker-10's); any other filter sees
// the node as one more field. nodes holds the workers' names, lower-cased.
func (f Filter) MatchOnNode(node string, nodes map[string]bool, fields ...string) bool {
	if f.text != "" && nodes[f.text] {
		return strings.EqualFold(node, f.text) != f.invert
	}
	return f.Match(append(fields, node)...)
}

// NodeNames is the set MatchOnNode wants: the workers' names, lower-cased; nil on a
// single-process crawl.
func NodeNames(nodes []view.Node) map[string]bool {
	if len(nodes) == 0 {
		return nil
	}
	out := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		out[strings.ToLower(n.Name)] = true
	}
	return out
}

// containsFold is strings.Contains(strings.ToLower(s), needle) without allocating
// for the ASCII text rows are made of.
func containsFold(s, needle string) bool {
	n := len(needle)
	if n == 0 {
		return true
	}
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}
