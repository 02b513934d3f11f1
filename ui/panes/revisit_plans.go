package panes

import (
	"math"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// The Revisit pane's plan section: per class, the objective and budget
// it is planned with and the freshness and age its schedule is heading for, with the
// pages the budget cannot follow; b shows those pages in place of the due queue.

// planColumns are the class table's plan columns (wide layout), after CLASS,
// WINDOW and PAGES; none under the seed policy, which plans nothing.
func (p *revisitPane) planColumns() []pane.Column {
	if len(p.view.Plans) == 0 {
		return nil
	}
	return []pane.Column{{Title: "PLAN", Width: 16}, {Title: "FRESH→", Width: 6, Right: true},
		{Title: "AGE→", Width: 6, Right: true}, {Title: "BEHIND", Width: 6, Right: true}}
}

// planCells are class's plan cells, matching planColumns.
func (p *revisitPane) planCells(class string) []string {
	for _, pl := range p.view.Plans {
		if pl.Class == class {
			return []string{planText(pl), planFresh(pl), planAge(pl), planBehind(pl)}
		}
	}
	if len(p.view.Plans) == 0 {
		return nil
	}
	return []string{"-", "-", "-", "-"}
}

// plansLine is the plans on one line (narrow layout): "soc age 1/d 62% 3h, ...".
func (p *revisitPane) plansLine() string {
	var figs []pane.Figure
	for _, pl := range p.view.Plans {
		v := planText(pl)
		if pl.Pages > 0 {
			v += " " + planFresh(pl) + " " + planAge(pl)
		}
		figs = append(figs, pane.Figure{Label: pl.Class, Value: v, Bad: pl.Behind > 0})
	}
	return pane.FigureLine(p.c.Styles, p.width, "heading for", figs)
}

// planText is a class's objective and budget: "balanced 0.1/d".
func planText(pl view.ClassPlan) string {
	return pl.Objective + " " + strconv.FormatFloat(pl.Budget, 'g', 3, 64) + "/d"
}

// planFresh is the expected share fresh, "-" before any page has an estimate.
func planFresh(pl view.ClassPlan) string {
	if pl.Pages == 0 {
		return "-"
	}
	return strconv.Itoa(int(math.Round(pl.Fresh*100))) + "%"
}

// planAge is the expected mean age.
func planAge(pl view.ClassPlan) string {
	if pl.Pages == 0 {
		return "-"
	}
	return longDuration(pl.Age)
}

// planBehind is how many pages the budget cannot follow.
func planBehind(pl view.ClassPlan) string {
	if pl.Pages == 0 {
		return "-"
	}
	return pane.Thousands(int64(pl.Behind))
}

// updateBehind answers keys while the not-followed list is shown: b goes back to
// the due queue; n, which acts on a due page, says so instead of acting on a page
// the operator cannot see.
func (p *revisitPane) updateBehind(k string) tea.Cmd {
	switch {
	case pane.Matches(k, p.c.Keys.Behind):
		p.showBehind = false
	case pane.Matches(k, p.c.Keys.RevisitNow):
		return pane.Status("n revisits a due page: b shows the due queue again", true)
	}
	return nil
}

// behindTable lists pages the budget cannot follow in place of the due queue (b):
// each page's class, estimated changes per day and planned fetches per day.
func (p *revisitPane) behindTable() string {
	st := p.c.Styles
	cols := pane.LayoutColumns([]pane.Column{{Title: "NOT FOLLOWED (b: due queue)"}, {Title: "CLASS", Width: 7},
		{Title: "CHG/DAY", Width: 8, Right: true}, {Title: "FETCH/DAY", Width: 9, Right: true}}, p.width)
	var b strings.Builder
	b.WriteString(pane.HeaderRow(st, cols, p.width))
	if len(p.view.Behind) == 0 {
		msg := "  every page is followed: none changes over 10× as often as the budget fetches it"
		if len(p.view.Plans) == 0 {
			msg = "  the " + p.view.Policy + " policy plans no budget: nothing is given up on purpose"
		}
		b.WriteString("\n" + st.Muted.Render(pane.Fit(msg, p.width)))
		return b.String()
	}
	rows := min(len(p.view.Behind), max(p.rows.List.Height, 1))
	for _, r := range p.view.Behind[:rows] {
		b.WriteString("\n")
		b.WriteString(pane.TableRow(st, cols, []string{r.URL, r.Class, rateText(r.Rate), rateText(r.Freq)}, p.width, false, -1, nil))
	}
	return b.String()
}

// rateText formats a per-day rate with the precision that matters at its size.
func rateText(x float64) string {
	switch {
	case !(x > 0):
		return "0"
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 1:
		return strconv.FormatFloat(x, 'f', 1, 64)
	default:
		return strconv.FormatFloat(x, 'g', 2, 64)
	}
}
