package panes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/themes"
	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() { pane.Register(20, newGroupsPane) }

// groupsPane shows the adjacency groups (M1): which hosts and parent pages are
// bound to which lane. A URL joins the lane holding its host or its parent, so this
// is the answer to "why did this URL go to lane 7". Each group expands to its hosts
// and parents. On a distributed crawl (M4) each lane's worker shows in a NODE column.
type groupsPane struct {
	c             *pane.Common
	width, height int
	groups        []view.Group
	lanePaused    map[laneKey]bool
	laneSide
	expanded map[laneKey]bool // by node and lane ID; survives snapshots
	rows     []groupRow       // flattened visible tree
	filter   pane.Filter
	list     pane.List
}

// groupRow is one line of the flattened tree: a group, or one of its hosts/parents.
type groupRow struct {
	group int // index into groups
	kind  rowKind
	index int // index into the group's Hosts or Parents
}

type rowKind uint8

const (
	rowGroup rowKind = iota
	rowHost
	rowParent
)

func newGroupsPane(c *pane.Common) pane.Pane {
	return &groupsPane{c: c, expanded: map[laneKey]bool{}, lanePaused: map[laneKey]bool{}}
}

func (p *groupsPane) Title() string { return "Groups" }

func (p *groupsPane) ShortHelp() []key.Binding {
	k := p.c.Keys
	return []key.Binding{k.Toggle, k.PauseLane, k.PauseHost, k.Rotate, k.DisableHost}
}

func (p *groupsPane) FullHelp() [][]key.Binding {
	k := p.c.Keys
	return [][]key.Binding{{k.Toggle, k.Expand, k.Collapse, k.PauseLane, k.PauseHost, k.Rotate, k.DisableHost}, k.NavHelp()}
}

func (p *groupsPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.list.Height = h - 1
	p.list.Clamp(len(p.rows))
}

func (p *groupsPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	pane.Keep(p.cursorKey, func() {
		p.groups = s.Groups
		setLaneSide(&p.laneSide, s, p.groups, func(g *view.Group) string { return g.Egress }, func(g *view.Group) string { return g.Node })
		clear(p.lanePaused)
		for _, l := range s.Lanes {
			if l.Paused {
				p.lanePaused[laneKey{l.Node, l.ID}] = true
			}
		}
		p.flatten()
	}, p.restore)
	return nil
}

func (p *groupsPane) SetFilter(f pane.Filter) {
	pane.Keep(p.cursorKey, func() {
		p.filter = f
		p.flatten()
	}, p.restore)
}

// rowKey identifies a row across snapshots: the lane, kind and the host/parent.
type rowKey struct {
	lane laneKey
	kind rowKind
	name string
}

// laneOf is the key of group g's lane.
func laneOf(g *view.Group) laneKey { return laneKey{g.Node, g.Lane} }

func (p *groupsPane) keyOf(r groupRow) rowKey {
	g := &p.groups[r.group]
	k := rowKey{lane: laneOf(g), kind: r.kind}
	switch r.kind {
	case rowHost:
		k.name = g.Hosts[r.index].Host
	case rowParent:
		k.name = strconv.FormatUint(g.Parents[r.index].Hash, 16)
	}
	return k
}

func (p *groupsPane) cursorKey() (rowKey, bool) {
	if p.list.Cursor < 0 || p.list.Cursor >= len(p.rows) {
		return rowKey{}, false
	}
	return p.keyOf(p.rows[p.list.Cursor]), true
}

// restore puts the cursor back on the row it was on, or on its group.
func (p *groupsPane) restore(k rowKey) {
	fallback := -1
	for i, r := range p.rows {
		rk := p.keyOf(r)
		if rk == k {
			p.list.Cursor = i
			p.list.Clamp(len(p.rows))
			return
		}
		if rk.lane == k.lane && rk.kind == rowGroup {
			fallback = i
		}
	}
	if fallback >= 0 {
		p.list.Cursor = fallback
	}
	p.list.Clamp(len(p.rows))
}

// flatten lays the groups out as rows, expanded groups followed by their children.
func (p *groupsPane) flatten() {
	p.rows = p.rows[:0]
	for gi := range p.groups {
		g := &p.groups[gi]
		if p.filter.Active() && !p.filter.MatchOnNode(g.Node, p.nodes, groupFields(g)...) {
			continue
		}
		p.rows = append(p.rows, groupRow{group: gi, kind: rowGroup})
		if !p.expanded[laneOf(g)] {
			continue
		}
		for i := range g.Hosts {
			p.rows = append(p.rows, groupRow{group: gi, kind: rowHost, index: i})
		}
		for i := range g.Parents {
			p.rows = append(p.rows, groupRow{group: gi, kind: rowParent, index: i})
		}
	}
	p.list.Clamp(len(p.rows))
}

func groupFields(g *view.Group) []string {
	f := []string{"lane " + strconv.Itoa(g.Lane), g.Egress}
	for _, h := range g.Hosts {
		f = append(f, h.Host)
	}
	for _, pr := range g.Parents {
		f = append(f, pr.URL)
	}
	return f
}

func (p *groupsPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		k := msg.String()
		if p.list.Navigate(p.c.Keys, k, len(p.rows)) {
			return nil
		}
		var t *commands.LaneTarget
		if p.list.Cursor < len(p.rows) {
			r := p.rows[p.list.Cursor]
			g := &p.groups[r.group]
			switch {
			case pane.Matches(k, p.c.Keys.Toggle):
				p.setExpanded(laneOf(g), !p.expanded[laneOf(g)])
				return nil
			case pane.Matches(k, p.c.Keys.Expand):
				p.setExpanded(laneOf(g), true)
				return nil
			case pane.Matches(k, p.c.Keys.Collapse):
				p.setExpanded(laneOf(g), false)
				return nil
			}
			t = &commands.LaneTarget{Lane: g.Lane, Paused: p.lanePaused[laneOf(g)], Egress: g.Egress, Host: rowHostName(g, r)}
		}
		cmd, _ := commands.LaneKey(p.c, k, t, "no group selected", p.pausedHosts, p.egress)
		return cmd
	case pane.ClickMsg:
		if msg.Row >= 1 { // row 0 is the column header
			p.list.Cursor = p.list.Offset + msg.Row - 1
			p.list.Clamp(len(p.rows))
		}
	}
	return nil
}

// rowHostName is the host H and x act on: the host row's, else the group's first.
func rowHostName(g *view.Group, r groupRow) string {
	switch {
	case r.kind == rowHost:
		return g.Hosts[r.index].Host
	case len(g.Hosts) > 0:
		return g.Hosts[0].Host
	}
	return ""
}

// setExpanded opens or closes a group, keeping the cursor on the group's row.
func (p *groupsPane) setExpanded(lane laneKey, open bool) {
	p.expanded[lane] = open
	if !open {
		delete(p.expanded, lane)
	}
	p.flatten()
	p.restore(rowKey{lane: lane, kind: rowGroup})
}

func (p *groupsPane) Position() string { return p.list.Position(len(p.rows)) }

func (p *groupsPane) columns() []pane.Column {
	cols := []pane.Column{
		{Title: "", Width: 1},
		{Title: "LANE", Width: 4, Right: true},
	}
	if p.nodeW > 0 {
		cols = append(cols, pane.Column{Title: "NODE", Width: p.nodeW})
	}
	return pane.LayoutColumns(append(cols,
		pane.Column{Title: "EGRESS", Width: max(p.egressW, 6)},
		pane.Column{Title: "HOSTS", Width: 5, Right: true},
		pane.Column{Title: "PARENTS", Width: 7, Right: true},
		pane.Column{Title: "TASKS", Width: 5, Right: true},
		pane.Column{Title: "BOUND HOSTS"},
	), p.width)
}

func (p *groupsPane) View() string {
	st := p.c.Styles
	cols := p.columns()
	var b strings.Builder
	b.WriteString(pane.HeaderRow(st, cols, p.width))
	if len(p.rows) == 0 {
		msg := "no adjacency groups yet: a lane binds the hosts and parent pages of its URLs (M1)"
		if p.filter.Active() {
			msg = pane.NoMatch("group", p.filter)
		}
		b.WriteString("\n" + pane.Note(st, msg, p.width))
		return b.String()
	}
	cells := make([]string, 0, len(cols))
	childIndent := cols[0].Width + cols[1].Width + 2 // under EGRESS
	if p.nodeW > 0 {
		childIndent += cols[2].Width + 1
	}
	from, to := p.list.Visible(len(p.rows))
	for i := from; i < to; i++ {
		r := p.rows[i]
		g := &p.groups[r.group]
		sel := i == p.list.Cursor
		b.WriteString("\n")
		switch r.kind {
		case rowGroup:
			mark := "+"
			if p.expanded[laneOf(g)] {
				mark = "-"
			}
			tasks := 0
			names := make([]string, 0, min(len(g.Hosts), 4))
			for j, h := range g.Hosts {
				tasks += h.Tasks
				if j < 4 {
					names = append(names, h.Host)
				}
			}
			// Every task is bound by its host, and by its parent if it has one: the
			// hosts' counts are the group's tasks (adding the parents' counted most twice).
			bound := strings.Join(names, ", ")
			if len(g.Hosts) > len(names) {
				bound += fmt.Sprintf(" +%d", len(g.Hosts)-len(names))
			}
			if p.lanePaused[laneOf(g)] {
				bound = "[paused] " + bound
			}
			cells = append(cells[:0], mark, strconv.Itoa(g.Lane))
			if p.nodeW > 0 {
				cells = append(cells, g.Node)
			}
			cells = append(cells, g.Egress, strconv.Itoa(len(g.Hosts)),
				strconv.Itoa(len(g.Parents)), strconv.Itoa(tasks), bound)
			b.WriteString(pane.TableRow(st, cols, cells, p.width, sel, -1, nil))
		case rowHost:
			h := g.Hosts[r.index]
			text := fmt.Sprintf("host    %s  (%s)", h.Host, plural.Count(h.Tasks, "task"))
			if isPausedHost(p.pausedHosts, h.Host) {
				text += "  paused"
			}
			if g := gapCell(h.Gap, h.GapWhy); g != "-" {
				text += "  gap " + g // the host's politeness gap and why
			}
			b.WriteString(p.childRow(text, childIndent, sel))
		case rowParent:
			pr := g.Parents[r.index]
			u := pr.URL
			if u == "" {
				u = fmt.Sprintf("#%016x", pr.Hash)
			}
			b.WriteString(p.childRow(fmt.Sprintf("parent  %s  (%s)", u, plural.Count(pr.Tasks, "task")), childIndent, sel))
		}
	}
	return b.String()
}

func (p *groupsPane) childRow(text string, indent int, sel bool) string {
	st := p.c.Styles
	lead := "  "
	if sel {
		lead = themes.SelectionGlyph + " "
	}
	line := pane.Fit(lead+strings.Repeat(" ", indent)+text, p.width)
	if sel {
		return st.Selected.Render(line)
	}
	return st.Muted.Render(line)
}

func isPausedHost(paused []string, host string) bool {
	for _, h := range paused {
		if h == host {
			return true
		}
	}
	return false
}
