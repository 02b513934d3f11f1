package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine"
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
type planMsg struct{ plan engine.RebalancePlan }

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
	case k == "ctrl+c" && d.ctrlCYes, matches(k, m.c.Keys.Yes):
		m.closeDialog()
		return d.onYes(m)
	case k == "ctrl+c", matches(k, m.c.Keys.No):
		m.closeDialog()
	}
	return nil
}

// planRebalance asks the engine for a plan (in a Cmd) and shows it when it comes.
func (m *Model) planRebalance() tea.Cmd {
	if m.c.readOnly {
		return status(ReadOnlyText, true)
	}
	m.setStatus("planning a rebalance…", false)
	ctrl := m.c.ctrl
	return func() tea.Msg { return planMsg{plan: ctrl.PlanRebalance()} }
}

// showPlan opens the confirm dialog for a plan, or says there is nothing to do.
func (m *Model) showPlan(p engine.RebalancePlan) tea.Cmd {
	if p.Workers {
		return m.showWorkerPlan(p)
	}
	if len(p.Moves) == 0 {
		m.setStatus("rebalance: nothing to move ("+p.Summary+")", false)
		return nil
	}
	m.status = statusLine{} // "planning…" is answered by the dialog
	maxMoves := max(m.height-chromeLines-10-len(p.Before), 1)
	lines := []string{p.Summary, "", "Moves:"}
	for i, mv := range p.Moves {
		if i == maxMoves {
			lines = append(lines, fmt.Sprintf("  … and %d more", len(p.Moves)-i))
			break
		}
		lines = append(lines, fmt.Sprintf("  lane %-4d %s -> %s  (%.1fs queued)", mv.Lane, mv.From, mv.To, mv.Cost))
	}
	lines = append(lines, "", "Egress load, before -> after:")
	after := map[string]engine.EgressLoad{}
	for _, a := range p.After {
		after[a.Egress] = a
	}
	ew := egressWidth(p.Before, func(l *engine.EgressLoad) string { return l.Egress })
	for _, b := range p.Before {
		a := after[b.Egress]
		lines = append(lines, fmt.Sprintf("  %s %3d lanes %7.1fs  ->  %3d lanes %7.1fs", fit(b.Egress, ew), b.Lanes, b.Cost, a.Lanes, a.Cost))
	}
	plan := p
	m.openDialog(&dialog{
		title: "Rebalance lanes over egresses",
		lines: lines,
		keys:  "y/enter apply · n/esc cancel",
		onYes: func(m *Model) tea.Cmd {
			return m.c.Control("rebalance", "rebalanced: "+plan.Summary, func(ctrl engine.Control) error {
				return ctrl.ApplyRebalance(plan)
			})
		},
	})
	return nil
}

// showWorkerPlan opens the confirm dialog for seed 003's balancing over workers (a
// master): what moves where, each worker's weight total and the variance before and
// after.
func (m *Model) showWorkerPlan(p engine.RebalancePlan) tea.Cmd {
	if len(p.Units) == 0 {
		m.setStatus("rebalance: "+p.Summary, false)
		return nil
	}
	m.status = statusLine{}
	maxMoves := max(m.height-chromeLines-12-len(p.Before), 1)
	lines := []string{p.Summary, "", "Moves (site or site · keyword, weight):"}
	for i, mv := range p.Units {
		if i == maxMoves {
			lines = append(lines, fmt.Sprintf("  … and %d more", len(p.Units)-i))
			break
		}
		lines = append(lines, fmt.Sprintf("  %s  %s -> %s  (%.3f)", mv.Unit, mv.From, mv.To, mv.Weight))
	}
	lines = append(lines, "", "Worker weight total, before -> after:")
	after := map[string]engine.EgressLoad{}
	for _, a := range p.After {
		after[a.Egress] = a
	}
	ew := egressWidth(p.Before, func(l *engine.EgressLoad) string { return l.Egress })
	for _, b := range p.Before {
		a := after[b.Egress]
		lines = append(lines, fmt.Sprintf("  %s %3d sites %6.3f  ->  %3d sites %6.3f", fit(b.Egress, ew), b.Lanes, b.Cost, a.Lanes, a.Cost))
	}
	lines = append(lines, fmt.Sprintf("  variance %.3g -> %.3g", p.VarianceBefore, p.VarianceAfter))
	plan := p
	m.openDialog(&dialog{
		title: "Rebalance sites over workers (seed 003)",
		lines: lines,
		keys:  "y/enter apply · n/esc cancel",
		onYes: func(m *Model) tea.Cmd {
			return m.c.Control("rebalance", "rebalancing: "+plan.Summary, func(ctrl engine.Control) error {
				return ctrl.ApplyRebalance(plan)
			})
		},
	})
	return nil
}

func (d *dialog) view(m *Model) string {
	st := m.c.Styles
	width := min(m.width-4, 76)
	var b strings.Builder
	b.WriteString(st.DialogTitle.Render(d.title))
	for _, l := range d.lines {
		b.WriteString("\n")
		b.WriteString(fit(l, width-4))
	}
	b.WriteString("\n\n")
	b.WriteString(st.HelpKey.Render(d.keys))
	return st.Dialog.Render(b.String())
}
