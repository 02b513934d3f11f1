package network

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() { pane.Register(50, newEgressPane) }

// egressPane shows the VPN rotation state (M3): the egress account table with this
// node's list (name, kind, masked address, node, start_time, recently used y/n,
// requests, refusals, success rate, state), the host_disable_list with time left,
// the (egress, host) pairs kept apart after a site ban, and the sizing estimate.
//
// Keys: e on an egress moves every lane leaving from it to another egress now (the
// rotation picks each lane's new egress, as for e in the Lanes pane); x on a host
// (disable list or pair ban) takes it off the disable list, or puts it on.
type egressPane struct {
	c             *pane.Common
	width, height int
	view          *view.EgressView // nil: the crawl goes direct
	lanes         []view.Lane      // to find the lanes on an egress
	deferred      int64            // Totals.Deferred
	sizing        *view.Sizing     // the VPN estimate and its inputs (nil: none)
	lines         []egressLine     // the list below the summary, all sections
	rows          []int            // indexes into lines that can be selected
	offset        int              // first line shown
	filter        pane.Filter
	list          pane.List // the cursor, over rows
}

// egressLine is one line of the pane's list.
type egressLine struct {
	kind  egressLineKind
	index int    // into view.Egresses, view.Disabled or view.PairBans
	text  string // header section or note text
}

type egressLineKind uint8

const (
	lineBlank egressLineKind = iota
	lineHeader
	lineNote
	lineEgress
	lineDisabled
	lineBan
)

// Sections of the list, by their header line's text.
const (
	sectionEgress   = "egresses"
	sectionDisabled = "disabled"
	sectionBans     = "bans"
)

// egressTop is the height of the block above the list: the rotation summary, the
// two sizing lines and a blank line.
const egressTop = 4

func newEgressPane(c *pane.Common) pane.Pane { return &egressPane{c: c} }

func (p *egressPane) Title() string { return "Egress" }

// rotateOffKey is the keymap's Rotate key, described as what it does here.
func (p *egressPane) rotateOffKey() key.Binding {
	return key.NewBinding(key.WithKeys(p.c.Keys.Rotate.Keys()...), key.WithHelp(p.c.Keys.Rotate.Help().Key, "move lanes off egress"))
}

func (p *egressPane) ShortHelp() []key.Binding {
	return []key.Binding{p.rotateOffKey(), p.c.Keys.DisableHost}
}

func (p *egressPane) FullHelp() [][]key.Binding {
	return [][]key.Binding{{p.rotateOffKey(), p.c.Keys.DisableHost}, p.c.Keys.NavHelp()}
}

func (p *egressPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.list.Height = max(h-egressTop, 1)
	p.scroll()
}

func (p *egressPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	pane.Keep(p.selectedKey, func() {
		p.view, p.lanes, p.deferred, p.sizing = s.Egress, s.Lanes, s.Totals.Deferred, s.Sizing
		p.build()
	}, p.reselect)
	return nil
}

func (p *egressPane) SetFilter(f pane.Filter) {
	pane.Keep(p.selectedKey, func() {
		p.filter = f
		p.build()
	}, p.reselect)
}

// build lays out the list: the egress table, the disable list, the pair bans.
func (p *egressPane) build() {
	p.lines, p.rows = p.lines[:0], p.rows[:0]
	v := p.view
	if v == nil {
		p.scroll()
		return
	}
	add := func(l egressLine) {
		if l.kind >= lineEgress {
			p.rows = append(p.rows, len(p.lines))
		}
		p.lines = append(p.lines, l)
	}
	section := func(name string, n int, match func(i int) bool, kind egressLineKind, empty string) {
		if len(p.lines) > 0 {
			add(egressLine{kind: lineBlank})
		}
		add(egressLine{kind: lineHeader, text: name})
		shown := 0
		for i := range n {
			if match(i) {
				add(egressLine{kind: kind, index: i})
				shown++
			}
		}
		if shown == 0 {
			if n > 0 {
				empty = "nothing here matches the filter"
			}
			add(egressLine{kind: lineNote, text: empty})
		}
	}
	section(sectionEgress, len(v.Egresses), func(i int) bool {
		r := &v.Egresses[i]
		return p.filter.Match(r.Name, string(r.Kind), r.Address, r.Node, r.State)
	}, lineEgress, "the account table is empty (:egress add SPEC)")
	section(sectionDisabled, len(v.Disabled), func(i int) bool {
		return p.filter.Match(v.Disabled[i].Host, "disabled")
	}, lineDisabled, "no disabled host: every egress still serves every host")
	section(sectionBans, len(v.PairBans), func(i int) bool {
		return p.filter.Match(v.PairBans[i].Host, v.PairBans[i].Egress, "ban")
	}, lineBan, "no pair ban: no site refused an egress lately")
	p.list.Clamp(len(p.rows))
	p.scroll()
}

// egressKey identifies a selected line across snapshots.
type egressKey struct {
	kind egressLineKind
	name string
}

func (p *egressPane) keyOf(l egressLine) egressKey {
	v := p.view
	switch l.kind {
	case lineEgress:
		return egressKey{l.kind, v.Egresses[l.index].Name}
	case lineDisabled:
		return egressKey{l.kind, v.Disabled[l.index].Host}
	case lineBan:
		return egressKey{l.kind, v.PairBans[l.index].Egress + " " + v.PairBans[l.index].Host}
	}
	return egressKey{}
}

func (p *egressPane) selected() (egressLine, bool) {
	if p.view == nil || p.list.Cursor < 0 || p.list.Cursor >= len(p.rows) {
		return egressLine{}, false
	}
	return p.lines[p.rows[p.list.Cursor]], true
}

func (p *egressPane) selectedKey() (egressKey, bool) {
	l, ok := p.selected()
	if !ok {
		return egressKey{}, false
	}
	return p.keyOf(l), true
}

// reselect keeps the cursor on the same egress or host across snapshots; when it
// is gone (a host taken off the list), the cursor stays in its section.
func (p *egressPane) reselect(k egressKey) {
	fallback := -1
	for r, li := range p.rows {
		l := p.lines[li]
		if p.keyOf(l) == k {
			p.list.Cursor = r
			p.list.Clamp(len(p.rows))
			p.scroll()
			return
		}
		if l.kind == k.kind && fallback < 0 {
			fallback = r
		}
	}
	if fallback >= 0 && p.list.Cursor >= len(p.rows) {
		p.list.Cursor = fallback
	}
	p.list.Clamp(len(p.rows))
	p.scroll()
}

// scroll keeps the cursor's line on screen, with its section header when the
// cursor is on a section's first row.
func (p *egressPane) scroll() {
	h := max(p.height-egressTop, 1)
	if len(p.rows) == 0 {
		p.offset = 0
		return
	}
	cur := p.rows[p.list.Cursor]
	top := cur
	if top > 0 && p.lines[top-1].kind == lineHeader {
		top--
	}
	if top < p.offset {
		p.offset = top
	}
	if cur >= p.offset+h {
		p.offset = cur - h + 1
	}
	p.offset = max(min(p.offset, len(p.lines)-h), 0)
}

func (p *egressPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		k := msg.String()
		if p.list.Navigate(p.c.Keys, k, len(p.rows)) {
			p.scroll()
			return nil
		}
		switch {
		case pane.Matches(k, p.c.Keys.Rotate):
			return p.rotateOff()
		case pane.Matches(k, p.c.Keys.DisableHost):
			return p.toggleHost()
		}
	case pane.ClickMsg:
		li := p.offset + msg.Row - egressTop
		for r, l := range p.rows {
			if l == li {
				p.list.Cursor = r
				p.scroll()
			}
		}
	}
	return nil
}

// rotateOff is e: every lane on the selected egress moves to another one now.
func (p *egressPane) rotateOff() tea.Cmd {
	if p.c.ReadOnly {
		return pane.Status(pane.ReadOnlyText, true)
	}
	if p.view == nil {
		return pane.Status("no egress rotation: the crawl goes direct (give --egress SPEC)", true)
	}
	l, ok := p.selected()
	if !ok || l.kind != lineEgress {
		return pane.Status("e acts on an egress: select one in the table", true)
	}
	name := p.view.Egresses[l.index].Name
	var ids []int
	for _, ln := range p.lanes {
		if ln.Egress == name {
			ids = append(ids, ln.ID)
		}
	}
	if len(ids) == 0 {
		return pane.Status("no lane leaves from "+name+" now", false)
	}
	return commands.RotateLanesOff(p.c, name, ids)
}

// toggleHost is x: the selected host comes off the disable list, or goes on it
// (a pair-banned host, refused by one egress, can be disabled for all of them).
func (p *egressPane) toggleHost() tea.Cmd {
	if p.c.ReadOnly {
		return pane.Status(pane.ReadOnlyText, true)
	}
	l, ok := p.selected()
	if !ok || (l.kind != lineDisabled && l.kind != lineBan) {
		return pane.Status("x acts on a host: select one in the disable list or the pair bans", true)
	}
	if l.kind == lineDisabled {
		return commands.SetHostDisabled(p.c, p.view.Disabled[l.index].Host, false)
	}
	host := p.view.PairBans[l.index].Host
	return commands.SetHostDisabled(p.c, host, !commands.IsDisabled(p.view, host))
}

func (p *egressPane) Position() string {
	if p.view == nil {
		return ""
	}
	return p.list.Position(len(p.rows))
}

// wide terminals get the NODE, FAULT and BANS columns and the long sizing line.
func (p *egressPane) wide() bool { return p.width >= 110 }

// egressColumns lays out the account table; narrow terminals fold NODE into the
// summary line and the STATE column ("free", "on NODE"), and leave out faults and
// banned hosts.
func (p *egressPane) egressColumns() []pane.Column {
	nameW := pane.EgressWidth(p.view.Egresses, func(r *egress.EgressRow) string { return r.Name })
	wide := p.wide()
	cols := []pane.Column{
		{Title: "NAME", Width: min(nameW, 16)},
		{Title: "KIND", Width: 6},
		{Title: "ADDRESS"},
	}
	if wide {
		cols = append(cols, pane.Column{Title: "NODE", Width: 8})
	}
	cols = append(cols,
		pane.Column{Title: "START", Width: 8},
		pane.Column{Title: "Y/N", Width: 3},
		pane.Column{Title: "REQ", Width: 7, Right: true},
		pane.Column{Title: "REF", Width: 5, Right: true},
	)
	if wide {
		cols = append(cols, pane.Column{Title: "FAULT", Width: 5, Right: true}, pane.Column{Title: "BANS", Width: 4, Right: true})
	}
	cols = append(cols, pane.Column{Title: "OK%", Width: 6, Right: true}, pane.Column{Title: "STATE", Width: 12})
	return pane.LayoutColumns(cols, p.width)
}

func (p *egressPane) View() string {
	st := p.c.Styles
	if p.view == nil {
		return pane.Empty(st, "EGRESS ROTATION", "no egress rotation: the crawl goes direct from this box (give --egress SPEC, M3)", p.width)
	}
	v := p.view
	var b strings.Builder
	b.WriteString(pane.FigureLine(st, p.width, "node "+v.Node, []pane.Figure{
		{Label: "on", Value: pane.Dash(v.Current)},
		{Label: "rotations", Value: pane.Thousands(v.Rotations)},
		{Label: "disabled now", Value: strconv.Itoa(len(v.Disabled)), Bad: len(v.Disabled) > 0},
		{Label: "deferred URLs", Value: pane.Thousands(p.deferred)},
		{Label: "hosts disabled", Value: pane.Thousands(v.HostsDisabled)},
		{Label: "pair bans", Value: strconv.Itoa(len(v.PairBans))},
	}))
	b.WriteString("\n")
	b.WriteString("  " + st.ColHeader.Render(pane.Fit("sizing", 12)) + st.Value.Render(pane.Fit(sizingFormula, max(p.width-14, 0))))
	b.WriteString("\n")
	b.WriteString(pane.Spaces(14) + st.Muted.Render(pane.Fit(sizingFigures(p.sizing, p.wide()), max(p.width-14, 0))))
	b.WriteString("\n")

	h := max(p.height-egressTop, 1)
	cursorLine := -1
	if len(p.rows) > 0 {
		cursorLine = p.rows[p.list.Cursor]
	}
	ecols := p.egressColumns()
	for i := p.offset; i < len(p.lines) && i < p.offset+h; i++ {
		b.WriteString("\n")
		b.WriteString(p.lineView(p.lines[i], ecols, i == cursorLine))
	}
	return b.String()
}

// disabledColumns and banColumns lay out the two host lists.
func (p *egressPane) disabledColumns() []pane.Column {
	return pane.LayoutColumns([]pane.Column{{Title: "DISABLED HOST"}, {Title: "LEFT", Width: 9, Right: true},
		{Title: "SINCE", Width: 8}, {Title: "UNTIL", Width: 8}, {Title: "WHY (VENDOR: EVIDENCE)"}}, p.width)
}

func (p *egressPane) banColumns() []pane.Column {
	nameW := pane.EgressWidth(p.view.PairBans, func(b *egress.PairBan) string { return b.Egress })
	return pane.LayoutColumns([]pane.Column{{Title: "PAIR-BANNED HOST"}, {Title: "EGRESS", Width: min(nameW, 16)},
		{Title: "LEFT", Width: 9, Right: true}, {Title: "SINCE", Width: 8}, {Title: "WHY (VENDOR: EVIDENCE)"}}, p.width)
}

func (p *egressPane) lineView(l egressLine, ecols []pane.Column, sel bool) string {
	st := p.c.Styles
	v := p.view
	now := p.c.Now()
	switch l.kind {
	case lineHeader:
		switch l.text {
		case sectionEgress:
			return pane.HeaderRow(st, ecols, p.width)
		case sectionDisabled:
			return pane.HeaderRow(st, p.disabledColumns(), p.width)
		default:
			return pane.HeaderRow(st, p.banColumns(), p.width)
		}
	case lineNote:
		return pane.Note(st, l.text, p.width)
	case lineEgress:
		r := &v.Egresses[l.index]
		state := r.State
		if state == "cooling" && !r.CoolingUntil.IsZero() {
			state += " " + pane.Countdown(r.CoolingUntil, now)
		}
		cells := []string{r.Name, string(r.Kind), r.Address}
		if p.wide() {
			cells = append(cells, pane.Dash(r.Node))
		}
		cells = append(cells, clock(r.StartTime), r.RecentlyUsed, pane.Thousands(r.Requests), pane.Thousands(r.Refusals))
		if p.wide() {
			cells = append(cells, pane.Thousands(r.Faults), strconv.Itoa(r.BannedHosts))
		}
		cells = append(cells, pane.Percent(r.SuccessRate), state)
		accent := st.EgressState(r.State)
		return pane.TableRow(st, ecols, cells, p.width, sel, len(ecols)-1, &accent)
	case lineDisabled:
		d := &v.Disabled[l.index]
		cells := []string{d.Host, pane.Countdown(d.Until, now), clock(d.Since), clock(d.Until), pane.Dash(d.Why)}
		return pane.TableRow(st, p.disabledColumns(), cells, p.width, sel, -1, nil)
	case lineBan:
		bn := &v.PairBans[l.index]
		cells := []string{bn.Host, bn.Egress, pane.Countdown(bn.Until, now), clock(bn.At), pane.Dash(bn.Why)}
		return pane.TableRow(st, p.banColumns(), cells, p.width, sel, -1, nil)
	}
	return ""
}

// clock is a time of day, "-" for the zero time (an egress never used).
func clock(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format("15:04:05")
}
