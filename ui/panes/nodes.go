package panes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/themes"
	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() { pane.Register(70, newNodesPane) }

// late is two of the crawl's heartbeat periods (pane.HeartbeatLate).
func (p *nodesPane) late() time.Duration { return pane.HeartbeatLate(p.hb) }

// lateMark follows a late heartbeat's age, so it shows without colour (NO_COLOR).
const lateMark = " !"

// nodesPane is the distributed crawl's worker table (M4): one row per worker with its
// state, the age of its last heartbeat, its egresses, lanes, rate, queue, the hosts
// it holds and the results the master committed from it (and dropped as late
// duplicates). It has a tab only while the snapshot has workers.
type nodesPane struct {
	c             *pane.Common
	width, height int
	nodes         []view.Node
	at            time.Time         // the snapshot's time: heartbeats are aged on the master's clock
	hb            time.Duration     // the workers' heartbeat period (0: not given)
	sizing        *view.Sizing      // seed 003's estimates (workers and VPNs needed)
	join          string            // the command a worker joins with; "" off a master
	rows          pane.Rows[string] // over nodes, keyed by name
	nameW         int
}

// nodesTop is the lines above the table: the summary and the column header.
const nodesTop = 2

func newNodesPane(c *pane.Common) pane.Pane {
	p := &nodesPane{c: c}
	p.rows = pane.NewRows(func() int { return len(p.nodes) }, func(i int) string { return p.nodes[i].Name },
		func(f pane.Filter, i int) bool {
			n := &p.nodes[i]
			return f.Match(append([]string{n.Name, string(n.State)}, n.Egresses...)...)
		})
	return p
}

func (p *nodesPane) Title() string { return "Nodes" }

// Shown: only a distributed crawl has workers; a master has the pane before the
// first joins, to say how one does.
func (p *nodesPane) Shown() bool { return len(p.nodes) > 0 || p.join != "" }

func (p *nodesPane) ShortHelp() []key.Binding { return []key.Binding{p.c.Keys.PauseNode} }

func (p *nodesPane) FullHelp() [][]key.Binding {
	return [][]key.Binding{{p.c.Keys.PauseNode}, p.c.Keys.NavHelp()}
}

func (p *nodesPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.rows.SetHeight(max(h-nodesTop, 1))
}

func (p *nodesPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	p.rows.Change(func() {
		p.nodes = s.Nodes
		p.at = s.At
		p.hb = s.HeartbeatEvery
		p.sizing = s.Sizing
		p.join = s.Join
		p.nameW = pane.NameWidth(p.nodes, func(n *view.Node) string { return n.Name }, 4, 16)
	})
	return nil
}

func (p *nodesPane) SetFilter(f pane.Filter) { p.rows.SetFilter(f) }

func (p *nodesPane) Update(msg tea.Msg) tea.Cmd {
	if p.rows.Handle(p.c.Keys, msg, nodesTop) {
		return nil
	}
	if k, ok := msg.(tea.KeyMsg); ok && pane.Matches(k.String(), p.c.Keys.PauseNode) {
		i, ok := p.rows.At()
		if !ok {
			return pane.Status("no node selected", true)
		}
		n := &p.nodes[i]
		return commands.SetNodePaused(p.c, n.Name, n.State != view.NodePaused)
	}
	return nil
}

func (p *nodesPane) Position() string { return p.rows.Position() }

func (p *nodesPane) columns() []pane.Column {
	cols := []pane.Column{
		{Title: "NODE", Width: p.nameW},
		{Title: "STATE", Width: 7},
		{Title: "HEARTBEAT", Width: 9},
		{Title: "EGRESSES"},
		{Title: "LANES", Width: 5, Right: true},
		{Title: "PG/S", Width: 6, Right: true},
		{Title: "QUEUE", Width: 6, Right: true},
		{Title: "HOSTS", Width: 5, Right: true},
	}
	if p.wide() { // seed 003's assignment: what each holds, its weight and cost
		cols = append(cols, pane.Column{Title: "SITES", Width: 5, Right: true}, pane.Column{Title: "WEIGHT", Width: 6, Right: true},
			pane.Column{Title: "COST", Width: 6, Right: true})
	}
	cols = append(cols, pane.Column{Title: "RESULTS", Width: 7, Right: true}, pane.Column{Title: "LATE", Width: 4, Right: true})
	return pane.LayoutColumns(cols, p.width)
}

// wide says the pane has room for the balancing columns (SITES, WEIGHT, COST).
func (p *nodesPane) wide() bool { return p.width >= 110 }

// Column indexes of the accented cells.
const (
	nodeStateCol     = 1
	nodeHeartbeatCol = 2
	nodeEgressesCol  = 3
)

func (p *nodesPane) View() string {
	st := p.c.Styles
	var b strings.Builder
	b.WriteString(p.summary())
	b.WriteString("\n")
	cols := p.columns()
	b.WriteString(pane.HeaderRow(st, cols, p.width))
	if len(p.nodes) == 0 {
		b.WriteString(joinLines(st, "no worker has joined yet; start one on any box that reaches this master:", p.join, p.width))
		return b.String()
	}
	cells := make([]string, 0, len(cols))
	p.rows.WriteBody(&b, st, p.width, pane.NoMatch("node", p.rows.Filter), func(i int, sel bool) string {
		n := &p.nodes[i]
		age, late := p.heartbeat(n)
		cells = append(cells[:0],
			n.Name,
			string(n.State),
			age,
			listCell(n.Egresses, cols[nodeEgressesCol].Width),
			strconv.Itoa(n.Lanes)+"/"+strconv.Itoa(n.LanesMax),
			strconv.FormatFloat(n.PagesPerSec, 'f', 1, 64),
			pane.Thousands(int64(n.Queue)),
			pane.Thousands(int64(n.Hosts)),
		)
		if p.wide() {
			cells = append(cells, sitesCell(n), strconv.FormatFloat(n.Weight, 'f', 3, 64), pane.ShortDuration(n.Cost))
		}
		cells = append(cells,
			pane.Thousands(n.Results),
			pane.Thousands(n.Late),
		)
		state := p.stateStyle(n.State)
		return pane.StyledRow(st, cols, cells, p.width, sel, func(i int) *lipgloss.Style {
			switch {
			case i == nodeStateCol:
				return &state
			case i == nodeHeartbeatCol && late:
				return &st.Bad
			}
			return nil
		})
	})
	return b.String()
}

// heartbeat is the age of a worker's last heartbeat ("2s ago") and whether it is
// late. Ages are taken on the snapshot's clock, the master's, so a console attached
// from another machine is not fooled by clock skew.
func (p *nodesPane) heartbeat(n *view.Node) (string, bool) {
	now := p.at
	if now.IsZero() {
		now = p.c.Now()
	}
	d, never, late := pane.HeartbeatAge(*n, now, p.hb)
	switch {
	case never:
		return "never", true
	case late:
		return ago(d) + lateMark, true
	}
	return ago(d), false
}

// ago says how long ago in one unit: "2s ago", "14m ago", "3h ago", "2d ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s ago"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h ago"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d ago"
}

// stateStyle colours a worker's state like the crawl states in the header.
func (p *nodesPane) stateStyle(s view.NodeState) lipgloss.Style {
	st := p.c.Styles
	switch s {
	case view.NodeActive:
		return st.State(string(view.StateRunning))
	case view.NodePaused:
		return st.State(string(view.StatePaused))
	case view.NodeLeaving:
		return st.State(string(view.StateStopping))
	case view.NodeLeft:
		return st.Muted // the operator stopped it; nothing was lost
	}
	return st.Bad
}

// summary is the line above the table: workers by state, their total rate, and
// what the heartbeat mark means.
func (p *nodesPane) summary() string {
	st := p.c.Styles
	count := map[view.NodeState]int{}
	rate := 0.0
	for _, n := range p.nodes {
		count[n.State]++
		if n.State != view.NodeDead && n.State != view.NodeLeft { // a gone worker's last heartbeat is no rate
			rate += n.PagesPerSec
		}
	}
	var states []string
	for _, s := range []view.NodeState{view.NodeActive, view.NodePaused, view.NodeLeaving, view.NodeDead, view.NodeLeft} {
		if count[s] > 0 {
			states = append(states, fmt.Sprintf("%d %s", count[s], s))
			delete(count, s)
		}
	}
	var other []string // states this console does not know yet
	for s, c := range count {
		other = append(other, fmt.Sprintf("%d %s", c, s))
	}
	sort.Strings(other)
	states = append(states, other...)
	left := fmt.Sprintf(" %s: %s · %s", plural.Count(len(p.nodes), "worker"), strings.Join(states, ", "), pane.Rate(rate))
	if len(p.nodes) == 0 {
		left = " 0 workers: waiting for the first to join"
	}
	if z := p.sizing; z != nil && (z.Workers > 0 || z.VPNs > 0) { // seed 003's sizing estimates
		q := func(n int, one string) string {
			if n <= 0 {
				return "? " + one + "s"
			}
			return plural.Count(n, one)
		}
		left += " · needed ≈ " + q(z.Workers, "worker") + ", " + q(z.VPNs, "VPN")
	}
	right := strings.TrimSpace(lateMark) + " = no heartbeat for " + pane.ShortDuration(p.late()) + " "
	if gap := p.width - pane.CellWidth(left) - pane.CellWidth(right); gap > 0 {
		return st.Value.Render(left) + pane.Spaces(gap) + st.Muted.Render(right)
	}
	return st.Value.Render(pane.Fit(left, p.width))
}

// listCell joins names into w cells: all of them when they fit, else the first and
// how many more ("egress-a +1").
func listCell(names []string, w int) string {
	if len(names) == 0 {
		return "-"
	}
	if all := strings.Join(names, ", "); pane.CellWidth(all) <= w || len(names) == 1 {
		return all
	}
	return names[0] + " +" + strconv.Itoa(len(names)-1)
}

// sitesCell is what a worker holds of seed 003's assignment: sites, plus keyword
// shards of social sites ("3+5").
func sitesCell(n *view.Node) string {
	if n.Keywords == 0 {
		return strconv.Itoa(n.Sites)
	}
	return strconv.Itoa(n.Sites) + "+" + strconv.Itoa(n.Keywords)
}

// liveNodes counts the workers that are not dead.
func liveNodes(nodes []view.Node) int {
	n := 0
	for i := range nodes {
		if nodes[i].State != view.NodeDead {
			n++
		}
	}
	return n
}

// joinLines is a master's note while it has no worker: what to do, then the join
// command whole, never cut: it is pasted into another terminal, so a line too long
// breaks between words and ends in a shell's " \" continuation.
func joinLines(st *themes.Styles, note, join string, width int) string {
	var b strings.Builder
	b.WriteString("\n" + pane.Note(st, note, width))
	textW := max(width-6, 20) // indent, and room for the continuation
	lines := strings.Split(ansi.Hardwrap(ansi.Wordwrap(join, textW, ""), textW, false), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if i < len(lines)-1 {
			l += " \\"
		}
		b.WriteString("\n    " + st.Value.Render(pane.Fit(l, width-4)))
	}
	return b.String()
}
