package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// commandKey edits the ":" line: enter runs it, tab completes, up and down walk
// the history. A command that is refused closes the line too, its error in the
// status line: keys typed next (p, q, a pane's number) act on the console, not on
// a line the operator stopped looking at; ":" then up brings the line back to fix.
func (m *Model) commandKey(msg tea.KeyMsg) tea.Cmd {
	km := m.c.Keys
	switch k := msg.String(); {
	case pane.Matches(k, km.Cancel):
		m.focus = focusPane
		m.cmdHint = nil
		return nil
	case pane.Matches(k, km.Run):
		line := strings.TrimSpace(m.cmdIn.String())
		if line == "" {
			m.focus = focusPane
			return nil
		}
		if !commands.HasSecret(line) { // an egress password never stays behind in the history (M3)
			m.history = append(m.history, line)
		}
		m.histPos = len(m.history)
		cmd, err := commands.Run(console{m}, line)
		m.cmdHint = nil
		if err != nil {
			m.focus = focusPane
			fix := " (:↑ to edit)"
			if commands.HasSecret(line) { // not in the history: typed again
				fix = ""
			}
			m.setStatus(err.Error()+fix, true)
			return nil
		}
		if m.focus == focusCommand {
			m.focus = focusPane
		}
		return cmd
	case pane.Matches(k, km.Complete):
		line, cands := commands.Complete(console{m}, m.cmdIn.String())
		m.cmdIn.set(line)
		m.cmdHint = cands
		return nil
	case pane.Matches(k, km.HistoryBack):
		if m.histPos > 0 {
			m.histPos--
			m.cmdIn.set(m.history[m.histPos])
		}
		return nil
	case pane.Matches(k, km.HistoryOn):
		if m.histPos < len(m.history)-1 {
			m.histPos++
			m.cmdIn.set(m.history[m.histPos])
		} else {
			m.histPos = len(m.history)
			m.cmdIn.set("")
		}
		return nil
	}
	if m.cmdIn.update(km, msg) {
		m.cmdHint = nil
	}
	return nil
}

// console is the Model as the commands see it.
type console struct{ m *Model }

func (c console) Common() *pane.Common          { return c.m.c }
func (c console) Snapshot() *view.Snapshot      { return &c.m.snap }
func (c console) SetPaused(paused bool) tea.Cmd { return c.m.setPaused(paused) }
func (c console) SetTheme(name string) error    { return c.m.setTheme(name) }
func (c console) PlanRebalance() tea.Cmd        { return c.m.planRebalance() }
func (c console) RequestQuit() tea.Cmd          { return c.m.requestQuit() }
func (c console) OpenHelp()                     { c.m.openHelp() }
