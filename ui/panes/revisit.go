package panes

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() { pane.Register(60, newRevisitPane) }

// revisitPane shows adaptive revisit (M2): the due queue with each page's seed
// state (class, t, x, countdown to next, last Hamming distance), refetches against
// changes detected, the class windows (seed 003) and a histogram of the learned
// intervals t/x. n refetches the selected page now.
type revisitPane struct {
	c             *pane.Common
	width, height int
	view          *view.RevisitView // nil: the crawl keeps no revisit state
	rows          pane.Rows[string] // over view.Due, keyed by URL
	showBehind    bool              // b: the pages the budget cannot follow instead of the due queue
}

// histW is the width of the interval histogram beside the figures (wide layout).
const histW = 46

func newRevisitPane(c *pane.Common) pane.Pane {
	p := &revisitPane{c: c}
	p.rows = pane.NewRows(func() int {
		if p.view == nil {
			return 0
		}
		return len(p.view.Due)
	}, func(i int) string { return p.view.Due[i].URL }, func(f pane.Filter, i int) bool {
		return f.Match(p.view.Due[i].URL, p.view.Due[i].Class)
	})
	return p
}

func (p *revisitPane) Title() string { return "Revisit" }

func (p *revisitPane) ShortHelp() []key.Binding {
	return []key.Binding{p.c.Keys.RevisitNow, p.c.Keys.Behind}
}

func (p *revisitPane) FullHelp() [][]key.Binding {
	return [][]key.Binding{{p.c.Keys.RevisitNow, p.c.Keys.Behind}, p.c.Keys.NavHelp()}
}

// wide puts the histogram and the class windows beside the figures as tables;
// narrower terminals get one line for each.
func (p *revisitPane) wide() bool { return p.width >= 110 }

// top is the height of the block above the due queue, its blank line included.
func (p *revisitPane) top() int {
	if p.wide() {
		// Left: two figure lines, a blank, the windows table; right: the histogram.
		return max(4+len(p.windows()), 1+max(len(p.intervals()), 1)) + 1
	}
	if p.view != nil && len(p.view.Plans) > 0 {
		return 6 // and the plans line
	}
	return 5
}

func (p *revisitPane) windows() []view.ClassWindow {
	if p.view == nil {
		return nil
	}
	return p.view.Windows
}

func (p *revisitPane) intervals() []view.IntervalBucket {
	if p.view == nil {
		return nil
	}
	return p.view.Intervals
}

func (p *revisitPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.resize()
}

func (p *revisitPane) resize() { p.rows.SetHeight(max(p.height-p.top()-1, 1)) }

func (p *revisitPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	// A page that left the queue (queued for its refetch) leaves the cursor where
	// it was, on the next page. The height depends on the view: it is set before
	// the cursor goes back to its page, so that page is scrolled into sight.
	pane.Keep(p.rows.Selected, func() {
		p.view = s.Revisit
		p.rows.Refilter()
		p.resize()
	}, p.rows.Reselect)
	return nil
}

func (p *revisitPane) SetFilter(f pane.Filter) { p.rows.SetFilter(f) }

func (p *revisitPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		k := msg.String()
		if p.showBehind {
			return p.updateBehind(k) // the due queue is hidden: its keys wait
		}
		if p.rows.Navigate(p.c.Keys, k) {
			return nil
		}
		if pane.Matches(k, p.c.Keys.RevisitNow) {
			if p.c.ReadOnly {
				return pane.Status(pane.ReadOnlyText, true)
			}
			u, ok := p.rows.Selected()
			if !ok {
				return pane.Status("no page selected", true)
			}
			return commands.RevisitNow(p.c, u)
		}
		if pane.Matches(k, p.c.Keys.Behind) {
			p.showBehind = !p.showBehind
			return nil
		}
	case pane.ClickMsg:
		if !p.showBehind {
			p.rows.Click(msg.Row, p.top()+1) // below the due queue's header
		}
	}
	return nil
}

func (p *revisitPane) Position() string { return p.rows.PositionIf(p.view != nil) }

func (p *revisitPane) View() string {
	st := p.c.Styles
	if p.view == nil {
		return pane.Empty(st, "REVISIT", "no revisit state in this crawl: pages are fetched once (M2)", p.width)
	}
	var b strings.Builder
	if p.wide() {
		left := []string{p.schedulerLine(p.width - histW - 1), p.refetchLine(p.width - histW - 1), pane.Spaces(p.width - histW - 1)}
		left = append(left, p.windowsTable(p.width-histW-1)...)
		right := p.histogram(histW)
		for i := range p.top() - 1 {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(pane.LineAt(left, i, p.width-histW-1))
			b.WriteString(" ")
			b.WriteString(pane.LineAt(right, i, histW))
		}
	} else {
		b.WriteString(p.schedulerLine(p.width) + "\n")
		b.WriteString(p.refetchLine(p.width) + "\n")
		b.WriteString(p.windowsLine() + "\n")
		if len(p.view.Plans) > 0 {
			b.WriteString(p.plansLine() + "\n")
		}
		b.WriteString(p.intervalsLine())
	}
	b.WriteString("\n\n")
	if p.showBehind {
		b.WriteString(p.behindTable())
	} else {
		b.WriteString(p.dueTable())
	}
	return b.String()
}

// schedulerLine: policy, period, last tick, how many pages are tracked and queued.
func (p *revisitPane) schedulerLine(width int) string {
	v := p.view
	last := "not yet"
	if !v.LastTick.IsZero() {
		last = pane.ShortDuration(max(p.c.Now().Sub(v.LastTick), 0)) + " ago"
	}
	state := pane.Figure{Label: "policy", Value: v.Policy}
	if !v.Enabled {
		state = pane.Figure{Label: "off", Value: "(revisit.enabled false)", Bad: true} // pages are tracked, none requeued
	}
	return pane.FigureLine(p.c.Styles, width, "scheduler", []pane.Figure{
		state, {Label: "every", Value: longDuration(v.Every)}, {Label: "last tick", Value: last},
		{Label: "tracked", Value: pane.Thousands(v.Tracked)}, {Label: "queued", Value: strconv.Itoa(v.Queued)},
		{Label: "threshold", Value: strconv.Itoa(v.Threshold)}, {Label: "ticks", Value: pane.Thousands(v.Ticks)},
	})
}

// refetchLine: refetches against the changes they found (M2's "changes detected").
func (p *revisitPane) refetchLine(width int) string {
	v := p.view
	changes := pane.Thousands(v.Changes)
	if v.Refetches > 0 {
		changes += " (" + pane.Percent(float64(v.Changes)/float64(v.Refetches)) + ")"
	}
	return pane.FigureLine(p.c.Styles, width, "refetches", []pane.Figure{
		{Label: "refetched", Value: pane.Thousands(v.Refetches)}, {Label: "changed", Value: changes},
		{Label: "304", Value: pane.Thousands(v.NotModified)}, {Label: "unknown", Value: pane.Thousands(v.Unknown), Bad: v.Unknown > 0},
		{Label: "requeued", Value: pane.Thousands(v.Requeued)},
		{Label: "first from site", Value: firstFromSite(v)},
	})
}

// firstFromSite is how many new pages had their first revisit planned from their
// site's earlier pages, and how many of those sites' new pages were still probed at
// revisit.initial.
func firstFromSite(v *view.RevisitView) string {
	if v.FirstPlanned == 0 && v.FirstProbed == 0 {
		return "0"
	}
	return pane.Thousands(v.FirstPlanned) + " (" + pane.Thousands(v.FirstProbed) + " probed)"
}

// windowsLine is the class windows on one line (narrow layout).
func (p *revisitPane) windowsLine() string {
	var figs []pane.Figure
	for _, w := range p.view.Windows {
		figs = append(figs, pane.Figure{Label: w.Class, Value: windowText(w.Window)})
	}
	return pane.FigureLine(p.c.Styles, p.width, "windows", figs)
}

// windowsTable lists each class with its window and pages (wide layout).
func (p *revisitPane) windowsTable(width int) []string {
	st := p.c.Styles
	cols := []pane.Column{{Title: "CLASS", Width: 8}, {Title: "WINDOW", Width: 8, Right: true}, {Title: "PAGES", Width: 8, Right: true}}
	cols = append(cols, p.planColumns()...) // where each class's plan is heading
	out := []string{pane.HeaderRow(st, cols, width)}
	for _, w := range p.view.Windows {
		cells := append([]string{w.Class, windowText(w.Window), pane.Thousands(w.Pages)}, p.planCells(w.Class)...)
		out = append(out, pane.TableRow(st, cols, cells, width, false, -1, nil))
	}
	return out
}

// windowText is a class window: "3d", "14d", "no limit".
func windowText(d time.Duration) string {
	if d <= 0 {
		return "no limit"
	}
	return longDuration(d)
}

// intervalsLine is the histogram on one line (narrow layout): pages per bucket.
func (p *revisitPane) intervalsLine() string {
	var figs []pane.Figure
	for _, b := range p.view.Intervals {
		figs = append(figs, pane.Figure{Label: bucketLabel(b), Value: pane.Thousands(b.Pages)})
	}
	return pane.FigureLine(p.c.Styles, p.width, "t/x", figs)
}

// histogram draws the interval buckets as horizontal bars scaled to the largest,
// header first (wide layout).
func (p *revisitPane) histogram(width int) []string {
	st := p.c.Styles
	const labelW, countW = 10, 7
	barW := max(width-2-labelW-countW-2, 1)
	out := []string{st.ColHeader.Render(pane.Fit("  "+pane.Fit("t/x", labelW)+pane.Fit("PAGES BY LEARNED INTERVAL", barW+countW+2), width))}
	var peak int64
	for _, b := range p.view.Intervals {
		peak = max(peak, b.Pages)
	}
	for _, b := range p.view.Intervals {
		n := 0
		if peak > 0 && b.Pages > 0 {
			n = max(int(float64(b.Pages)/float64(peak)*float64(barW)+0.5), 1) // any page shows
		}
		line := "  " + st.Label.Render(pane.Fit(bucketLabel(b), labelW)) + st.Spark.Render(pane.Fit(strings.Repeat("█", n), barW)) +
			" " + st.Value.Render(pane.FitRight(pane.Thousands(b.Pages), countW)) + " "
		out = append(out, line)
	}
	if len(p.view.Intervals) == 0 {
		out = append(out, st.Muted.Render(pane.Fit("  no page compared twice yet", width)))
	}
	return out
}

// bucketLabel names a histogram bucket by its bounds: "<1m", "1m-10m", ">=1w".
func bucketLabel(b view.IntervalBucket) string {
	switch {
	case b.Min <= 0 && b.Max > 0:
		return "<" + longDuration(b.Max)
	case b.Max <= 0:
		return ">=" + longDuration(b.Min)
	default:
		return longDuration(b.Min) + "-" + longDuration(b.Max)
	}
}

// dueTable is the due queue: soonest first, overdue pages with a minus sign.
func (p *revisitPane) dueTable() string {
	st := p.c.Styles
	spec := []pane.Column{
		{Title: "DUE PAGE"}, {Title: "CLASS", Width: 7}, {Title: "T", Width: 7, Right: true}, {Title: "X", Width: 3, Right: true},
		{Title: "NEXT IN", Width: 8, Right: true}, {Title: "HAM", Width: 3, Right: true}, {Title: "FETCH", Width: 5, Right: true},
	}
	evidence := p.width >= evidenceMinWidth
	if evidence {
		// The distance of the page's last change and why it counted, so the operator
		// can judge the change detector.
		spec = append(spec, pane.Column{Title: "CHG", Width: 3, Right: true}, pane.Column{Title: "WHY", Width: 33})
	}
	cols := pane.LayoutColumns(spec, p.width)
	var b strings.Builder
	b.WriteString(pane.HeaderRow(st, cols, p.width))
	none := p.rows.Why("no page due: the scheduler requeued them, or none was fetched yet", pane.NoMatch("due page", p.rows.Filter))
	now := p.c.Now()
	cells := make([]string, 0, len(cols))
	p.rows.WriteBody(&b, st, p.width, none, func(i int, sel bool) string {
		d := &p.view.Due[i]
		ham := "-"
		if d.Distance >= 0 {
			ham = strconv.Itoa(d.Distance)
		}
		cells = append(cells[:0], d.URL, d.Class, learnedT(d), strconv.Itoa(d.X), nextIn(d.Next.Sub(now)), ham, strconv.Itoa(d.Fetches))
		if evidence {
			cells = append(cells, changeDistance(d), changeWhy(d))
		}
		var accent *lipgloss.Style
		if d.Distance > p.view.Threshold {
			a := st.Bad // changed at the last comparison
			accent = &a
		}
		return pane.TableRow(st, cols, cells, p.width, sel, 5, accent)
	})
	return b.String()
}

// nextIn is the NEXT IN cell: overdue pages with a minus sign; within a second
// either way, "now" (rounded first: it said "-0s").
func nextIn(next time.Duration) string {
	switch r := next.Round(time.Second); {
	case r == 0:
		return "now"
	case r < 0:
		return "-" + longDuration(-r) // overdue
	default:
		return longDuration(r)
	}
}

// learnedT is the T cell: the time over which changes were counted, "-" before a
// second fetch has given the page any (a 0s read as "changes every instant").
func learnedT(d *view.RevisitDue) string {
	if d.Fetches < 2 && d.T == 0 {
		return "-"
	}
	return longDuration(d.T)
}

// evidenceMinWidth is the pane width from which the due table shows the change
// evidence columns; narrower, the URL keeps the room.
const evidenceMinWidth = 140

// changeDistance is the SimHash distance of the page's last change, "-" before any.
func changeDistance(d *view.RevisitDue) string {
	if d.ChangeDistance < 0 || d.ChangeReason == "" || d.ChangeReason == "-" {
		return "-"
	}
	return strconv.Itoa(d.ChangeDistance)
}

// changeWhy says why the last change counted and, when the latest
// comparison was not a change, why not ("only boilerplate moved"); "no article"
// flags a page fingerprinted on all its visible text.
func changeWhy(d *view.RevisitDue) string {
	why := d.ChangeReason
	if why == "" || why == "-" {
		why = d.LastReason
	} else if d.BoilerplateOnly {
		why += "; now boilerplate"
	}
	switch {
	case d.Fallback && (why == "" || why == "-"):
		why = "no article"
	case d.Fallback:
		why = "no article: " + why
	case why == "":
		why = "-"
	}
	return why
}

// longDuration formats durations up to weeks compactly: 45s, 2m03s, 5h02m, 3d04h, 14d.
func longDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d >= 24*time.Hour:
		days, hours := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
		if hours == 0 || days >= 10 {
			return strconv.Itoa(days) + "d"
		}
		return strconv.Itoa(days) + "d" + pane.Pad2(hours) + "h"
	case d >= time.Hour:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return strconv.Itoa(h) + "h"
		}
		return strconv.Itoa(h) + "h" + pane.Pad2(m) + "m"
	case d >= time.Minute:
		m, s := int(d/time.Minute), int(d%time.Minute/time.Second)
		if s == 0 {
			return strconv.Itoa(m) + "m"
		}
		return strconv.Itoa(m) + "m" + pane.Pad2(s) + "s"
	default:
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
}
