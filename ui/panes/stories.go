package panes

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() { pane.Register(90, newStoriesPane) }

// storiesPane shows the stories: one article found under several URLs, on one site
// or many (a wire story syndicated, an AMP or print copy), the latest joined first.
// Each row is a story with its earliest publisher; the selected story's every URL
// is listed above the table, earliest first. The pane exists once a story has two
// pages.
type storiesPane struct {
	c             *pane.Common
	width, height int
	view          *view.StoriesView
	rows          pane.Rows[string] // over view.Rows, keyed by story ID
}

func newStoriesPane(c *pane.Common) pane.Pane {
	p := &storiesPane{c: c}
	p.rows = pane.NewRows(func() int {
		if p.view == nil {
			return 0
		}
		return len(p.view.Rows)
	}, func(i int) string { return p.view.Rows[i].ID }, p.matches)
	return p
}

func (p *storiesPane) Title() string { return "Stories" }

// Shown implements pane.Optional: no tab until an article is found twice.
func (p *storiesPane) Shown() bool { return p.view != nil }

func (p *storiesPane) ShortHelp() []key.Binding { return nil }

func (p *storiesPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.c.Keys.NavHelp()} }

// detailRows is how many lines the selected story's URLs take above the table.
func (p *storiesPane) detailRows() int { return max(min(p.height/4, 6), 2) }

func (p *storiesPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.rows.SetHeight(max(h-3-p.detailRows(), 1)) // summary, details, blank, column header
}

func (p *storiesPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	p.rows.Change(func() { p.view = s.Stories })
	return nil
}

func (p *storiesPane) SetFilter(f pane.Filter) { p.rows.SetFilter(f) }

// matches keeps the stories with a URL the filter matches.
func (p *storiesPane) matches(f pane.Filter, i int) bool {
	r := &p.view.Rows[i]
	urls := make([]string, len(r.Pages))
	for j, pg := range r.Pages {
		urls[j] = pg.URL
	}
	return f.Match(r.ID, strings.Join(urls, " "))
}

func (p *storiesPane) Update(msg tea.Msg) tea.Cmd {
	p.rows.Handle(p.c.Keys, msg, 3+p.detailRows())
	return nil
}

func (p *storiesPane) Position() string { return p.rows.PositionIf(p.view != nil) }

func (p *storiesPane) View() string {
	st := p.c.Styles
	if p.view == nil {
		return pane.Empty(st, "STORIES", "no article found under two URLs yet", p.width)
	}
	var b strings.Builder
	b.WriteString(pane.FigureLine(st, p.width, "stories", []pane.Figure{
		{Label: "under several URLs", Value: pane.Thousands(int64(p.view.Grouped))},
		{Label: "stories", Value: pane.Thousands(int64(p.view.Stories))},
		{Label: "articles", Value: pane.Thousands(int64(p.view.Pages))},
	}))
	b.WriteString("\n")
	b.WriteString(p.detailLines())
	b.WriteString("\n")
	now := p.c.Now()
	p.rows.WriteTable(&b, st, p.columns(), p.width, pane.NoMatch("story", p.rows.Filter),
		func(i int) []string { return p.cells(&p.view.Rows[i], now) })
	return b.String()
}

// detailLines lists the selected story's URLs, earliest publisher first, each with
// when it was published (its own date) or stored; the rest are counted.
func (p *storiesPane) detailLines() string {
	st := p.c.Styles
	n := p.detailRows()
	lines := make([]string, 0, n)
	if at, ok := p.rows.At(); ok {
		r := &p.view.Rows[at]
		for i, pg := range r.Pages {
			if len(lines) == n-1 && len(r.Pages) > n {
				lines = append(lines, st.Muted.Render("    … "+strconv.Itoa(len(r.Pages)-i)+" more"))
				break
			}
			mark := "    "
			if i == 0 {
				mark = "  ▸ "
			}
			lines = append(lines, mark+st.Value.Render(pageWhen(pg).UTC().Format("01-02 15:04"))+" "+st.Label.Render(pg.URL))
		}
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	for i := range lines {
		lines[i] = pane.Fit(lines[i], p.width)
	}
	return strings.Join(lines, "\n")
}

// pageWhen is when a story's page counts as published: its own date, else stored.
func pageWhen(pg view.StoryPage) time.Time {
	if !pg.Published.IsZero() {
		return pg.Published
	}
	return pg.Fetched
}

// columns: the size of the story, how it spread, and who ran it first.
func (p *storiesPane) columns() []pane.Column {
	cols := []pane.Column{{Title: "PAGES", Width: 5, Right: true}, {Title: "SITES", Width: 5, Right: true},
		{Title: "FIRST", Width: 6, Right: true}, {Title: "SPREAD", Width: 6, Right: true}, {Title: "EARLIEST PUBLISHER"}}
	if p.width >= 110 {
		cols = append(cols, pane.Column{Title: "LATEST", Width: 34})
	}
	return pane.LayoutColumns(cols, p.width)
}

func (p *storiesPane) cells(r *view.StoryRow, now time.Time) []string {
	first, last := pageWhen(r.Pages[0]), pageWhen(r.Pages[len(r.Pages)-1])
	out := []string{strconv.Itoa(len(r.Pages)), strconv.Itoa(r.Sites),
		longDuration(max(now.Sub(first), 0)), longDuration(max(last.Sub(first), 0)), r.Pages[0].URL}
	if p.width >= 110 {
		out = append(out, r.Pages[len(r.Pages)-1].URL)
	}
	return out
}
