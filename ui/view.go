package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// tabSpan is where a pane's tab sits on the tab bar, for mouse clicks.
type tabSpan struct{ pane, from, to int }

// View draws the whole screen: exactly height lines of at most width cells.
func (m *Model) View() string {
	if m.frame == "" {
		m.frame = m.render()
	}
	return m.frame
}

func (m *Model) render() string {
	if m.width == 0 || m.height == 0 {
		return "" // no size yet
	}
	if m.tooSmall() {
		return m.smallView()
	}
	bodyH := m.height - chromeLines
	var b strings.Builder
	b.Grow(m.width * m.height * 2)
	m.headerView(&b)
	b.WriteByte('\n')
	b.WriteString(m.tabsView())
	b.WriteByte('\n')
	var body string
	switch {
	case m.focus == focusHelp:
		body = m.help.view(m, bodyH)
	case m.dialog != nil:
		body = lipgloss.Place(m.width, bodyH, lipgloss.Center, lipgloss.Center, m.dialog.view(m),
			lipgloss.WithWhitespaceChars(" "))
	case !m.haveSnap:
		body = m.c.Styles.Muted.Render("  waiting for the first snapshot from the engine…")
	default:
		body = m.panes[m.active].View()
	}
	status := m.statusView()
	writeLines(&b, body, bodyH-strings.Count(status, "\n"))
	b.WriteString(status)
	b.WriteByte('\n')
	b.WriteString(m.hintView())
	return b.String()
}

// writeLines writes exactly n lines of s (padding or cutting), each followed by "\n".
func writeLines(b *strings.Builder, s string, n int) {
	lines := 0
	for lines < n {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			if s != "" {
				b.WriteString(s)
				b.WriteByte('\n')
				lines++
			}
			break
		}
		b.WriteString(s[:i])
		b.WriteByte('\n')
		s = s[i+1:]
		lines++
	}
	for ; lines < n; lines++ {
		b.WriteByte('\n')
	}
}

// smallView is all the console shows below 80×24; q still works.
func (m *Model) smallView() string {
	st := m.c.Styles
	lines := []string{
		st.StatusError.Render(fmt.Sprintf("need %d×%d (have %d×%d)", MinWidth, MinHeight, m.width, m.height)),
		st.Muted.Render("enlarge the terminal, or press q to quit"),
	}
	if m.dialog != nil {
		lines = append(lines, "", st.DialogTitle.Render(m.dialog.title), m.dialog.keys)
	}
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center,
		lipgloss.JoinVertical(lipgloss.Center, lines...))
}

// headerView writes the two header lines: state and rate, then the totals.
func (m *Model) headerView(b *strings.Builder) {
	st := m.c.Styles
	s := &m.snap
	now := m.c.Now()

	state := string(s.State)
	if !m.haveSnap || state == "" {
		state = string(view.StateStarting)
	}
	if s.StoreError != "" {
		// The crawl stopped itself; the reason leads the header so it is
		// never missed (the log pane has the advice).
		// The cause ends the store's message ("...: database or disk is full"): keep
		// the tail when it must be cut.
		reason := []rune(s.StoreError)
		if limit := m.width - pane.CellWidth(m.opts.Title) - 48; limit > 8 && len(reason) > limit {
			reason = append([]rune("…"), reason[len(reason)-limit+1:]...)
		}
		state = "STORE FAILED: " + string(reason)
	}
	left := " " + m.opts.Title + "  " + state
	stateStyle := st.State(state)
	if s.StoreError != "" {
		stateStyle = st.State(string(view.StateFailed))
	}
	if !knownState(view.State(state)) && s.StoreError == "" {
		// A state the engine does not have: an attached console's "master
		// unreachable" (engine/attach), showing the last snapshot it got.
		stateStyle = st.Bad
	}
	leftStyled := " " + st.Title.Render(m.opts.Title) + "  " + stateStyle.Render(state)
	if what, at := pane.IdleWait(s); what != "" {
		// Between rounds or revisits nothing is fetched for minutes: say when it
		// goes on.
		next := "next " + what + " in " + pane.ShortDuration(max(at.Sub(now), 0))
		left += " (" + next + ")"
		leftStyled += " " + st.Muted.Render("("+next+")")
	}
	if m.frozen {
		left += "  FROZEN"
		leftStyled += "  " + st.Frozen.Render("FROZEN")
	}
	if m.c.ReadOnly {
		left += "  read-only"
		leftStyled += "  " + st.Muted.Render("read-only")
	}
	// Done of all the URLs the crawl took, as a bar: a crawl at polite rates moves
	// little in a minute, and the bar says how far it is all the same.
	prog := progressBar(s.Totals.URLsDone, s.Totals.URLsQueued, m.width >= 100)
	rate := "  " + pane.Rate(pane.PagesPerSec(s)) + " "
	up := "-"
	if !s.StartedAt.IsZero() {
		up = pane.ShortDuration(now.Sub(s.StartedAt))
	}
	right := "  up " + up + " "
	// A narrow console with the state's notes (frozen, read-only, the next
	// round) has no room for all: the progress goes first, then the uptime,
	// then the rate, so the line is never cut by the terminal.
	fits := func() bool {
		w := pane.CellWidth(left) + len(rate) + len(right)
		if prog != "" {
			w += 2 + pane.CellWidth(prog)
		}
		return w <= m.width
	}
	for _, drop := range []*string{&prog, &right, &rate} {
		if fits() {
			break
		}
		*drop = ""
	}
	if prog != "" {
		left += "  " + prog
		leftStyled += "  " + st.Value.Render(prog)
	}
	sparkW := m.width - pane.CellWidth(left) - len(rate) - len(right)
	b.WriteString(leftStyled)
	b.WriteString(st.Value.Render(rate))
	if sparkW > 0 {
		b.WriteString(st.Spark.Render(pane.Sparkline(s.RateHistory, sparkW)))
	}
	b.WriteString(st.Label.Render(right))
	b.WriteByte('\n')

	// Totals, in priority order, as many as fit.
	errs, skips, warns := int64(0), int64(0), int64(0)
	for _, n := range s.Totals.Errors {
		errs += n
	}
	for _, n := range s.Totals.Warnings {
		warns += n // a feed's bad dates or XML: worth a look, nothing failed
	}
	for _, n := range s.Totals.Skipped {
		skips += n // robots.txt, noindex, scope, content type: chosen, not failed
	}
	live := 0 // a master's workers that are not dead (M4)
	for _, n := range s.Nodes {
		if n.State != view.NodeDead {
			live++
		}
	}
	// The totals in the order they always stand, each with its rank: the most
	// useful ones are placed first and the least useful are the ones dropped
	// when the line is too narrow. A figure shown only when non-zero (paused
	// hosts, robots.txt waits) asks for the operator's eye, so it ranks above the
	// running counts.
	type seg struct {
		pane.Figure
		rank int // 0 most useful
		show bool
	}
	segs := []seg{
		{pane.Figure{Label: "fetched", Value: pane.Thousands(s.Totals.PagesFetched)}, 4, true},
		{pane.Figure{Label: "stored", Value: pane.Thousands(s.Totals.PagesStored)}, 8, true},
		{pane.Figure{Label: "queue", Value: pane.Thousands(int64(s.QueueDepth))}, 5, true},
		{pane.Figure{Label: "lanes", Value: strconv.Itoa(s.LanesBusy) + "/" + strconv.Itoa(s.LanesMax)}, 7, true},
		{pane.Figure{Label: "workers", Value: strconv.Itoa(live), Bad: s.Join != "" && live == 0}, 3, s.Join != "" || len(s.Nodes) > 0},
		{pane.Figure{Label: "errors", Value: pane.Thousands(errs), Bad: errs > 0}, 0, true},
		{pane.Figure{Label: "refused", Value: pane.Thousands(s.Totals.Refused), Bad: s.Totals.Refused > 0}, 6, true},
		// URLs deferred until their site's robots.txt answers: among the errors
		// (robots_unreachable), but waiting, not failed.
		{pane.Figure{Label: "robots.txt wait", Value: pane.Thousands(s.Totals.Robots.URLs)}, 2, s.Totals.Robots.URLs > 0},
		{pane.Figure{Label: "in flight", Value: strconv.Itoa(inFlight(s.Lanes))}, 9, true},
		{pane.Figure{Label: "paused hosts", Value: strconv.Itoa(len(s.PausedHosts)), Bad: len(s.PausedHosts) > 0}, 1, len(s.PausedHosts) > 0},
		{pane.Figure{Label: "skipped", Value: pane.Thousands(skips)}, 10, skips > 0},
		{pane.Figure{Label: "warnings", Value: pane.Thousands(warns)}, 11, warns > 0},
		{pane.Figure{Label: "bytes", Value: pane.BytesHuman(s.Totals.BytesFetched)}, 12, true},
		{pane.Figure{Label: "browser", Value: browserSeg(s.Render)}, 13, s.Render != nil},
	}
	byRank := make([]int, 0, len(segs))
	for i := range segs {
		if segs[i].show {
			byRank = append(byRank, i)
		}
	}
	slices.SortFunc(byRank, func(a, b int) int { return segs[a].rank - segs[b].rank })
	// "  label value" each, the first with one leading space: a figure that does
	// not fit is left out whole, and a smaller, less useful one may take the room.
	placed := make([]bool, len(segs))
	used := -1
	for _, i := range byRank {
		w := 2 + pane.CellWidth(segs[i].Label) + 1 + pane.CellWidth(segs[i].Value)
		if used+w <= m.width {
			used += w
			placed[i] = true
		}
	}
	first := true
	for i := range segs {
		if !placed[i] {
			continue
		}
		if first {
			b.WriteString(" ")
			first = false
		} else {
			b.WriteString("  ")
		}
		b.WriteString(segs[i].Render(st))
	}
}

// knownState reports whether s is one of the engine's crawl states.
func knownState(s view.State) bool {
	switch s {
	case view.StateStarting, view.StateRunning, view.StatePaused, view.StateStopping, view.StateDone,
		view.StateFailed, view.StateIdle, view.StateDraining:
		return true
	}
	return false
}

// tabsView draws the pane tabs; the active one is bracketed so it shows without
// colour too. The active pane's position and filter sit on the right.
func (m *Model) tabsView() string {
	st := m.c.Styles
	var b strings.Builder
	m.tabs = m.tabs[:0]
	// Every tab is shown, the active one always by name: on a bar too narrow for
	// all the names (nine panes of a master at 80 columns), the others shorten to
	// their first letters, then to their numbers.
	label := func(t, i, cut int) string {
		title := m.panes[i].Title()
		if i != m.active && cut >= 0 {
			title = string([]rune(title)[:min(cut, len([]rune(title)))])
		}
		if title == "" {
			return strconv.Itoa(t + 1)
		}
		return strconv.Itoa(t+1) + " " + title
	}
	cut := -1
	for _, try := range []int{-1, 4, 0} {
		cut = try
		w := 0
		for t, i := range m.shown {
			w += 1 + 2 + pane.CellWidth(label(t, i, try))
		}
		if w <= m.width {
			break
		}
	}
	x := 0
	for t, i := range m.shown {
		label := label(t, i, cut)
		cell := " " + label + " "
		style := st.Tab
		if i == m.active {
			cell = "[" + label + "]"
			style = st.TabActive
		}
		b.WriteString(" ")
		x++
		w := pane.CellWidth(cell)
		m.tabs = append(m.tabs, tabSpan{pane: i, from: x, to: x + w})
		b.WriteString(style.Render(cell))
		x += w
	}
	// The longest note that fits: with six tabs an 80-column bar has little room.
	pos := m.panes[m.active].Position()
	notes := []string{pos + " "}
	if f := m.filters[m.active]; f.Active() {
		notes = []string{"filter " + strconv.Quote(f.String()) + "  " + pos + " ", "filtered " + pos + " ", pos + " "}
	}
	for _, right := range notes {
		if gap := m.width - x - pane.CellWidth(right); gap > 0 {
			b.WriteString(strings.Repeat(" ", gap))
			b.WriteString(st.Muted.Render(right))
			break
		}
	}
	return b.String()
}

// statusView is the line under the panes: the focused input, or the last message.
func (m *Model) statusView() string {
	st := m.c.Styles
	switch m.focus {
	case focusCommand:
		return m.cmdIn.view(st, m.width)
	case focusFilter:
		return m.filterIn.view(st, m.width)
	case focusHelp:
		if m.help.searching {
			return m.help.search.view(st, m.width)
		}
	}
	if m.status.text != "" && m.c.Now().Sub(m.status.at) < statusTTL {
		style := st.StatusInfo
		if m.status.err {
			style = st.StatusError
		}
		return statusLines(style, m.status.text, m.width-2)
	}
	if m.frozen {
		return " " + st.Muted.Render("view frozen: the crawl keeps running; f shows it live again")
	}
	return ""
}

// statusMaxLines is the most lines a message takes, from the pane's last rows: a
// refusal says its reason last, after the command it refuses, and one line cut at
// 80 columns would lose the reason.
const statusMaxLines = 3

// statusLines is text wrapped to width, at most statusMaxLines lines (the last one
// cut), each indented by one space.
func statusLines(style lipgloss.Style, text string, width int) string {
	lines := strings.Split(ansi.Hardwrap(ansi.Wordwrap(text, width, ""), width, false), "\n")
	if len(lines) > statusMaxLines {
		lines = lines[:statusMaxLines]
		lines[statusMaxLines-1] = ansi.Truncate(lines[statusMaxLines-1]+" …", width, "…")
	}
	for i, l := range lines {
		lines[i] = " " + style.Render(strings.TrimRight(l, " "))
	}
	return strings.Join(lines, "\n")
}

// hintView is the bottom line: what the keys do right now.
func (m *Model) hintView() string {
	st := m.c.Styles
	km := m.c.Keys
	switch m.focus {
	case focusCommand:
		switch {
		case len(m.cmdHint) > 0:
			return " " + st.Muted.Render(ansi.Truncate(strings.Join(m.cmdHint, "  "), m.width-2, "…"))
		}
		return " " + st.Muted.Render("tab completes · ↑/↓ history · enter runs · esc cancels · :help lists commands")
	case focusFilter:
		return " " + st.Muted.Render("type to filter rows · !text hides matches · enter keeps · esc cancels")
	case focusHelp:
		return " " + st.Muted.Render("/ search · ↑/↓ scroll · esc, ? or q closes")
	case focusDialog:
		return " " + st.Muted.Render(m.dialog.keys)
	}
	// Help and quit always show, at the right; the rest as many as fit. Quit is
	// offered as q alone: its ctrl+c is in the ? overlay, and the room goes to keys.
	quit := key.NewBinding(key.WithKeys(km.Quit.Keys()...), key.WithHelp("q", km.Quit.Help().Desc))
	tail := m.shortHelp([]key.Binding{km.Help, quit}, m.width)
	tailW := 2 + pane.CellWidth(km.Help.Help().Key+km.Help.Help().Desc+quit.Help().Key+quit.Help().Desc) + 4
	keys := append(m.panes[m.active].ShortHelp(), km.Pause, km.Filter, km.Command, km.Rebalance, km.Freeze, km.NextPane)
	if m.c.ReadOnly { // a viewer is offered no control it would refuse
		keys = slices.DeleteFunc(keys, km.IsControl)
	}
	head := m.shortHelp(keys, m.width-tailW)
	return head + strings.Repeat(" ", max(m.width-lipgloss.Width(head)-tailW, 0)) + tail
}

// shortHelp renders bindings as "key desc" pairs, as many as fit.
func (m *Model) shortHelp(bs []key.Binding, width int) string {
	st := m.c.Styles
	var b strings.Builder
	used := 0
	for _, k := range bs {
		h := k.Help()
		w := 1 + pane.CellWidth(h.Key) + 1 + pane.CellWidth(h.Desc) + 1
		if used+w > width {
			break
		}
		used += w
		b.WriteString(" ")
		b.WriteString(st.HelpKey.Render(h.Key))
		b.WriteString(" ")
		b.WriteString(st.HelpDesc.Render(h.Desc))
		b.WriteString(" ")
	}
	return b.String()
}

// progressBar is "▕████░░░░░░▏ 41% done": the URLs finished of those taken; "" before
// any was taken.
// Below 100 columns the bar goes and the share stays.
func progressBar(done, taken int64, bar bool) string {
	if taken <= 0 {
		return ""
	}
	share := min(float64(done)/float64(taken), 1)
	pct := strconv.Itoa(int(share*100)) + "% done"
	if !bar {
		return pct
	}
	const cells = 10
	full := int(share*cells + 0.5)
	return "▕" + strings.Repeat("█", full) + strings.Repeat("░", cells-full) + "▏ " + pct
}

// inFlight counts the lanes with a request out now.
func inFlight(lanes []view.Lane) int {
	n := 0
	for i := range lanes {
		if lanes[i].Status == view.LaneFetching {
			n++
		}
	}
	return n
}

// browserSeg is the browser pool's state on the totals line ("" without one: the
// segment is left out).
func browserSeg(r *view.RenderStats) string {
	if r == nil {
		return ""
	}
	return r.Compact()
}
