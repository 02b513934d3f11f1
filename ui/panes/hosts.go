package panes

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// Registered after every other pane, so the optional ones keep their numbers.
func init() { pane.Register(90, newHostsPane) }

// hostsPane is the hosts report (Heritrix's hosts report, with its response codes
// per host to spot blocking): per host — or added up per site or per egress — the
// responses by status class, pages stored, URLs skipped and failed, refusals, the
// politeness gap now and why, the round's budget; the selected row's kinds in full
// above the table. Sortable by any figure (o, O), filtered with /.
//
// Only the visible rows are drawn; a sort by a figure starts from the last order,
// which a snapshot changes little, so 10,000 hosts stay within a frame's budget.
type hostsPane struct {
	c             *pane.Common
	width, height int
	view          *view.HostsView
	by            hostsBy
	sortKey       int  // index into hostSorts
	desc          bool // largest first (the figures' default)
	rows          []int
	spare         []int // the other buffer of rows (refilter)
	seen          int   // rows of the grouping the last refilter saw
	refiltering   bool  // the filter or grouping changed: every row is looked at again
	filter        pane.Filter
	list          pane.List
}

// hostsBy is what a row is: a host, a site or an egress.
type hostsBy int

const (
	byHost hostsBy = iota
	bySite
	byEgress
)

var (
	hostsByName   = [...]string{"host", "site", "egress"}
	hostsByPlural = [...]string{"hosts", "sites", "egresses"}
)

// hostsTop is the lines above the table: the summary, the selected row's kinds,
// the column header.
const hostsTop = 3

// hostSort is one order of the rows: its name and its key.
type hostSort struct {
	name string
	key  func(r *view.HostRow, live map[string]view.HostLive) int64
}

var hostSorts = []hostSort{
	{"name", nil},
	{"fetched", func(r *view.HostRow, _ map[string]view.HostLive) int64 { return r.Fetched }},
	{"stored", func(r *view.HostRow, _ map[string]view.HostLive) int64 { return r.Stored }},
	{"4xx", func(r *view.HostRow, _ map[string]view.HostLive) int64 { return r.Classes[view.Class4xx] }},
	{"5xx", func(r *view.HostRow, _ map[string]view.HostLive) int64 { return r.Classes[view.Class5xx] }},
	{"skipped", func(r *view.HostRow, _ map[string]view.HostLive) int64 { return r.Skipped }},
	{"errors", func(r *view.HostRow, _ map[string]view.HostLive) int64 { return r.Errors }},
	{"refused", func(r *view.HostRow, _ map[string]view.HostLive) int64 { return r.Refused }},
	{"gap", func(r *view.HostRow, live map[string]view.HostLive) int64 { return int64(live[r.Name].Gap) }},
}

// rendersSort orders hosts by their renders; the hosts pane sets its key (the
// renders are not in the row).
const rendersSort = "renders"

func newHostsPane(c *pane.Common) pane.Pane { return &hostsPane{c: c} }

// sorts are the orders the pane offers: renders too when the crawl renders pages.
func (p *hostsPane) sorts() []hostSort {
	if !p.renders() {
		return hostSorts
	}
	return append(hostSorts[:len(hostSorts):len(hostSorts)], hostSort{rendersSort, func(r *view.HostRow, _ map[string]view.HostLive) int64 {
		return p.rendered(r.Name).Renders
	}})
}

// renders says the crawl renders pages in a browser: the host rows get the
// render columns.
func (p *hostsPane) renders() bool { return p.view != nil && p.view.Render != nil && p.by == byHost }

// rendered is a host's renders (zero when it had none). The renderer names a host
// without its port.
func (p *hostsPane) rendered(host string) view.RenderHost {
	if p.view == nil || p.view.Render == nil {
		return view.RenderHost{}
	}
	if r, ok := p.view.Render[host]; ok {
		return r
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		return p.view.Render[strings.Trim(h, "[]")]
	}
	return view.RenderHost{}
}

func (p *hostsPane) Title() string { return "Hosts" }

// Shown implements pane.Optional: the tab comes with the first host's first
// response or skip (an 80-column tab bar has little room before that).
func (p *hostsPane) Shown() bool { return p.view != nil && p.view.Hosts.Len() > 0 }

func (p *hostsPane) ShortHelp() []key.Binding {
	k := p.c.Keys
	return []key.Binding{k.Sort, k.Reverse, k.GroupBy}
}

func (p *hostsPane) FullHelp() [][]key.Binding {
	k := p.c.Keys
	return [][]key.Binding{{k.Sort, k.Reverse, k.GroupBy}, k.NavHelp()}
}

func (p *hostsPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.list.Height = max(h-hostsTop, 1)
	p.list.Clamp(len(p.rows))
}

// hostTable is the rows of the current grouping: hosts, sites or egresses.
type hostTable struct {
	hosts view.HostRows
	flat  []view.HostRow
}

func (t hostTable) len() int {
	if t.flat != nil {
		return len(t.flat)
	}
	return t.hosts.Len()
}

func (t hostTable) at(i int) *view.HostRow {
	if t.flat != nil {
		return &t.flat[i]
	}
	return t.hosts.At(i)
}

// all is the rows of the current grouping.
func (p *hostsPane) all() hostTable {
	if p.view == nil {
		return hostTable{flat: []view.HostRow{}}
	}
	switch p.by {
	case bySite:
		return hostTable{flat: orEmpty(p.view.Sites)}
	case byEgress:
		return hostTable{flat: orEmpty(p.view.Egresses)}
	}
	return hostTable{hosts: p.view.Hosts}
}

func orEmpty(rows []view.HostRow) []view.HostRow {
	if rows == nil {
		return []view.HostRow{}
	}
	return rows
}

// live is what holds now for a held host (zero for any other).
func (p *hostsPane) live(name string) view.HostLive {
	if p.view == nil || p.by != byHost {
		return view.HostLive{}
	}
	return p.view.Live[name]
}

func (p *hostsPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	pane.Keep(p.selected, func() {
		p.view = s.Hosts
		p.refilter()
	}, p.reselect)
	return nil
}

func (p *hostsPane) SetFilter(f pane.Filter) {
	pane.Keep(p.selected, func() {
		p.filter = f
		p.refiltering = true
		p.refilter()
	}, p.reselect)
}

// refilter keeps the rows that pass the filter, in the chosen order. The rows of
// the last snapshot give the starting order: sorted already but for what moved, and
// rows only ever come (hosts in the order first seen), so the new ones are those
// past the last count.
func (p *hostsPane) refilter() {
	all := p.all()
	n := all.len()
	prev := p.rows
	p.rows, p.spare = p.spare[:0], prev // two buffers, swapped: no allocation a frame
	if p.seen > 0 && p.seen <= n && !p.refiltering {
		for _, i := range prev {
			if i < n {
				p.rows = append(p.rows, i)
			}
		}
		for i := p.seen; i < n; i++ {
			if p.passes(all.at(i)) {
				p.rows = append(p.rows, i)
			}
		}
	} else {
		for i := range n {
			if p.passes(all.at(i)) {
				p.rows = append(p.rows, i)
			}
		}
	}
	p.seen, p.refiltering = n, false
	p.sort(all)
	p.list.Clamp(len(p.rows))
}

func (p *hostsPane) passes(r *view.HostRow) bool {
	return !p.filter.Active() || p.filter.Match(r.Name, r.Site, r.Egress)
}

// sort orders the rows by the chosen figure, ties by name. Rows already in order
// cost one pass (pdqsort).
func (p *hostsPane) sort(all hostTable) {
	sorts := p.sorts()
	p.sortKey = min(p.sortKey, len(sorts)-1)
	k := sorts[p.sortKey].key
	var live map[string]view.HostLive
	if p.view != nil && p.by == byHost {
		live = p.view.Live
	}
	order := func(a, b int) int {
		ra, rb := all.at(a), all.at(b)
		c := 0
		if k != nil {
			c = cmp.Compare(k(ra, live), k(rb, live))
			if p.desc {
				c = -c
			}
		}
		if c == 0 {
			c = strings.Compare(ra.Name, rb.Name)
			if k == nil && p.desc {
				c = -c
			}
		}
		return c
	}
	if !repair(p.rows, order) {
		slices.SortFunc(p.rows, order)
	}
}

// repair sorts rows that are nearly in order (the last snapshot's order, a few
// figures moved) by insertion, in about one comparison a row; it gives up, with rows
// still a permutation, when they are far from it (a new sort key).
func repair(rows []int, order func(a, b int) int) bool {
	budget := 2 * len(rows)
	for i := 1; i < len(rows); i++ {
		x, j := rows[i], i
		for j > 0 && order(rows[j-1], x) > 0 {
			rows[j] = rows[j-1]
			j--
			if budget--; budget < 0 {
				rows[j] = x
				return false
			}
		}
		rows[j] = x
	}
	return true
}

// selected is the name of the row under the cursor.
func (p *hostsPane) selected() (string, bool) {
	all := p.all()
	if p.list.Cursor < 0 || p.list.Cursor >= len(p.rows) || p.rows[p.list.Cursor] >= all.len() {
		return "", false
	}
	return all.at(p.rows[p.list.Cursor]).Name, true
}

// reselect keeps the cursor on the same row across snapshots and sorts.
func (p *hostsPane) reselect(name string) {
	all := p.all()
	if c := p.list.Cursor; c >= 0 && c < len(p.rows) && all.at(p.rows[c]).Name == name {
		return
	}
	for r, i := range p.rows {
		if all.at(i).Name == name {
			p.list.Cursor = r
			break
		}
	}
	p.list.Clamp(len(p.rows))
}

func (p *hostsPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		k := msg.String()
		km := p.c.Keys
		switch {
		case p.list.Navigate(km, k, len(p.rows)):
		case pane.Matches(k, km.Sort):
			sorts := p.sorts()
			p.sortKey = (p.sortKey + 1) % len(sorts)
			p.desc = sorts[p.sortKey].key != nil // figures: largest first
			return p.resort()
		case pane.Matches(k, km.Reverse):
			p.desc = !p.desc
			return p.resort()
		case pane.Matches(k, km.GroupBy):
			p.by = (p.by + 1) % 3
			p.rows, p.seen, p.refiltering = p.rows[:0], 0, true
			p.list.Cursor, p.list.Offset = 0, 0
			p.refilter()
			return pane.Status("hosts report per "+hostsByName[p.by], false)
		}
	case pane.ClickMsg:
		if msg.Row >= hostsTop {
			p.list.Cursor = p.list.Offset + msg.Row - hostsTop
			p.list.Clamp(len(p.rows))
		}
	}
	return nil
}

func (p *hostsPane) resort() tea.Cmd {
	pane.Keep(p.selected, func() { p.sort(p.all()) }, p.reselect)
	dir := "largest first"
	if !p.desc {
		dir = "smallest first"
	}
	sorts := p.sorts()
	if sorts[p.sortKey].key == nil {
		dir = "A to Z"
		if p.desc {
			dir = "Z to A"
		}
	}
	return pane.Status("hosts sorted by "+sorts[p.sortKey].name+", "+dir, false)
}

func (p *hostsPane) Position() string { return p.list.Position(len(p.rows)) }

// mid adds pages stored, 3xx and the budget; wide, a host's site and egress.
func (p *hostsPane) mid() bool  { return p.width >= 110 }
func (p *hostsPane) wide() bool { return p.width >= 150 }

// columns: at 80 columns the host keeps 20 cells and the figures that tell a
// blocking host (4xx, refusals) from a failing one (5xx, errors) or an idle one.
func (p *hostsPane) columns() []pane.Column {
	cols := []pane.Column{{Title: strings.ToUpper(hostsByName[p.by])}}
	if p.wide() && p.by == byHost {
		cols = append(cols, pane.Column{Title: "SITE", Width: 16}, pane.Column{Title: "EGRESS", Width: 10})
	}
	cols = append(cols, pane.Column{Title: "FETCHED", Width: 7, Right: true})
	if p.mid() {
		cols = append(cols, pane.Column{Title: "STORED", Width: 7, Right: true})
	}
	cols = append(cols, pane.Column{Title: "2XX", Width: 6, Right: true})
	if p.mid() {
		cols = append(cols, pane.Column{Title: "3XX", Width: 5, Right: true})
	}
	cols = append(cols,
		pane.Column{Title: "4XX", Width: 5, Right: true},
		pane.Column{Title: "5XX", Width: 5, Right: true},
		pane.Column{Title: "SKIP", Width: 5, Right: true},
		pane.Column{Title: "ERR", Width: 5, Right: true},
		pane.Column{Title: "REF", Width: 5, Right: true},
	)
	if p.by == byHost {
		cols = append(cols, pane.Column{Title: "GAP", Width: 12})
		if p.mid() {
			cols = append(cols, pane.Column{Title: "BUDGET", Width: 7, Right: true})
		}
		if p.mid() && p.renders() {
			cols = append(cols, pane.Column{Title: "REND", Width: 5, Right: true}, pane.Column{Title: "R-AVG", Width: 6, Right: true},
				pane.Column{Title: "UNSET", Width: 5, Right: true})
		}
	}
	return pane.LayoutColumns(cols, p.width)
}

func (p *hostsPane) View() string {
	st := p.c.Styles
	var b strings.Builder
	all := p.all()
	b.WriteString(p.summary(all))
	b.WriteString("\n")
	b.WriteString(p.kindsLine(all))
	b.WriteString("\n")
	cols := p.columns()
	b.WriteString(pane.HeaderRow(st, cols, p.width))
	none := "nothing fetched yet: a row comes with each host's first response or skip"
	if p.filter.Active() {
		none = pane.NoMatch(hostsByName[p.by], p.filter)
	}
	cells := make([]string, 0, len(cols))
	p.list.WriteBody(&b, st, p.width, len(p.rows), none, func(r int, sel bool) string {
		h := all.at(p.rows[r])
		cells = append(cells[:0], h.Name)
		if p.wide() && p.by == byHost {
			cells = append(cells, pane.Dash(h.Site), pane.Dash(h.Egress))
		}
		cells = append(cells, pane.Thousands(h.Fetched))
		if p.mid() {
			cells = append(cells, pane.Thousands(h.Stored))
		}
		cells = append(cells, pane.Thousands(h.Classes[view.Class2xx]))
		if p.mid() {
			cells = append(cells, pane.Thousands(h.Classes[view.Class3xx]))
		}
		cells = append(cells, pane.Thousands(h.Classes[view.Class4xx]), pane.Thousands(h.Classes[view.Class5xx]),
			pane.Thousands(h.Skipped), pane.Thousands(h.Errors), pane.Thousands(h.Refused))
		if p.by == byHost {
			l := p.live(h.Name)
			cells = append(cells, gapCell(l.Gap, l.GapWhy))
			if p.mid() {
				cells = append(cells, budgetCell(l))
			}
			if p.mid() && p.renders() {
				rh := p.rendered(h.Name)
				cells = append(cells, rendersCell(rh.Renders, rh.Failed), renderAvgCell(rh.Renders, rh.Seconds), pane.Dash(unsettledCell(rh.Unsettled)))
			}
		}
		bad := h.Refused > 0 || h.Classes[view.Class4xx]+h.Classes[view.Class5xx] > h.Classes[view.Class2xx]
		accent := -1
		if bad {
			accent = 0
		}
		return pane.TableRow(st, cols, cells, p.width, sel, accent, &st.Bad)
	})
	return b.String()
}

// summary is the first line: how many rows, the totals, the order and the grouping.
func (p *hostsPane) summary(all hostTable) string {
	st := p.c.Styles
	var fetched, refused, blocked int64
	for i := range all.len() {
		r := all.at(i)
		fetched += r.Fetched
		refused += r.Refused
		if r.Refused > 0 {
			blocked++
		}
	}
	dir := "↓"
	if !p.desc {
		dir = "↑"
	}
	figs := []pane.Figure{
		{Label: hostsByPlural[p.by], Value: pane.Thousands(int64(all.len()))},
		{Label: "fetched", Value: pane.Thousands(fetched)},
		{Label: "refused", Value: pane.Thousands(refused), Bad: refused > 0},
		{Label: "refusing", Value: pane.Thousands(blocked), Bad: blocked > 0},
		{Label: "sort", Value: p.sorts()[min(p.sortKey, len(p.sorts())-1)].name + " " + dir},
	}
	if p.view != nil && p.view.Untracked > 0 {
		figs = append(figs, pane.Figure{Label: "past the cap", Value: pane.Thousands(p.view.Untracked)})
	}
	return pane.FigureLine(st, p.width, "report", figs)
}

// kindsLine spells out the selected row: every skip and error kind with its count,
// and its refusals, the cells above only count.
func (p *hostsPane) kindsLine(all hostTable) string {
	st := p.c.Styles
	if p.list.Cursor < 0 || p.list.Cursor >= len(p.rows) {
		return pane.Fit("", p.width)
	}
	h := all.at(p.rows[p.list.Cursor])
	var kinds []string
	for _, k := range h.Kinds {
		kinds = append(kinds, k.Kind+" "+pane.Thousands(k.Count))
	}
	text := "none"
	if len(kinds) > 0 {
		text = strings.Join(kinds, ", ")
	}
	return pane.Fit("  "+st.Label.Render("▸ "+h.Name)+"  "+st.Label.Render("kinds")+" "+st.Value.Render(text), p.width)
}

// budgetCell is the host's pages this round against its round budget.
func budgetCell(h view.HostLive) string {
	switch {
	case h.Budget > 0:
		return strconv.Itoa(h.BudgetUsed) + "/" + strconv.Itoa(h.Budget)
	case h.BudgetUsed > 0:
		return strconv.Itoa(h.BudgetUsed)
	}
	return "-"
}

// rendersCell is a host's or lane's pages rendered, with those whose render
// failed (kept as fetched) after a slash: "31", "30/1", "-" for none.
func rendersCell(renders, failed int64) string {
	switch {
	case renders+failed == 0:
		return "-"
	case failed > 0:
		return pane.Thousands(renders) + "/" + pane.Thousands(failed)
	}
	return pane.Thousands(renders)
}

// unsettledCell is a host's renders of pages that never settled, "" for none.
func unsettledCell(n int64) string {
	if n == 0 {
		return ""
	}
	return pane.Thousands(n)
}

// renderAvgCell is the mean time of a render: "350ms", "1.2s", "-" for none.
func renderAvgCell(renders int64, seconds float64) string {
	if renders == 0 {
		return "-"
	}
	avg := time.Duration(seconds / float64(renders) * float64(time.Second))
	if avg < time.Second {
		return strconv.FormatInt(avg.Milliseconds(), 10) + "ms"
	}
	return strconv.FormatFloat(avg.Seconds(), 'f', 1, 64) + "s"
}
