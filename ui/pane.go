package ui

import (
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine"
)

// Pane is one tab of the console body (Lanes, Adjacency groups, Log, and later DNS,
// Egress, Revisit, Nodes). A capability adds its pane with one new file that calls
// registerPane in init; nothing else changes.
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
	SetSnapshot(s *engine.Snapshot) tea.Cmd
	// SetFilter sets the row filter typed after "/".
	SetFilter(f Filter)
	// Update handles a message; see the routing rule above.
	Update(msg tea.Msg) tea.Cmd
	// View renders exactly the visible rows, with the column header.
	View() string
	// Position is a short "row/rows" note for the tab bar ("" if not a list).
	Position() string
}

// paneSpec is a registered pane: its place in the tab order and its constructor.
type paneSpec struct {
	order int
	build func(*Common) Pane
}

var paneSpecs []paneSpec

// registerPane adds a pane to every console built afterwards. order fixes the tab
// order (Lanes 10, Groups 20, Log 30; later panes pick their own). Call from init.
func registerPane(order int, build func(*Common) Pane) {
	paneSpecs = append(paneSpecs, paneSpec{order: order, build: build})
	sort.SliceStable(paneSpecs, func(i, j int) bool { return paneSpecs[i].order < paneSpecs[j].order })
}

// newPanes builds one console's panes, in tab order.
func newPanes(c *Common) []Pane {
	out := make([]Pane, len(paneSpecs))
	for i, s := range paneSpecs {
		out[i] = s.build(c)
	}
	return out
}

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
