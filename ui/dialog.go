package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// dialog is a confirm box over the panes (quit, rebalance). It has focus until
// answered: y/enter runs onYes, n/esc closes it.
type dialog struct {
	title string
	lines []string
	keys  string // the answer keys, for the hint line
	onYes func(m *Model) tea.Cmd
	// ctrlCYes makes ctrl+c answer yes (quit: a second ctrl+c quits); otherwise it
	// answers no.
	ctrlCYes bool
}

// planMsg carries a rebalance plan computed in a Cmd.
type planMsg struct{ plan view.RebalancePlan }

func (m *Model) openDialog(d *dialog) {
	m.dialog = d
	m.focus = focusDialog
}

func (m *Model) closeDialog() {
	m.dialog = nil
	m.focus = focusPane
}

func quitDialog() *dialog {
	return &dialog{
		title:    "Quit crawlconsole?",
		lines:    []string{"The crawl is still running; quitting stops it cleanly."},
		keys:     "y/enter quit · n/esc keep watching",
		onYes:    func(*Model) tea.Cmd { return tea.Quit },
		ctrlCYes: true,
	}
}

func (m *Model) dialogKey(msg tea.KeyMsg) tea.Cmd {
	d := m.dialog
	k := msg.String()
	switch {
	case k == "ctrl+c" && d.ctrlCYes, pane.Matches(k, m.c.Keys.Yes):
		m.closeDialog()
		return d.onYes(m)
	case k == "ctrl+c", pane.Matches(k, m.c.Keys.No):
		m.closeDialog()
	}
	return nil
}

// planRebalance asks the engine for a plan (in a Cmd) and shows it when it comes.
func (m *Model) planRebalance() tea.Cmd {
	if m.c.ReadOnly {
		return pane.Status(pane.ReadOnlyText, true)
	}
	m.setStatus("planning a rebalance…", false)
	ctrl := m.ctrl
	return func() tea.Msg { return planMsg{plan: ctrl.PlanRebalance()} }
}

// showPlan opens the confirm dialog for a plan, or says there is nothing to do.
func (m *Model) showPlan(p view.RebalancePlan) tea.Cmd {
	if p.Workers {
		return m.showWorkerPlan(p)
	}
	if len(p.Moves) == 0 {
		m.setStatus("rebalance: nothing to move ("+p.Summary+")", false)
		return nil
	}
	moves := make([]string, len(p.Moves))
	for i, mv := range p.Moves {
		moves[i] = fmt.Sprintf("lane %-4d %s -> %s  (%.1fs queued)", mv.Lane, mv.From, mv.To, mv.Cost)
	}
	m.openPlan(p, "Rebalance lanes over egresses", "Moves:", moves, "Egress load, before -> after:",
		func(b, a view.EgressLoad) string {
			return fmt.Sprintf("%9s %7.1fs  ->  %9s %7.1fs", plural.Count(b.Lanes, "lane"), b.Cost, plural.Count(a.Lanes, "lane"), a.Cost)
		}, "rebalanced: ")
	return nil
}

// showWorkerPlan opens the confirm dialog for seed 003's balancing over workers (a
// master): what moves where, each worker's weight total and the variance before and
// after.
func (m *Model) showWorkerPlan(p view.RebalancePlan) tea.Cmd {
	if len(p.Units) == 0 {
		m.setStatus("rebalance: "+p.Summary, false)
		return nil
	}
	moves := make([]string, len(p.Units))
	for i, mv := range p.Units {
		moves[i] = fmt.Sprintf("%s  %s -> %s  (%.3f)", mv.Unit, mv.From, mv.To, mv.Weight)
	}
	m.openPlan(p, "Rebalance sites over workers (seed 003)", "Moves (site or site · keyword, weight):", moves,
		"Worker weight total, before -> after:", func(b, a view.EgressLoad) string {
			return fmt.Sprintf("%9s %6.3f  ->  %9s %6.3f", plural.Count(b.Lanes, "site"), b.Cost, plural.Count(a.Lanes, "site"), a.Cost)
		}, "rebalancing: ", fmt.Sprintf("  variance %.3g -> %.3g", p.VarianceBefore, p.VarianceAfter))
	return nil
}

// openPlan shows a plan for confirmation: its summary, the moves, each egress's or
// worker's load before -> after, and extra lines, both lists cut to fit the
// terminal; y applies it and reports done+summary.
func (m *Model) openPlan(p view.RebalancePlan, title, movesTitle string, moves []string, loadsTitle string,
	load func(before, after view.EgressLoad) string, done string, extra ...string) {
	m.status = statusLine{} // "planning…" is answered by the dialog
	// Around the lists: the border (2), the title, summary, blank and moves title
	// (4), a blank and the loads title (2), the extra lines, a blank and the keys
	// (2). A cut list spends one of its rows on "… and N more".
	avail := max(m.height-chromeLines-10-len(extra), 4)
	after := map[string]view.EgressLoad{}
	for _, a := range p.After {
		after[a.Egress] = a
	}
	ew := pane.EgressWidth(p.Before, func(l *view.EgressLoad) string { return l.Egress })
	loadLine := func(b view.EgressLoad) string { return "  " + pane.Fit(b.Egress, ew) + " " + load(b, after[b.Egress]) }
	// The loads take what the moves leave them, the moves two rows at least (a
	// move and "… and N more"): a crawl through more egresses than the terminal
	// has rows ran the dialog's keys line off the screen. Cut, the egresses whose
	// load the plan changes come first.
	var loads []string
	if loadRoom := avail - min(len(moves), 2); len(p.Before) > loadRoom {
		var changed, same []string
		for _, b := range p.Before {
			if a := after[b.Egress]; a.Lanes != b.Lanes || a.Cost != b.Cost {
				changed = append(changed, loadLine(b))
			} else {
				same = append(same, loadLine(b))
			}
		}
		loads = append(append(changed, same...)[:loadRoom-1], fmt.Sprintf("  … and %d more", len(p.Before)-(loadRoom-1)))
	} else {
		for _, b := range p.Before {
			loads = append(loads, loadLine(b))
		}
	}
	room := avail - len(loads)
	shown := len(moves)
	if shown > room {
		shown = room - 1
	}
	lines := []string{p.Summary, "", movesTitle}
	for _, mv := range moves[:shown] {
		lines = append(lines, "  "+mv)
	}
	if shown < len(moves) {
		lines = append(lines, fmt.Sprintf("  … and %d more", len(moves)-shown))
	}
	lines = append(lines, "", loadsTitle)
	lines = append(lines, loads...)
	lines = append(lines, extra...)
	plan := p
	m.openDialog(&dialog{
		title: title,
		lines: lines,
		keys:  "y/enter apply · n/esc cancel",
		onYes: func(m *Model) tea.Cmd {
			return m.c.Control("rebalance", done+plan.Summary, func(ctrl control.Control) error {
				return ctrl.ApplyRebalance(plan)
			})
		},
	})
}

func (d *dialog) view(m *Model) string {
	st := m.c.Styles
	width := min(m.width-4, 76)
	var b strings.Builder
	b.WriteString(st.DialogTitle.Render(d.title))
	for _, l := range d.lines {
		b.WriteString("\n")
		b.WriteString(pane.Fit(l, width-4))
	}
	b.WriteString("\n\n")
	b.WriteString(st.HelpKey.Render(d.keys))
	return st.Dialog.Render(b.String())
}
