// Package network holds the console's tabs on the crawl's network side: DNS (M5's
// resolver cache, its hit rates and prefetch) and Egress (M3's rotation, the accounts,
// the sizing estimate of how many exits a keyword crawl needs). Package panes imports
// it, so the tabs register with the stock ones.
package network

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() { pane.Register(40, newDNSPane) }

// dnsPane shows the DNS prefetch cache (M5): hit rates (positive, negative, miss)
// with sparklines of how they move, the prefetch backlog and workers, upstream
// latency, the slowest domains and the negative entries with their reason and time
// left. The cursor walks the negative entries, the list that outgrows the screen.
type dnsPane struct {
	c             *pane.Common
	width, height int
	view          *view.DNSView // nil: the crawl has no DNS cache
	hist          hitHistory
	slow          pane.Rows[string] // over view.Slowest, by domain; its cursor is not used
	neg           pane.Rows[string] // over view.Negative, by host: the cursor walks these
}

// recentWindow is the span of the LAST 10S column.
const recentWindow = 10 * time.Second

// dnsTop is the height of the block above the tables: the rate header, three rate
// rows, four figure rows and a blank line.
const dnsTop = 9

func newDNSPane(c *pane.Common) pane.Pane {
	p := &dnsPane{c: c, hist: hitHistory{capacity: 240}}
	p.slow = pane.NewRows(func() int {
		if p.view == nil {
			return 0
		}
		return len(p.view.Slowest)
	}, func(i int) string { return p.view.Slowest[i].Domain }, func(f pane.Filter, i int) bool {
		return f.Match(p.view.Slowest[i].Domain)
	})
	p.neg = pane.NewRows(func() int {
		if p.view == nil {
			return 0
		}
		return len(p.view.Negative)
	}, func(i int) string { return p.view.Negative[i].Host }, func(f pane.Filter, i int) bool {
		return f.Match(p.view.Negative[i].Host, p.view.Negative[i].Reason)
	})
	return p
}

func (p *dnsPane) Title() string { return "DNS" }

func (p *dnsPane) ShortHelp() []key.Binding { return nil }

func (p *dnsPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.c.Keys.NavHelp()} }

func (p *dnsPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.layout()
}

// wide lays the two tables side by side; narrower terminals stack them.
func (p *dnsPane) wide() bool { return p.width >= 110 }

// layout sizes the tables: side by side each gets every row below the top block
// and its header; stacked, the slowest domains get three rows, the negatives the rest.
func (p *dnsPane) layout() (slowRows, negRows int) {
	rows := max(p.height-dnsTop, 0)
	if p.wide() {
		slowRows, negRows = max(rows-1, 0), max(rows-1, 0)
	} else {
		// Two headers and the blank line between the tables.
		slowRows = min(3, max(rows-4, 0))
		negRows = max(rows-slowRows-3, 0)
	}
	p.neg.SetHeight(negRows)
	return slowRows, negRows
}

func (p *dnsPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	p.neg.Change(func() {
		p.view = s.DNS
		if p.view != nil {
			p.hist.add(p.view)
		}
		p.slow.Refilter()
	})
	return nil
}

func (p *dnsPane) SetFilter(f pane.Filter) {
	p.slow.Filter = f
	p.slow.Refilter()
	p.neg.SetFilter(f)
}

func (p *dnsPane) Update(msg tea.Msg) tea.Cmd {
	// Only the negative entries select; a click above them changes nothing.
	p.neg.Handle(p.c.Keys, msg, p.negFirst())
	return nil
}

func (p *dnsPane) Position() string { return p.neg.PositionIf(p.view != nil) }

func (p *dnsPane) View() string {
	st := p.c.Styles
	if p.view == nil {
		return pane.Empty(st, "DNS CACHE", "no DNS cache in this crawl: a custom resolver answers, so there are no hit rates (M5)", p.width)
	}
	v := p.view
	var b strings.Builder
	p.ratesView(&b)
	lines := [][]pane.Figure{
		{{Label: "backlog", Value: pane.Thousands(int64(v.Backlog))}, {Label: "workers", Value: strconv.Itoa(v.Workers)},
			{Label: "in flight", Value: strconv.Itoa(v.InFlight)}, {Label: "prefetched", Value: pane.Thousands(v.Stats.Prefetched)}},
		{{Label: "p50", Value: millis(v.UpstreamP50Ms)}, {Label: "p99", Value: millis(v.UpstreamP99Ms)},
			{Label: "queries", Value: pane.Thousands(v.Stats.UpstreamQueries)}, {Label: "stale served", Value: pane.Thousands(v.Stats.StaleServed), Bad: v.Stats.StaleServed > 0}},
		{{Label: "hosts", Value: pane.Thousands(int64(v.Hosts))}, {Label: "domains", Value: pane.Thousands(int64(v.Domains))},
			{Label: "negative", Value: pane.Thousands(int64(v.NegativeCount))}, {Label: "evicted", Value: pane.Thousands(v.Stats.Evicted)}},
		{{Label: "p50", Value: millis(v.Stats.WaitP50Ms)}, {Label: "p99", Value: millis(v.Stats.WaitP99Ms)},
			{Label: "no wait", Value: pane.Percent(v.Stats.ZeroWaitShare)}, {Label: "lookups", Value: pane.Thousands(v.Stats.Lookups)},
			{Label: "rejected", Value: pane.Thousands(v.Stats.Rejected), Bad: v.Stats.Rejected > 0}},
	}
	for i, title := range []string{"prefetch", "upstream", "cache", "fetch wait"} {
		b.WriteString("\n")
		b.WriteString(pane.FigureLine(st, p.width, title, lines[i]))
	}
	b.WriteString("\n")

	slowRows, negRows := p.layout()
	if p.wide() {
		leftW := p.width * 2 / 5
		left := p.slowestTable(leftW, slowRows)
		right := p.negativeTable(p.width-leftW-1, negRows)
		for i := range max(len(left), len(right)) {
			b.WriteString("\n")
			b.WriteString(pane.LineAt(left, i, leftW))
			b.WriteString(" ")
			b.WriteString(pane.LineAt(right, i, p.width-leftW-1))
		}
		return b.String()
	}
	slow := p.slowestTable(p.width, slowRows)
	for _, l := range slow {
		b.WriteString("\n" + l)
	}
	b.WriteString("\n")
	for _, l := range p.negativeTable(p.width, negRows) {
		b.WriteString("\n" + l)
	}
	return b.String()
}

// negFirst is the pane row of the first negative entry (row 0 is the rates header):
// below the top block and the table headers, and when stacked, below the slowest
// domains (or their one-line note) and a blank line.
func (p *dnsPane) negFirst() int {
	if p.wide() {
		return dnsTop + 1
	}
	slowRows, _ := p.layout()
	shown := 1 // the note of an empty table
	if p.slow.Len() > 0 {
		shown = min(slowRows, p.slow.Len())
	}
	return dnsTop + 1 + shown + 2
}

// ratesView writes the three hit-rate rows under their header: share since the
// start, share over the last ten seconds, and a sparkline of each interval.
func (p *dnsPane) ratesView(b *strings.Builder) {
	st := p.c.Styles
	const labelW, allW, recentW = 9, 6, 8
	lead := 2 + labelW + allW + 2 + recentW + 2
	sparkW := max(p.width-lead-1, 0)
	b.WriteString(st.ColHeader.Render(pane.Fit("  "+pane.Fit("HIT RATE", labelW)+pane.FitRight("ALL", allW)+"  "+
		pane.FitRight("LAST 10S", recentW)+"  PER VIEW (~1/s), NEWEST RIGHT, FULL BAR = 100%", p.width)))
	v := p.view
	for _, r := range []struct {
		label string
		kind  hitRateKind
		all   float64
		bad   bool // a high share is bad news
	}{
		{"positive", ratePositive, v.PositiveRate, false},
		{"negative", rateNegative, v.NegativeRate, true},
		{"miss", rateMiss, v.MissRate, true},
	} {
		recent := "-"
		if share, ok := p.hist.recent(r.kind, recentWindow); ok {
			recent = pane.Percent(share)
		}
		all := "-"
		if v.Stats.Lookups > 0 {
			all = pane.Percent(r.all)
		}
		b.WriteString("\n  ")
		b.WriteString(st.Label.Render(pane.Fit(r.label, labelW)))
		b.WriteString(st.Value.Render(pane.FitRight(all, allW)))
		b.WriteString("  ")
		b.WriteString(st.Value.Render(pane.FitRight(recent, recentW)))
		b.WriteString("  ")
		b.WriteString(st.Spark.Render(shareSparkline(p.hist.series(r.kind), sparkW)))
		b.WriteString(" ")
	}
}

// slowestTable renders the slowest domains (header first) in width cells.
func (p *dnsPane) slowestTable(width, rows int) []string {
	st := p.c.Styles
	cols := []pane.Column{{Title: "SLOWEST DOMAIN"}, {Title: "HOSTS", Width: 5, Right: true}, {Title: "MEAN", Width: 7, Right: true}}
	if p.wide() {
		cols = append(cols, pane.Column{Title: "MAX", Width: 7, Right: true})
	}
	cols = pane.LayoutColumns(cols, width)
	out := []string{pane.HeaderRow(st, cols, width)}
	if p.slow.Len() == 0 {
		return append(out, pane.Note(st, p.slow.Why("the positive cache is empty", "no domain matches the filter"), width))
	}
	cells := make([]string, 0, len(cols))
	for _, i := range p.slow.Index[:min(rows, p.slow.Len())] {
		d := &p.view.Slowest[i]
		cells = append(cells[:0], d.Domain, strconv.Itoa(d.Hosts), millis(d.MeanMs), millis(d.MaxMs))
		out = append(out, pane.TableRow(st, cols, cells, width, false, -1, nil))
	}
	return out
}

// negativeTable renders the visible negative entries (header first) in width cells.
func (p *dnsPane) negativeTable(width, rows int) []string {
	st := p.c.Styles
	cols := []pane.Column{{Title: "NEGATIVE HOST"}, {Title: "REASON", Width: 10}, {Title: "LEFT", Width: 7, Right: true},
		{Title: "FAIL", Width: 4, Right: true}}
	if p.wide() {
		cols[1].Width = 13
		cols = append(cols, pane.Column{Title: "ADDRS", Width: 5, Right: true}, pane.Column{Title: "WEIGHT", Width: 6, Right: true})
	}
	cols = pane.LayoutColumns(cols, width)
	out := []string{pane.HeaderRow(st, cols, width)}
	if p.neg.Len() == 0 {
		return append(out, pane.Note(st, p.neg.Why("no negative entries: every name resolved, fast", "no negative entry matches the filter"), width))
	}
	now := p.c.Now()
	cells := make([]string, 0, len(cols))
	p.neg.SetHeight(rows)
	from, to := p.neg.List.Visible(p.neg.Len())
	for r := from; r < to; r++ {
		e := &p.view.Negative[p.neg.Index[r]]
		fails := "-"
		if e.Failures > 0 {
			fails = strconv.Itoa(e.Failures)
		}
		addrs := "-"
		if e.Addrs > 0 {
			addrs = strconv.Itoa(e.Addrs)
		}
		// TimeLeft is as of the view; counting from the view's time keeps the
		// countdown moving between views. Zero: expired, or its retry is due.
		left := "due"
		if e.TimeLeft > 0 {
			left = pane.Countdown(p.view.At.Add(e.TimeLeft), now)
		}
		cells = append(cells[:0], e.Host, e.Reason, left, fails, addrs,
			strconv.FormatFloat(e.Weight, 'f', 2, 64))
		out = append(out, pane.TableRow(st, cols, cells, width, r == p.neg.List.Cursor, -1, nil))
	}
	return out
}

// millis formats milliseconds with the precision that matters at that size:
// 0ms, 0.42ms, 61.5ms, 187ms.
func millis(x float64) string {
	switch {
	case x <= 0:
		return "0ms"
	case x < 1:
		return strconv.FormatFloat(x, 'f', 2, 64) + "ms"
	case x < 100:
		return strconv.FormatFloat(x, 'f', 1, 64) + "ms"
	default:
		return strconv.FormatFloat(x, 'f', 0, 64) + "ms"
	}
}
