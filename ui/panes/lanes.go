package panes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() { pane.Register(10, newLanesPane) }

// lanesPane is the thread-lanes view (M1): one row per lane with its egress, the
// hosts and parent pages bound to it, what it fetches, and when it may fetch next.
// On a distributed crawl (M4) a NODE column says which worker runs the lane.
type lanesPane struct {
	c             *pane.Common
	width, height int
	lanes         []view.Lane
	laneSide
	rows    pane.Rows[laneKey] // over lanes
	fetched int64              // pages fetched so far: no lane after some is "none open", not "none yet"
	// join is a master's join command while no worker is alive (M4): a master has
	// no lanes of its own, so its empty table says how to get some.
	join   string
	snap   *view.Snapshot // for the selected lane's limits line: its host's budget
	limits string         // what holds the crawl's lanes back, read once a snapshot
}

// laneSide is what the Lanes and the Groups pane take alike from a snapshot: what
// the lane keys toggle against, the workers for the filter, the column widths.
type laneSide struct {
	pausedHosts []string         // sorted, from the snapshot
	egress      *view.EgressView // for x: is the host disabled (M3)
	nodes       map[string]bool  // workers' names, lower-cased, for the filter (M4)
	egressW     int              // EGRESS column width for the current rows
	nodeW       int              // NODE column width; 0: a single-process crawl, no column
}

// setLaneSide reads s into l, the rows being items with their egress and worker
// (node) names.
func setLaneSide[T any](l *laneSide, s *view.Snapshot, items []T, egress, node func(*T) string) {
	l.pausedHosts = s.PausedHosts
	l.egress = s.Egress
	l.nodes = pane.NodeNames(s.Nodes)
	l.egressW = pane.EgressWidth(items, egress)
	l.nodeW = pane.NodeWidth(items, node)
}

// laneKey identifies a lane across snapshots: its worker (M4) and ID.
type laneKey struct {
	node string
	id   int
}

func newLanesPane(c *pane.Common) pane.Pane {
	p := &lanesPane{c: c}
	p.rows = pane.NewRows(func() int { return len(p.lanes) }, func(i int) laneKey { return laneKey{p.lanes[i].Node, p.lanes[i].ID} },
		func(f pane.Filter, i int) bool {
			l := &p.lanes[i]
			return f.MatchOnNode(l.Node, p.nodes, append([]string{l.Egress, l.Current, string(l.Status), strconv.Itoa(l.ID)}, l.Hosts...)...)
		})
	return p
}

func (p *lanesPane) Title() string { return "Lanes" }

func (p *lanesPane) ShortHelp() []key.Binding {
	k := p.c.Keys
	return []key.Binding{k.PauseLane, k.PauseHost, k.Rotate, k.DisableHost}
}

func (p *lanesPane) FullHelp() [][]key.Binding {
	k := p.c.Keys
	return [][]key.Binding{{k.PauseLane, k.PauseHost, k.Rotate, k.DisableHost}, k.NavHelp()}
}

func (p *lanesPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.rows.SetHeight(h - 1 - p.limitLines()) // column header, limits lines
}

func (p *lanesPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	p.rows.Change(func() {
		p.lanes = s.Lanes
		p.snap = s
		p.limits = pane.LimitsOf(s).Summary()
		p.fetched = s.Totals.PagesFetched
		p.join = ""
		if s.Join != "" && liveNodes(s.Nodes) == 0 {
			p.join = s.Join
		}
		setLaneSide(&p.laneSide, s, p.lanes, func(l *view.Lane) string { return l.Egress }, func(l *view.Lane) string { return l.Node })
	})
	return nil
}

func (p *lanesPane) SetFilter(f pane.Filter) { p.rows.SetFilter(f) }

// selected is the lane under the cursor.
func (p *lanesPane) selected() (view.Lane, bool) {
	if i, ok := p.rows.At(); ok {
		return p.lanes[i], true
	}
	return view.Lane{}, false
}

func (p *lanesPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		k := msg.String()
		if p.rows.Navigate(p.c.Keys, k) {
			return nil
		}
		var t *commands.LaneTarget
		if l, ok := p.selected(); ok {
			t = &commands.LaneTarget{Lane: l.ID, Paused: l.Paused, Egress: l.Egress, Host: pane.LaneHost(l)}
		}
		cmd, _ := commands.LaneKey(p.c, k, t, "no lane selected", p.pausedHosts, p.egress)
		return cmd
	case pane.ClickMsg:
		p.rows.Click(msg.Row, 1) // row 0 is the column header
	}
	return nil
}

func (p *lanesPane) Position() string { return p.rows.Position() }

// columns lays out the table for the pane width; wide terminals get a host column,
// a distributed crawl a node column.
func (p *lanesPane) columns() []pane.Column {
	cols := []pane.Column{{Title: "LANE", Width: 4, Right: true}}
	if p.nodeW > 0 {
		cols = append(cols, pane.Column{Title: "NODE", Width: p.nodeW})
	}
	cols = append(cols,
		pane.Column{Title: "EGRESS", Width: max(p.egressW, 6)},
		pane.Column{Title: "H/P", Width: 5, Right: true},
		pane.Column{Title: "STATUS", Width: 8},
		pane.Column{Title: "NEXT", Width: 5, Right: true},
	)
	if p.gapWide() {
		cols = append(cols, pane.Column{Title: "GAP", Width: 12})
	}
	cols = append(cols,
		pane.Column{Title: "DONE", Width: 6, Right: true},
		pane.Column{Title: "Q", Width: 4, Right: true},
	)
	if p.wide() && p.renders() {
		cols = append(cols, pane.Column{Title: "REND", Width: 6, Right: true}, pane.Column{Title: "R-AVG", Width: 6, Right: true})
	}
	if p.wide() {
		cols = append(cols, pane.Column{Title: "HOSTS", Width: 26})
	}
	cols = append(cols, pane.Column{Title: "URL"})
	return pane.LayoutColumns(cols, p.width)
}

// endedKinds lists the kinds the crawl's URLs failed or were skipped as, most
// frequent first ("ssrf_blocked ×2, robots_disallowed ×1"), "" for none.
func endedKinds(s *view.Snapshot) string {
	if s == nil {
		return ""
	}
	type kc struct {
		kind string
		n    int64
	}
	var ks []kc
	for _, m := range []map[string]int64{s.Totals.Errors, s.Totals.Skipped} {
		for k, n := range m {
			if n > 0 {
				ks = append(ks, kc{k, n})
			}
		}
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].n > ks[j].n || ks[i].n == ks[j].n && ks[i].kind < ks[j].kind })
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s ×%d", k.kind, k.n)
	}
	return strings.Join(parts, ", ")
}

func (p *lanesPane) View() string {
	st := p.c.Styles
	cols := p.columns()
	var b strings.Builder
	b.WriteString(pane.HeaderRow(st, cols, p.width))
	if p.rows.Len() == 0 {
		msg := "no lanes yet: the crawl opens one per group of adjacent URLs (M1)"
		if p.fetched > 0 {
			msg = "no lane open: nothing queued is ready to fetch (a lane opens per group of adjacent URLs, M1)"
		} else if ended := endedKinds(p.snap); ended != "" && p.snap.QueueDepth == 0 {
			// Not "yet": every URL it had ended without a page, and the Log pane
			// holds each kind's warning with what to do.
			msg = "no lane open: nothing was fetched and nothing is queued; the URLs ended " + ended + ": the Log pane says why"
		}
		if p.rows.Filter.Active() {
			msg = pane.NoMatch("lane", p.rows.Filter)
		} else if p.join != "" {
			b.WriteString(joinLines(st, "no worker yet: a master's lanes run on its workers; start one with", p.join, p.width))
			return b.String()
		}
		b.WriteString("\n" + pane.Note(st, msg, p.width))
		return b.String()
	}
	now := p.c.Now()
	wide := p.wide()
	statusCol := 3
	if p.nodeW > 0 {
		statusCol++
	}
	cells := make([]string, len(cols))
	from, to := p.rows.List.Visible(p.rows.Len())
	for r := from; r < to; r++ {
		l := &p.lanes[p.rows.Index[r]]
		cells = append(cells[:0], strconv.Itoa(l.ID))
		if p.nodeW > 0 {
			cells = append(cells, l.Node)
		}
		cells = append(cells,
			l.Egress,
			strconv.Itoa(len(l.Hosts))+"/"+strconv.Itoa(l.Parents),
			string(l.Status),
			pane.Countdown(l.NextFetch, now),
		)
		if p.gapWide() {
			cells = append(cells, gapCell(l.Gap, l.GapWhy))
		}
		cells = append(cells,
			pane.Thousands(l.Done),
			strconv.Itoa(l.Queued),
		)
		if wide && p.renders() {
			cells = append(cells, laneRendersCell(l), renderAvgCell(l.Rendered, l.RenderTime.Seconds()))
		}
		if wide {
			cells = append(cells, hostsCell(l.Hosts))
		}
		cells = append(cells, l.Current)
		accent := st.LaneStatus(string(l.Status))
		b.WriteString("\n")
		b.WriteString(pane.TableRow(st, cols, cells, p.width, r == p.rows.List.Cursor, statusCol, &accent))
	}
	if lines := p.limitsLines(now); len(lines) > 0 {
		b.WriteString(strings.Repeat("\n", p.rows.List.Height-(to-from)))
		for _, l := range lines {
			b.WriteString("\n")
			b.WriteString(st.Muted.Render(pane.Fit(" "+l, p.width)))
		}
	}
	return b.String()
}

// limitLines is how many lines at the pane's foot say what holds the lanes back:
// the crawl's and the selected lane's on a pane tall enough, else none.
func (p *lanesPane) limitLines() int {
	if p.height < 8 {
		return 0
	}
	return 2
}

// limitsLines are the pane's last lines: what holds the crawl's lanes back, then
// what the selected lane does and what holds it (its host's gap and the term that
// sets it, a spent budget, a pause), so a polite crawl reads as polite, not hung.
func (p *lanesPane) limitsLines(now time.Time) []string {
	if p.snap == nil || p.limitLines() == 0 {
		return nil
	}
	lines := []string{p.limits, ""}
	if l, ok := p.selected(); ok {
		lines[1] = pane.LaneLimit(p.snap, l, now)
	}
	return lines
}

// gapCell is a host's politeness gap and the term that sets it: "1.2s
// latency", "30s backoff", "12m backoff", "-" when no gap holds. At most 12 wide.
func gapCell(d time.Duration, why string) string {
	if d <= 0 || why == "" {
		return "-"
	}
	var s string
	switch {
	case d < 10*time.Second:
		s = strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < 100*time.Second:
		s = strconv.Itoa(int(d.Seconds())) + "s"
	case d < 100*time.Minute:
		s = strconv.Itoa(int(d.Minutes())) + "m"
	default:
		s = strconv.Itoa(int(d.Hours())) + "h"
	}
	if why == "crawl-delay" {
		why = "crawl" // the column is narrow; the help and README spell it out
	}
	return s + " " + why
}

// gapWide says whether the pane is wide enough for the GAP column (the Groups pane
// shows each host's gap at any width).
func (p *lanesPane) gapWide() bool { return p.width >= 130 }

// wide says whether the pane is wide enough for the HOSTS column.
func (p *lanesPane) wide() bool { return p.width >= 110 }

// renders says the crawl renders pages in a browser: the lanes get the render
// columns.
func (p *lanesPane) renders() bool { return p.snap != nil && p.snap.Render != nil }

// laneRendersCell is a lane's pages rendered, and "+n" for those rendering now
// beside its fetches: "31", "31+2", "-".
func laneRendersCell(l *view.Lane) string {
	if l.Rendered == 0 && l.Rendering == 0 {
		return "-"
	}
	s := pane.Thousands(l.Rendered)
	if l.Rendering > 0 {
		s += "+" + strconv.Itoa(l.Rendering)
	}
	return s
}

// hostsCell shows the first host and how many more the lane holds.
func hostsCell(hosts []string) string {
	switch len(hosts) {
	case 0:
		return "-"
	case 1:
		return hosts[0]
	default:
		return hosts[0] + " +" + strconv.Itoa(len(hosts)-1)
	}
}
