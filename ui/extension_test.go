package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// drainPane stands for a later capability's pane: one file, one pane.Register call.
type drainPane struct {
	c      *pane.Common
	drain  key.Binding
	lanes  int
	filter pane.Filter
}

func (p *drainPane) Title() string { return "Drain" }
func (p *drainPane) ShortHelp() []key.Binding {
	return []key.Binding{p.drain}
}
func (p *drainPane) FullHelp() [][]key.Binding { return [][]key.Binding{{p.drain}} }
func (p *drainPane) SetSize(int, int)          {}
func (p *drainPane) SetSnapshot(s *view.Snapshot) tea.Cmd {
	p.lanes = len(s.Lanes)
	return nil
}
func (p *drainPane) SetFilter(f pane.Filter) { p.filter = f }
func (p *drainPane) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok && pane.Matches(k.String(), p.drain) {
		return pane.Status("node drained", false)
	}
	return nil
}
func (p *drainPane) View() string     { return fmt.Sprintf("Drain pane: %d lanes run", p.lanes) }
func (p *drainPane) Position() string { return "" }

func TestALaterPaneAndCommandPlugIn(t *testing.T) {
	stock := len(newHarness(t, 120, 40, Options{}).m.shown) // tabs of a single-process crawl
	tab := fmt.Sprintf("%d Drain", stock+1)
	func() {
		defer pane.Register(90, func(c *pane.Common) pane.Pane {
			return &drainPane{c: c, drain: key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "drain node"))}
		})()
		var drained []string
		defer commands.Register(commands.Command{Name: "node drain", Args: "[name]", Max: 1, Control: true, Help: "drain a node",
			Run: func(con commands.Console, args []string) (tea.Cmd, error) {
				return con.Common().Control("drain node", "node drained", func(control.Control) error {
					drained = append(drained, strings.Join(args, ""))
					return nil
				}), nil
			}})()

		h := newHarness(t, 120, 40, Options{})
		h.mustShow(tab)
		h.press(fmt.Sprint(stock + 1))
		h.mustShow("["+tab+"]", "Drain pane: 12 lanes run", "D drain node")
		h.press("D")
		h.mustShow("node drained")
		h.press("?")
		h.filter("drain")
		h.mustShow(fmt.Sprintf("Drain pane (%d)", stock+1), "drain node", ":node drain [name]")
		h.press("esc")
		if got := h.complete("no"); got != "node drain " {
			t.Fatalf("completion = %q", got)
		}
		h.typeText("worker-2")
		h.press("enter")
		h.command("node drain")
		if strings.Join(drained, ",") != "worker-2," {
			t.Fatalf("drained = %q", drained)
		}
		h.command("node drain a b")
		h.mustShow("usage: :node drain [name]")
	}()
	h := newHarness(t, 120, 40, Options{})
	h.mustNotShow(tab)
}
