package panes

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() { pane.Register(30, newLogPane) }

// logPane shows the engine's events: a capped ring filled from EventsSince when a
// snapshot says there is something new, with a minimum-level filter. It follows the
// newest event until the operator scrolls up.
type logPane struct {
	c             *pane.Common
	width, height int
	capacity      int
	events        []view.Event // oldest first, at most capacity
	lastSeq       uint64       // newest Seq held
	fetching      bool         // an EventsSince call is in flight
	minLevel      view.Level
	follow        bool
	rows          []int // indexes into events that pass level and filter
	filter        pane.Filter
	list          pane.List
	// open shows the selected event whole (enter): a row cuts the message at the
	// pane's width, and the end of a warning is often the part that names the fix.
	open bool
}

// eventsMsg carries events fetched by EventsSince; upTo is the newest Seq the
// snapshot announced, so the pane knows whether to fetch again.
type eventsMsg struct {
	events []view.Event
	upTo   uint64
}

func newLogPane(c *pane.Common) pane.Pane {
	return &logPane{c: c, capacity: max(c.LogLines, 1), follow: true}
}

func (p *logPane) Title() string { return "Log" }

func (p *logPane) ShortHelp() []key.Binding {
	k := p.c.Keys
	if p.open {
		return []key.Binding{k.OpenRow, k.Up, k.Down}
	}
	return []key.Binding{k.OpenRow, k.Level, k.Bottom}
}

func (p *logPane) FullHelp() [][]key.Binding {
	k := p.c.Keys
	return [][]key.Binding{{k.OpenRow, k.Level}, k.NavHelp()}
}

func (p *logPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.list.Height = h - 1
	p.clamp()
}

func (p *logPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	if s.LastEvent <= p.lastSeq || p.fetching {
		return nil
	}
	return p.fetch(s.LastEvent)
}

// fetch asks the engine for events after the newest one held (in a Cmd).
func (p *logPane) fetch(upTo uint64) tea.Cmd {
	p.fetching = true
	after, n := p.lastSeq, p.capacity
	return p.c.Read(func(ctrl control.Control) tea.Msg {
		return eventsMsg{events: ctrl.EventsSince(after, n), upTo: upTo}
	})
}

func (p *logPane) SetFilter(f pane.Filter) {
	p.filter = f
	p.refilter()
}

func (p *logPane) refilter() {
	p.rows = p.rows[:0]
	for i := range p.events {
		if p.shows(&p.events[i]) {
			p.rows = append(p.rows, i)
		}
	}
	p.clamp()
}

func (p *logPane) clamp() {
	if p.follow {
		p.list.Cursor = len(p.rows) - 1
	}
	p.list.Clamp(len(p.rows))
}

// add appends fetched events, dropping the oldest beyond capacity.
func (p *logPane) add(evs []view.Event) {
	for _, e := range evs {
		if e.Seq <= p.lastSeq {
			continue
		}
		p.events = append(p.events, e)
		p.lastSeq = e.Seq
	}
	if over := len(p.events) - p.capacity; over > 0 {
		p.trim(over)
	}
	p.refilter()
}

// trim drops over events. Past the newest half, the oldest trace events go first,
// then the oldest debug ones: lanes opening and retiring would otherwise push the
// operator's steering, the warnings and the debug rows out within a minute or two.
// The cursor stays on the same event while others fall off.
func (p *logPane) trim(over int) {
	older := len(p.events) - p.capacity/2 // the newest half always stays
	trace, debug := 0, 0
	for i := range p.events[:older] {
		switch {
		case p.events[i].Level < view.LevelDebug:
			trace++
		case p.events[i].Level < view.LevelInfo:
			debug++
		}
	}
	dropTrace := min(over, trace)
	dropDebug := min(over-dropTrace, debug)  // only once every trace event is gone
	dropRest := over - dropTrace - dropDebug // only once every debug event is gone too
	// The event under the cursor, found again afterwards: debug events after
	// it may go too, so a count of dropped rows would move it.
	var at uint64
	if !p.follow && p.list.Cursor >= 0 && p.list.Cursor < len(p.rows) {
		at = p.events[p.rows[p.list.Cursor]].Seq
	}
	gone := 0 // dropped events the rows showed before the cursor's
	kept := p.events[:0]
	for i, e := range p.events {
		drop := false
		switch {
		case i >= older:
		case e.Level < view.LevelDebug:
			drop, dropTrace = dropTrace > 0, max(dropTrace-1, 0)
		case e.Level < view.LevelInfo:
			drop, dropDebug = dropDebug > 0, max(dropDebug-1, 0)
		case e.Level >= view.LevelInfo && dropRest > 0:
			drop, dropRest = true, dropRest-1
		}
		if !drop {
			kept = append(kept, e)
		} else if p.shows(&e) && e.Seq < at {
			gone++
		}
	}
	clear(p.events[len(kept):])
	p.events = kept
	if !p.follow {
		p.list.Cursor -= gone
		p.list.Offset = max(p.list.Offset-gone, 0)
	}
}

// shows says whether e passes the level and the filter (is one of the rows).
func (p *logPane) shows(e *view.Event) bool {
	return e.Level >= p.minLevel && (!p.filter.Active() || p.filter.Match(e.Msg, e.Host, e.Level.String(), laneLabel(e.Lane)))
}

func (p *logPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case eventsMsg:
		p.fetching = false
		p.add(msg.events)
		if len(msg.events) == p.capacity && p.lastSeq < msg.upTo {
			return p.fetch(msg.upTo)
		}
	case tea.KeyMsg:
		k := msg.String()
		switch {
		case pane.Matches(k, p.c.Keys.OpenRow):
			p.open = !p.open && len(p.rows) > 0
		case p.open && pane.Matches(k, p.c.Keys.Clear):
			p.open = false
		case pane.Matches(k, p.c.Keys.Level):
			p.minLevel = nextLevel(p.minLevel)
			p.refilter()
			return pane.Status("log shows "+p.minLevel.String()+" and above", false)
		case p.list.Navigate(p.c.Keys, k, len(p.rows)):
			p.follow = p.list.Cursor == len(p.rows)-1
		}
	case pane.ClickMsg:
		p.list.Cursor = p.list.Offset + msg.Row - 1
		p.list.Clamp(len(p.rows))
		p.follow = p.list.Cursor == len(p.rows)-1
	}
	return nil
}

// nextLevel is the minimum level after l in v's cycle: DEBUG (the default), INFO,
// WARN, ERROR, then TRACE (lanes opening and retiring) before DEBUG again.
func nextLevel(l view.Level) view.Level {
	if l >= view.LevelError {
		return view.LevelTrace
	}
	return l + 1
}

func (p *logPane) Position() string {
	return "≥" + p.minLevel.String() + " " + p.list.Position(len(p.rows))
}

func (p *logPane) columns() []pane.Column {
	hostW := 18
	if p.width >= 110 {
		hostW = 24
	}
	return pane.LayoutColumns([]pane.Column{
		{Title: "TIME", Width: 8},
		{Title: "LEVEL", Width: 5},
		{Title: "LANE", Width: 4, Right: true},
		{Title: "HOST", Width: hostW},
		{Title: "MESSAGE"},
	}, p.width)
}

func laneLabel(lane int) string {
	if lane == 0 {
		return "-"
	}
	return strconv.Itoa(lane)
}

func (p *logPane) View() string {
	st := p.c.Styles
	if p.open && len(p.rows) > 0 {
		return p.openView()
	}
	cols := p.columns()
	var b strings.Builder
	b.WriteString(pane.HeaderRow(st, cols, p.width))
	if len(p.rows) == 0 {
		msg := "  no events yet"
		if p.filter.Active() || p.minLevel != view.LevelDebug {
			msg = "  no event at " + p.minLevel.String() + " or above matches"
		}
		b.WriteString("\n" + st.Muted.Render(pane.Fit(msg, p.width)))
		return b.String()
	}
	cells := make([]string, 0, len(cols))
	from, to := p.list.Visible(len(p.rows))
	for r := from; r < to; r++ {
		e := &p.events[p.rows[r]]
		host := e.Host
		if host == "" {
			host = "-"
		}
		cells = append(cells[:0], e.At.Format("15:04:05"), e.Level.String(), laneLabel(e.Lane), host, e.Msg)
		accent := st.Level(int(e.Level))
		b.WriteString("\n")
		b.WriteString(pane.TableRow(st, cols, cells, p.width, r == p.list.Cursor, 1, &accent))
	}
	return b.String()
}
