package ui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/themes"
	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
	_ "github.com/crawlconsole/crawlconsole/ui/panes" // the stock panes register themselves
)

// MinWidth and MinHeight are the smallest terminal the console lays out; below it
// shows "need 80×24 (have W×H)" and still answers q.
const (
	MinWidth  = 80
	MinHeight = 24
)

// focus says who gets keys: the focused input first, global keys only when the
// panes have focus (glow's rule; otherwise typing "q" in a filter would quit).
type focus uint8

const (
	focusPane focus = iota
	focusFilter
	focusCommand
	focusHelp
	focusDialog
)

// SnapshotMsg carries a snapshot pulled from the engine into the console. The tick
// produces it; it is exported so a host embedding the model (or a benchmark) can
// push one directly.
type SnapshotMsg struct {
	Snapshot view.Snapshot
}

// tickMsg is the refresh tick; the console re-arms it every time it fires.
type tickMsg struct{}

// statusLine is the message under the panes, with when it was set.
type statusLine struct {
	text string
	err  bool
	at   time.Time
}

// statusTTL is how long a status message stays.
const statusTTL = 8 * time.Second

// Model is the console: header, pane tabs, the active pane, and the inputs and
// dialogs over them. One Model per terminal or SSH session; each has its own view
// state (pane, selection, filter, theme, freeze).
type Model struct {
	c     *pane.Common
	ctrl  control.Control
	opts  Options
	panes []pane.Pane
	shown []int // indexes of the panes that have a tab now, in tab order (see pane.Optional)

	active        int
	width, height int
	snap          view.Snapshot
	haveSnap      bool
	frozen        bool
	fetching      bool // a Snapshot call is in flight
	focus         focus

	filters   []pane.Filter // per pane
	filterIn  lineInput
	filterOld pane.Filter // restored when the filter input is cancelled

	cmdIn   lineInput
	cmdHint []string // completion candidates
	history []string
	histPos int

	help   helpOverlay
	dialog *dialog
	status statusLine
	tabs   []tabSpan // x ranges of the tabs, for mouse clicks

	// frame is the last View. Bubble Tea asks for a View after every message; a
	// refresh tick changes nothing on screen (the snapshot it pulls does), so the
	// tick's View is this string again. Every other message clears it.
	frame string
}

// NewModel builds a console over ctrl that renders with r (for SSH, the session's
// renderer from bubbletea.MakeRenderer; locally, one on the terminal; nil means
// lipgloss's default renderer on stdout). Styles are built here, once per renderer.
func NewModel(ctrl control.Control, opts Options, r *lipgloss.Renderer) tea.Model {
	return newModel(ctrl, opts, r)
}

func newModel(ctrl control.Control, opts Options, r *lipgloss.Renderer) *Model {
	opts = opts.withDefaults()
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	t, ok := themes.Lookup(opts.Theme)
	badTheme := !ok
	if badTheme {
		t, _ = themes.Lookup(themes.Default)
	}
	c := pane.NewCommon(ctrl)
	c.Styles = themes.NewStyles(r, t)
	c.Keys = pane.DefaultKeyMap()
	c.Now = opts.Clock
	c.Renderer = r
	c.ReadOnly = opts.ReadOnly
	c.LogLines = opts.LogLines
	m := &Model{c: c, ctrl: ctrl, opts: opts, panes: pane.Build(c)}
	m.refreshShown()
	m.filters = make([]pane.Filter, len(m.panes))
	m.filterIn.prompt = "/"
	m.cmdIn.prompt = ":"
	m.cmdIn.mask = commands.StarSecrets
	m.help.search.prompt = "search: "
	if badTheme {
		m.setStatus(fmt.Sprintf("unknown theme %q; using %s (have %s)", opts.Theme, t.Name, strings.Join(themes.Names(), ", ")), true)
	}
	return m
}

// Init pulls the first snapshot at once and starts the refresh tick.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.fetch(), m.tick())
}

// tick arms the next refresh.
func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.opts.Refresh, func(time.Time) tea.Msg { return tickMsg{} })
}

// fetch pulls a snapshot in a Cmd, unless one is already on its way or the view is
// frozen. A slow engine therefore never piles up calls.
func (m *Model) fetch() tea.Cmd {
	if m.fetching || m.frozen {
		return nil
	}
	m.fetching = true
	ctrl := m.ctrl
	return func() tea.Msg { return SnapshotMsg{Snapshot: ctrl.Snapshot()} }
}

func (m *Model) setStatus(text string, isErr bool) {
	m.status = statusLine{text: text, err: isErr, at: m.c.Now()}
}

// Update routes one message. It never blocks: engine calls are returned as Cmds.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, tick := msg.(tickMsg); !tick {
		m.frame = ""
	}
	switch msg := msg.(type) {
	case tickMsg:
		return m, tea.Batch(m.tick(), m.fetch())
	case SnapshotMsg:
		m.fetching = false
		if m.frozen {
			return m, nil // freeze: the engine runs on, the view holds still
		}
		return m, m.applySnapshot(&msg.Snapshot)
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case pane.StatusMsg:
		m.setStatus(msg.Text, msg.Err)
		return m, nil
	case pane.ControlDoneMsg:
		if msg.Err != nil {
			m.setStatus(couldNot(msg.Action, msg.Err), true)
		} else {
			m.setStatus(msg.Text, false)
		}
		return m, m.fetch()
	case planMsg:
		return m, m.showPlan(msg.plan)
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	case tea.MouseMsg:
		return m, m.handleMouse(msg)
	}
	// Anything else (events for the log, later panes' results) goes to every pane.
	var cmds []tea.Cmd
	for _, p := range m.panes {
		cmds = append(cmds, p.Update(msg))
	}
	return m, tea.Batch(cmds...)
}

// applySnapshot makes s the shown state and hands it to every pane.
func (m *Model) applySnapshot(s *view.Snapshot) tea.Cmd {
	m.snap = *s
	m.haveSnap = true
	var cmds []tea.Cmd
	for _, p := range m.panes {
		cmds = append(cmds, p.SetSnapshot(&m.snap))
	}
	m.refreshShown()
	return tea.Batch(cmds...)
}

// refreshShown recomputes which panes have a tab. If the active pane lost its tab
// (the last worker left), the first pane takes over.
func (m *Model) refreshShown() {
	m.shown = m.shown[:0]
	for i, p := range m.panes {
		if o, ok := p.(pane.Optional); ok && !o.Shown() {
			continue
		}
		m.shown = append(m.shown, i)
	}
	if m.tabOf(m.active) < 0 {
		m.active = m.shown[0]
	}
}

// tabOf is the place of pane i on the tab bar (its number minus one), -1 if it has
// no tab now.
func (m *Model) tabOf(i int) int {
	for t, p := range m.shown {
		if p == i {
			return t
		}
	}
	return -1
}

// Layout: two header lines, the tab bar, the pane body, the status line, the help line.
const chromeLines = 5

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	for _, p := range m.panes {
		p.SetSize(w, max(h-chromeLines, 2))
	}
}

func (m *Model) tooSmall() bool { return m.width < MinWidth || m.height < MinHeight }

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	// Keys typed fast (or batched by a slow SSH link) arrive as one message with
	// several runes; each is a key of its own, and one may move the focus (":" opens
	// the command line, so "pause" that follows is text). A paste stays whole.
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		cmds := make([]tea.Cmd, 0, len(msg.Runes))
		for _, r := range msg.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	switch m.focus {
	case focusDialog:
		return m.dialogKey(msg)
	case focusCommand:
		return m.commandKey(msg)
	case focusFilter:
		return m.filterKey(msg)
	case focusHelp:
		return m.helpKey(msg)
	}
	k := msg.String()
	km := m.c.Keys
	if m.tooSmall() {
		// Nothing else is visible, so nothing else acts; q must still work.
		if pane.Matches(k, km.Quit) {
			return m.requestQuit()
		}
		return nil
	}
	switch {
	case pane.Matches(k, km.Quit):
		return m.requestQuit()
	case pane.Matches(k, km.Help):
		m.openHelp()
	case pane.Matches(k, km.Pause):
		return m.togglePause()
	case pane.Matches(k, km.Freeze):
		m.frozen = !m.frozen
		if m.frozen {
			m.setStatus("view frozen; the crawl keeps running (f to unfreeze)", false)
			return nil
		}
		m.setStatus("view live", false)
		return m.fetch()
	case pane.Matches(k, km.Filter):
		m.focus = focusFilter
		m.filterOld = m.filters[m.active]
		m.filterIn.set(m.filterOld.String())
	case pane.Matches(k, km.Command):
		m.focus = focusCommand
		m.cmdIn.set("")
		m.cmdHint = nil
		m.histPos = len(m.history)
	case pane.Matches(k, km.Rebalance):
		return m.planRebalance()
	case pane.Matches(k, km.NextPane):
		m.setActive(m.shown[(m.tabOf(m.active)+1)%len(m.shown)])
	case pane.Matches(k, km.PrevPane):
		m.setActive(m.shown[(m.tabOf(m.active)+len(m.shown)-1)%len(m.shown)])
	case pane.Matches(k, km.GotoPane):
		n := int(k[0] - '1')
		if n >= len(m.shown) {
			m.setStatus(fmt.Sprintf("no pane %s (have 1-%d)", k, len(m.shown)), true)
			return nil
		}
		m.setActive(m.shown[n])
	case pane.Matches(k, km.Clear):
		if m.filters[m.active].Active() {
			m.setFilter(pane.Filter{})
			m.setStatus("filter cleared", false)
			return nil
		}
		// No filter to clear: esc is the pane's (the Log pane closes an opened row).
		return m.panes[m.active].Update(msg)
	default:
		return m.panes[m.active].Update(msg)
	}
	return nil
}

func (m *Model) setActive(i int) {
	m.active = i
}

func (m *Model) setFilter(f pane.Filter) {
	m.filters[m.active] = f
	m.panes[m.active].SetFilter(f)
}

// togglePause pauses a running crawl or resumes a paused one. The decision is taken
// in the Cmd on a fresh snapshot, so a frozen view cannot make p do the wrong thing.
func (m *Model) togglePause() tea.Cmd {
	if m.c.ReadOnly {
		return pane.Status(pane.ReadOnlyText, true)
	}
	ctrl := m.ctrl
	return func() tea.Msg {
		if ctrl.Snapshot().State == view.StatePaused {
			ctrl.Resume()
			return pane.ControlDoneMsg{Text: "crawl resumed"}
		}
		ctrl.Pause()
		return pane.ControlDoneMsg{Text: "crawl paused"}
	}
}

// setPaused pauses or resumes the whole crawl.
func (m *Model) setPaused(paused bool) tea.Cmd {
	if paused {
		return m.c.Control("pause the crawl", "crawl paused", func(ctrl control.Control) error { ctrl.Pause(); return nil })
	}
	return m.c.Control("resume the crawl", "crawl resumed", func(ctrl control.Control) error { ctrl.Resume(); return nil })
}

// requestQuit quits, first asking when quitting would stop a live crawl.
func (m *Model) requestQuit() tea.Cmd {
	if m.opts.Detached || m.snap.State == view.StateDone || m.snap.State == view.StateStopping ||
		m.snap.State == view.StateFailed {
		return tea.Quit
	}
	m.openDialog(quitDialog())
	return nil
}

// setTheme switches this console's theme (styles rebuilt for its renderer).
func (m *Model) setTheme(name string) error {
	t, ok := themes.Lookup(name)
	if !ok {
		return fmt.Errorf("unknown theme %q (have %s)", name, strings.Join(themes.Names(), ", "))
	}
	m.c.Styles = themes.NewStyles(m.c.Renderer, t)
	return nil
}

func (m *Model) filterKey(msg tea.KeyMsg) tea.Cmd {
	km := m.c.Keys
	switch k := msg.String(); {
	case pane.Matches(k, km.Run):
		m.focus = focusPane
		return nil
	case pane.Matches(k, km.Cancel):
		m.focus = focusPane
		m.setFilter(m.filterOld)
		return nil
	}
	if m.filterIn.update(km, msg) {
		m.setFilter(pane.ParseFilter(m.filterIn.String())) // live, as the operator types
	}
	return nil
}

func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if !m.opts.Mouse || m.focus != focusPane || m.tooSmall() {
		return nil
	}
	p := m.panes[m.active]
	switch {
	case msg.Button == tea.MouseButtonWheelUp:
		return p.Update(tea.KeyMsg{Type: tea.KeyUp})
	case msg.Button == tea.MouseButtonWheelDown:
		return p.Update(tea.KeyMsg{Type: tea.KeyDown})
	case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress:
		const tabRow, bodyTop = 2, 3
		switch {
		case msg.Y == tabRow:
			for _, t := range m.tabs {
				if msg.X >= t.from && msg.X < t.to {
					m.setActive(t.pane)
				}
			}
		case msg.Y > bodyTop && msg.Y < m.height-2:
			return p.Update(pane.ClickMsg{Row: msg.Y - bodyTop})
		}
	}
	return nil
}

// ReadOnlyText is what every control answers in a viewer session.
const ReadOnlyText = pane.ReadOnlyText

// Refusal is "action: reason" for a refused action, the reason without the words
// the action says already (see pane.Refusal).
func Refusal(action string, err error) string { return pane.Refusal(action, err) }

// couldNot is the status line of a refused action.
func couldNot(action string, err error) string { return "could not " + pane.Refusal(action, err) }
