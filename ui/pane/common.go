package pane

import (
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/themes"
)

// Common is the context every pane shares (soft-serve's common.Common): styles of
// this session's renderer, the keymap, the clock and the way to reach the engine.
type Common struct {
	Styles *themes.Styles
	Keys   *KeyMap
	Now    func() time.Time

	// Renderer is the session's, for rebuilding Styles when the theme changes.
	Renderer *lipgloss.Renderer
	// ReadOnly makes every control answer ReadOnlyText and change nothing.
	ReadOnly bool
	// LogLines is how many events the Log pane keeps (Options.LogLines).
	LogLines int

	ctrl control.Control // reached only in Cmds, through Control, ControlResult and Read
}

// NewCommon is the context of a console over ctrl; the caller fills in the rest.
func NewCommon(ctrl control.Control) *Common { return &Common{ctrl: ctrl} }

// Read runs f against the engine in a Cmd (never in Update) and delivers what it
// returns. Unlike Control it changes nothing, so it runs in read-only sessions too.
func (c *Common) Read(f func(control.Control) tea.Msg) tea.Cmd {
	ctrl := c.ctrl
	return func() tea.Msg { return f(ctrl) }
}

// ReadOnlyText is what every control answers in a viewer session.
const ReadOnlyText = "read-only session"

// StatusMsg sets the status line.
type StatusMsg struct {
	Text string
	Err  bool
}

// ControlDoneMsg reports a control call that finished; the console shows its
// outcome and pulls a fresh snapshot so the change is visible at once.
type ControlDoneMsg struct {
	Text   string // what happened, on success: "lane 3 paused"
	Action string // what was tried, for a failure: "pause lane 3"
	Err    error
}

// Control runs f against the engine in a Cmd (never in Update). The status line
// then says done, or "could not <action>: <error>". In a read-only session it
// changes nothing and answers ReadOnlyText.
func (c *Common) Control(action, done string, f func(control.Control) error) tea.Cmd {
	if c.ReadOnly {
		return Status(ReadOnlyText, true)
	}
	ctrl := c.ctrl
	return func() tea.Msg {
		return ControlDoneMsg{Text: done, Action: action, Err: f(ctrl)}
	}
}

// Status is a Cmd that sets the status line.
func Status(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text, Err: isErr} }
}

// ControlResult is Control for calls whose outcome text is only known afterwards
// (":dns flush" says how many entries went, `e` where the lane went): f returns the
// status text on success. Read-only sessions get ReadOnlyText and nothing runs.
func (c *Common) ControlResult(action string, f func(control.Control) (string, error)) tea.Cmd {
	if c.ReadOnly {
		return Status(ReadOnlyText, true)
	}
	ctrl := c.ctrl
	return func() tea.Msg {
		text, err := f(ctrl)
		return ControlDoneMsg{Text: text, Action: action, Err: err}
	}
}

// Refusal is "action: reason" for a refused action. The engine's errors begin
// with what they are about ("seed add: ...", "egress X: ..."), which the action
// says already: it is not said twice ("seed add X: seed add: ..."), nor when the
// action says the same words apart ("revisit URL now: revisit now: ...").
func Refusal(action string, err error) string {
	text := err.Error()
	if verb, rest, ok := strings.Cut(text, ": "); ok && saysAll(action, verb) {
		text = rest // "add egress X: egress X: ..." too
	}
	return action + ": " + text
}

// saysAll reports whether every word of verb is a word of action.
func saysAll(action, verb string) bool {
	words := strings.Fields(verb)
	if len(words) == 0 {
		return false
	}
	have := strings.Fields(action)
	for _, w := range words {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
