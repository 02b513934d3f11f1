package panes

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/themes"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() { pane.Register(80, newSitesPane) }

// sitesPane shows the declared sites as steered: per site its class,
// entry or search template, keywords, pages stored and new in the last hour and
// day, last round, median publish-to-store delay, page budget used, and — filled by
// discovery — the feeds and sitemaps found and whether its dates are trusted. The
// pane exists only when the crawl declares sites (:site add declares the first).
type sitesPane struct {
	c             *pane.Common
	width, height int
	view          *view.SitesView
	rows          pane.Rows[string] // over view.Sites, keyed by name
	// undeclared are the rows of view.Sites that are no declared site: a
	// registered domain whose feeds or sitemaps the crawl reads (a crawl of home
	// pages declares none). They have discovery's columns only; the rest is "-".
	undeclared map[string]bool
	// found is, per site, the URLs its feeds and sitemaps listed (every read
	// counted): what they gave, on the selected site's line.
	found map[string]int64
	// robots says a site waits on its robots.txt: the table then has a ROBOTS
	// column saying why on each site's row, for an operator scanning it (the
	// selected site's line spells it out); with none waiting, the keywords keep
	// its room.
	robots bool
	// unreachable says a site waits on a robots.txt that does not answer: the
	// narrow ROBOTS column then widens to say "unreachable", the word the wide
	// layout, the site's line and ctl sites use.
	unreachable bool
}

func newSitesPane(c *pane.Common) pane.Pane {
	p := &sitesPane{c: c}
	p.rows = pane.NewRows(func() int {
		if p.view == nil {
			return 0
		}
		return len(p.view.Sites)
	}, func(i int) string { return p.view.Sites[i].Name }, func(f pane.Filter, i int) bool {
		s := &p.view.Sites[i]
		return f.Match(s.Name, s.Kind, s.Class, s.Entry, strings.Join(s.Keywords, " "))
	})
	return p
}

func (p *sitesPane) Title() string { return "Sites" }

// Shown implements pane.Optional: a crawl without declared sites, whose discovery
// has read no feed or sitemap either, has no Sites tab.
func (p *sitesPane) Shown() bool { return p.view != nil }

func (p *sitesPane) ShortHelp() []key.Binding { return nil }

func (p *sitesPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.c.Keys.NavHelp()} }

// wide adds the kind, class, feeds, sitemaps, dates and held-back columns.
func (p *sitesPane) wide() bool { return p.width >= 110 }

func (p *sitesPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.rows.SetHeight(max(h-4, 1)) // summary, the selected site's two lines, column header
}

func (p *sitesPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	v, undeclared := withUndeclared(s.Sites, s.Discovery)
	found := make(map[string]int64, len(s.Discovery))
	for _, d := range s.Discovery {
		if d.Found > 0 {
			found[d.Site] = d.Found
		}
	}
	robots := v != nil && slices.ContainsFunc(v.Sites, func(s view.SiteRow) bool { return s.Waits != "" })
	unreachable := v != nil && slices.ContainsFunc(v.Sites, func(s view.SiteRow) bool { return s.Waits != "" && s.WaitsBehind == "" })
	p.rows.Change(func() {
		p.view, p.undeclared, p.found, p.robots, p.unreachable = v, undeclared, found, robots, unreachable
	})
	return nil
}

// withUndeclared is the declared sites followed by a row for each registered domain
// no declared site holds whose feeds and sitemaps discovery reads, or whose
// documents yielded nothing: what they gave and what failed is what a news operator
// watches, and a crawl seeded with home pages declares no site at all (it had no
// Sites tab, its feeds' failures in the log alone). sites is not changed.
func withUndeclared(sites *view.SitesView, disc []view.SiteDiscovery) (*view.SitesView, map[string]bool) {
	declared := map[string]bool{}
	if sites != nil {
		for _, r := range sites.Sites {
			declared[r.Name] = true
		}
	}
	var extra []view.SiteRow
	for _, d := range disc {
		if declared[d.Site] || len(d.Feeds)+len(d.Sitemaps)+len(d.Problems) == 0 {
			continue
		}
		r := view.SiteRow{Name: d.Site, Feeds: d.Feeds, Sitemaps: d.Sitemaps, Covered: d.Covered, Problems: d.Problems}
		if len(d.Feeds)+len(d.Sitemaps) > 0 {
			r.DatesTrusted = "no"
			if d.DatesTrusted {
				r.DatesTrusted = "yes"
			}
		}
		extra = append(extra, r)
	}
	if len(extra) == 0 {
		return sites, nil
	}
	v := &view.SitesView{}
	if sites != nil {
		*v = *sites
	}
	v.Sites = append(slices.Clip(v.Sites), extra...)
	undeclared := make(map[string]bool, len(extra))
	for _, r := range extra {
		undeclared[r.Name] = true
	}
	return v, undeclared
}

func (p *sitesPane) SetFilter(f pane.Filter) { p.rows.SetFilter(f) }

func (p *sitesPane) Update(msg tea.Msg) tea.Cmd {
	p.rows.Handle(p.c.Keys, msg, 4)
	return nil
}

func (p *sitesPane) Position() string { return p.rows.PositionIf(p.view != nil) }

func (p *sitesPane) View() string {
	st := p.c.Styles
	if p.view == nil {
		return pane.Empty(st, "SITES", "no sites declared: :site add news URL or :site add social NAME TEMPLATE", p.width)
	}
	var stored, hour, day int
	var held int64
	for _, s := range p.view.Sites {
		if p.undeclared[s.Name] {
			continue
		}
		stored += int(s.Stored)
		hour += s.NewHour
		day += s.NewDay
		held += s.Held
	}
	var b strings.Builder
	declared := len(p.view.Sites) - len(p.undeclared)
	figures := []pane.Figure{{Label: "declared", Value: strconv.Itoa(declared)}}
	if len(p.undeclared) > 0 {
		figures = append(figures, pane.Figure{Label: "undeclared", Value: strconv.Itoa(len(p.undeclared))})
	}
	if declared > 0 { // rounds and their figures are the declared sites'
		figures = append(figures, pane.Figure{Label: "round", Value: strconv.Itoa(p.view.Round)},
			pane.Figure{Label: "every", Value: longDuration(p.view.Every)}, pane.Figure{Label: "stored", Value: pane.Thousands(int64(stored))},
			pane.Figure{Label: "new 1h", Value: pane.Thousands(int64(hour))}, pane.Figure{Label: "new 1d", Value: pane.Thousands(int64(day))},
			pane.Figure{Label: "held back", Value: pane.Thousands(held), Bad: held > 0})
	}
	b.WriteString(pane.FigureLine(st, p.width, "sites", figures))
	b.WriteString("\n")
	b.WriteString(p.detailLines())
	b.WriteString("\n")
	now := p.c.Now()
	p.rows.WriteTable(&b, st, p.columns(), p.width, pane.NoMatch("site", p.rows.Filter),
		func(i int) []string { return p.cells(&p.view.Sites[i], now) })
	return b.String()
}

// newestFirst lists keywords the latest added first: the one an operator just added
// for a breaking story is the one to see, before a long list is cut.
func newestFirst(kws []string) string {
	out := slices.Clone(kws)
	slices.Reverse(out)
	return strings.Join(out, ", ")
}

// detailLines spells out the selected site in full on two lines: why its URLs wait
// on its robots.txt if they do, its entry or search template, every keyword, its
// date window (with the pages holding a keyword it left out as older) and its total
// page budget when they are set; then
// the feeds and sitemaps discovery found (one another covers marked: it is read at
// the longest interval). On one line the keywords pushed the feeds off its end.
func (p *sitesPane) detailLines() string {
	st := p.c.Styles
	i, ok := p.rows.At()
	if !ok {
		return pane.Fit("", p.width) + "\n" + pane.Fit("", p.width)
	}
	s := &p.view.Sites[i]
	// What its feeds and sitemaps gave, before their list (cut at the pane's edge).
	gave := ""
	if n := p.found[s.Name]; n > 0 {
		gave = st.Label.Render("found") + " " + st.Value.Render(pane.Thousands(n)+" URLs") + "  "
	}
	if p.undeclared[s.Name] {
		return pane.Fit("  "+st.Label.Render("▸ "+s.Name)+"  "+st.Value.Render("no site declared: its feeds and sitemaps as discovery reads them"), p.width) + "\n" +
			pane.Fit("    "+problemsOf(st, s.Problems)+gave+st.Label.Render("feeds")+" "+st.Value.Render(joinOr(s.Feeds))+
				"  "+st.Label.Render("sitemaps")+" "+st.Value.Render(joinOr(s.Sitemaps)), p.width)
	}
	what := "entry"
	if s.Kind == config.SiteSocial {
		what = "search"
	}
	found := func(list []string) string {
		if len(list) == 0 {
			return "-"
		}
		out := make([]string, len(list))
		for i, u := range list {
			out[i] = u
			if by, ok := s.Covered[u]; ok {
				out[i] += " (covered by " + by + ")"
			}
		}
		return strings.Join(out, " ")
	}
	// The date window, with the keyword pages it left out of the results as older;
	// a total budget: the crawl's pages against it (the table has the round's).
	extra := ""
	if s.WithinDays > 0 {
		extra = "  " + st.Label.Render("window") + " " + st.Value.Render(strconv.Itoa(s.WithinDays)+"d")
		if s.OutOfWindow > 0 {
			extra += " " + st.Label.Render("older") + " " + st.Value.Render(pane.Thousands(s.OutOfWindow))
		}
	}
	if s.BudgetTotal > 0 {
		extra += "  " + st.Label.Render("total budget") + " " + st.Value.Render(strconv.Itoa(s.TotalUsed)+"/"+strconv.Itoa(s.BudgetTotal))
	}
	return pane.Fit("  "+st.Label.Render("▸ "+s.Name)+waitsOf(st, s.Waits)+"  "+st.Label.Render(what)+" "+st.Value.Render(s.Entry)+
		"  "+st.Label.Render("keywords")+" "+st.Value.Render(newestFirst(s.Keywords))+extra, p.width) + "\n" +
		pane.Fit("    "+problemsOf(st, s.Problems)+gave+st.Label.Render("feeds")+" "+st.Value.Render(found(s.Feeds))+
			"  "+st.Label.Render("sitemaps")+" "+st.Value.Render(found(s.Sitemaps)), p.width)
}

// waitsOf spells why the site's URLs wait on its robots.txt, right after its name:
// nothing is fetched of it until that is settled (a host the operator holds, a
// site that does not answer), whatever its entry and keywords say.
func waitsOf(st *themes.Styles, why string) string {
	if why == "" {
		return ""
	}
	return "  " + st.Label.Render("waits") + " " + st.Value.Render(why)
}

// problemsOf spells the site's feeds and sitemaps that yielded nothing, and why,
// first on the line: what the operator has to act on goes before what works.
func problemsOf(st *themes.Styles, problems map[string]string) string {
	if len(problems) == 0 {
		return ""
	}
	urls := slices.Sorted(maps.Keys(problems))
	parts := make([]string, len(urls))
	for i, u := range urls {
		parts[i] = u + ": " + problems[u]
	}
	return st.Label.Render("yielded nothing") + " " + st.Value.Render(strings.Join(parts, "; ")) + "  "
}

// columns: the narrow layout keeps what an operator steering a story looks at —
// keywords, what came in, how late, the budget; the selected site's line above the
// table has its entry and every keyword in full.
func (p *sitesPane) columns() []pane.Column {
	cols := []pane.Column{{Title: "SITE", Width: 18}}
	if p.wide() {
		cols = append(cols, pane.Column{Title: "KIND", Width: 6}, pane.Column{Title: "CLASS", Width: 7})
	}
	cols = append(cols, pane.Column{Title: "KEYWORDS"}, pane.Column{Title: "STORED", Width: 7, Right: true},
		pane.Column{Title: "1H", Width: 4, Right: true}, pane.Column{Title: "1D", Width: 5, Right: true},
		pane.Column{Title: "ROUND", Width: 5, Right: true}, pane.Column{Title: "DELAY", Width: 5, Right: true},
		pane.Column{Title: "BUDGET", Width: 8, Right: true})
	if p.wide() {
		cols = append(cols, pane.Column{Title: "HELD", Width: 5, Right: true}, pane.Column{Title: "FEEDS", Width: 5, Right: true},
			pane.Column{Title: "MAPS", Width: 4, Right: true}, pane.Column{Title: "DATES", Width: 5})
	}
	if p.robots {
		cols = append(cols, pane.Column{Title: "ROBOTS", Width: robotsWidth(p.wide(), p.unreachable)})
	}
	return pane.LayoutColumns(cols, p.width)
}

// robotsWidth is the ROBOTS column's width: wide, "unreachable" or "held" and as
// much of the held host's name as fits (cut with "…": a host name may be long);
// narrow, "held" or "unreachable" alone, the column only as wide as the words its
// rows use, so that the keywords keep most of their room.
func robotsWidth(wide, unreachable bool) int {
	switch {
	case wide:
		return 24
	case unreachable:
		return len("unreachable")
	}
	return 6
}

// robotsCell is a site's ROBOTS cell: "held HOST" behind a host the operator
// holds ("held" narrow), "unreachable" for a robots.txt that does not answer, "-"
// for neither.
func (p *sitesPane) robotsCell(s *view.SiteRow) string {
	switch {
	case s.WaitsBehind != "" && p.wide():
		return "held " + s.WaitsBehind
	case s.WaitsBehind != "":
		return "held"
	case s.Waits != "":
		return "unreachable"
	}
	return "-"
}

// joinOr lists urls, "-" for none.
func joinOr(urls []string) string {
	if len(urls) == 0 {
		return "-"
	}
	return strings.Join(urls, " ")
}

func (p *sitesPane) cells(s *view.SiteRow, now time.Time) []string {
	if p.undeclared[s.Name] {
		out := []string{s.Name}
		if p.wide() {
			out = append(out, "-", "-")
		}
		out = append(out, "-", "-", "-", "-", "-", "-", "-")
		if p.wide() {
			dates := s.DatesTrusted
			if dates == "" {
				dates = "-"
			}
			out = append(out, "-", strconv.Itoa(len(s.Feeds)), strconv.Itoa(len(s.Sitemaps)), dates)
		}
		if p.robots {
			out = append(out, "-")
		}
		return out
	}
	round, delay := "-", "-"
	if !s.LastRound.IsZero() {
		round = longDuration(max(now.Sub(s.LastRound), 0))
	}
	if d, ok := pane.ShortDelay(s.PublishDelay); ok {
		delay = d
	} else if s.PublishDelay > 0 {
		delay = longDuration(s.PublishDelay)
	}
	budget := "-" // no budget set anywhere: nothing counts the round's pages (not 0 used)
	if s.BudgetUsed > 0 || s.Budget > 0 {
		budget = strconv.Itoa(s.BudgetUsed)
	}
	if s.Budget > 0 {
		budget += "/" + strconv.Itoa(s.Budget)
	}
	out := []string{s.Name}
	if p.wide() {
		out = append(out, s.Kind, s.Class)
	}
	out = append(out, newestFirst(s.Keywords), pane.Thousands(s.Stored), strconv.Itoa(s.NewHour), strconv.Itoa(s.NewDay),
		round, delay, budget)
	if p.wide() {
		dates := s.DatesTrusted
		if dates == "" {
			dates = "-"
		}
		out = append(out, pane.Thousands(s.Held), strconv.Itoa(len(s.Feeds)), strconv.Itoa(len(s.Sitemaps)), dates)
	}
	if p.robots {
		out = append(out, p.robotsCell(s))
	}
	return out
}
