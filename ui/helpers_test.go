package ui

import (
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// fixedClock makes uptime and countdowns stable: the fake crawl's "now".
func fixedClock() time.Time { return fake.Epoch }

// asciiRenderer renders without colour or attributes, like the golden files.
func asciiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return r
}

// harness drives a Model directly: Update, then run the returned Cmds
// synchronously and feed their messages back, the way the program loop would.
type harness struct {
	t    *testing.T
	m    *Model
	ctrl *fake.Control
	quit bool // a Cmd returned tea.Quit
}

// newHarness builds a console over a fresh fake crawl at w×h, with the first
// snapshot and events applied.
func newHarness(t *testing.T, w, h int, opts Options) *harness {
	t.Helper()
	return newHarnessWith(t, w, h, opts, fake.Config{})
}

// newHarnessWith is newHarness over a fake crawl shaped by cfg (a direct crawl, no
// DNS cache, ...).
func newHarnessWith(t *testing.T, w, h int, opts Options, cfg fake.Config) *harness {
	t.Helper()
	ctrl := fake.New(cfg)
	if opts.Clock == nil {
		opts.Clock = fixedClock
	}
	if opts.Refresh == 0 {
		opts.Refresh = time.Millisecond
	}
	hs := &harness{t: t, ctrl: ctrl, m: newModel(ctrl, opts, asciiRenderer())}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.refresh()
	return hs
}

// use makes the harness report failures to t (a subtest) until the returned func
// is called: defer h.use(t)().
func (h *harness) use(t *testing.T) func() {
	old := h.t
	h.t = t
	return func() { h.t = old }
}

// refresh pulls a snapshot as the tick would.
func (h *harness) refresh() { h.send(SnapshotMsg{Snapshot: h.ctrl.Snapshot()}) }

// send delivers msg and runs every resulting Cmd to completion. Ticks are not fed
// back (they would re-arm forever); quit is recorded.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	h.run(cmd, 0)
}

func (h *harness) run(cmd tea.Cmd, depth int) {
	h.t.Helper()
	if settle(h.t, h.m, cmd, depth) {
		h.quit = true
	}
}

// settle runs cmd and feeds the messages it yields back to m, as the program loop
// would, until the chain ends; refresh ticks are not re-armed. It reports whether
// a Cmd quit.
func settle(tb testing.TB, m *Model, cmd tea.Cmd, depth int) (quit bool) {
	tb.Helper()
	if cmd == nil {
		return false
	}
	if depth > 20 {
		tb.Fatal("command chain did not settle")
	}
	switch msg := cmd().(type) {
	case nil, tickMsg:
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			quit = settle(tb, m, c, depth+1) || quit
		}
	default:
		_, next := m.Update(msg)
		return settle(tb, m, next, depth+1)
	}
	return quit
}

// press sends keys by name: "q", "ctrl+c", "enter", "esc", "tab", "shift+tab",
// "space", "up", "down", "left", "right", "pgup", "pgdown", "home", "end",
// "backspace"; anything else is typed as runes.
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

// command runs a ":" command line: the colon, the line typed, enter.
func (h *harness) command(line string) {
	h.t.Helper()
	h.press(":")
	h.typeText(line)
	h.press("enter")
}

// filter sets the active pane's filter (or the help's search) to text: "/", the
// line cleared, text typed, enter.
func (h *harness) filter(text string) {
	h.t.Helper()
	h.press("/", "ctrl+u")
	h.typeText(text)
	h.press("enter")
}

// complete types ":" and typed, presses tab, and returns the completed line.
func (h *harness) complete(typed string) string {
	h.t.Helper()
	h.press(":")
	h.typeText(typed)
	h.press("tab")
	return h.m.cmdIn.String()
}

// mustFit checks that the frame is exactly height lines, none wider than width.
func (h *harness) mustFit(width, height int) {
	h.t.Helper()
	lines := strings.Split(h.view(), "\n")
	if len(lines) != height {
		h.t.Fatalf("%d lines, want %d", len(lines), height)
	}
	for i, l := range lines {
		if w := displayWidth(l); w > width {
			h.t.Fatalf("line %d is %d wide (> %d): %q", i, w, width, l)
		}
	}
}

// mustAnswer checks what a command did: the engine calls it made, then its
// refusal errText when one is expected, else what it shows.
func (h *harness) mustAnswer(calls []string, errText, show string) {
	h.t.Helper()
	h.mustCall(calls...)
	if errText != "" {
		h.mustShow(errText)
		return
	}
	h.mustShow(show)
}

// typeText types s rune by rune.
func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		if r == ' ' {
			h.send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
			continue
		}
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"ctrl+c": tea.KeyCtrlC, "up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft,
		"right": tea.KeyRight, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome,
		"end": tea.KeyEnd, "backspace": tea.KeyBackspace, "space": tea.KeySpace,
		"ctrl+u": tea.KeyCtrlU, "ctrl+f": tea.KeyCtrlF, "ctrl+b": tea.KeyCtrlB,
	}
	if t, ok := named[k]; ok {
		if t == tea.KeySpace {
			return tea.KeyMsg{Type: t, Runes: []rune{' '}}
		}
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// view is the screen as plain text.
func (h *harness) view() string { return ansi.Strip(h.m.View()) }

// body is the pane's part of the screen: below the tab bar, above the status line.
func (h *harness) body() string {
	lines := strings.Split(h.view(), "\n")
	return strings.Join(lines[3:len(lines)-2], "\n")
}

// line returns screen line i (0-based).
func (h *harness) line(i int) string {
	lines := strings.Split(h.view(), "\n")
	if i >= len(lines) {
		return ""
	}
	return lines[i]
}

// rowOf returns the first screen line containing s, or "".
func (h *harness) rowOf(s string) string {
	for _, l := range strings.Split(h.view(), "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

func (h *harness) mustShow(subs ...string) {
	h.t.Helper()
	v := h.view()
	for _, s := range subs {
		if !strings.Contains(v, s) {
			h.t.Fatalf("screen lacks %q:\n%s", s, v)
		}
	}
}

func (h *harness) mustNotShow(subs ...string) {
	h.t.Helper()
	v := h.view()
	for _, s := range subs {
		if strings.Contains(v, s) {
			h.t.Fatalf("screen shows %q but should not:\n%s", s, v)
		}
	}
}

// calls is the fake engine's call log.
func (h *harness) calls() []string { return h.ctrl.Calls() }

func (h *harness) mustCall(want ...string) {
	h.t.Helper()
	got := h.calls()
	if strings.Join(got, ";") != strings.Join(want, ";") {
		h.t.Fatalf("engine calls = %q, want %q", got, want)
	}
}

// displayWidth is how many terminal cells s takes.
func displayWidth(s string) int { return ansi.StringWidth(s) }

func windowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }
