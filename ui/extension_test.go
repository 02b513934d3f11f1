package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine"
)

// dnsPane stands for a later capability's pane: one file, one registerPane call.
type dnsPane struct {
	c      *Common
	flush  key.Binding
	lanes  int
	filter Filter
}

func (p *dnsPane) Title() string { return "DNS" }
func (p *dnsPane) ShortHelp() []key.Binding {
	return []key.Binding{p.flush}
}
func (p *dnsPane) FullHelp() [][]key.Binding { return [][]key.Binding{{p.flush}} }
func (p *dnsPane) SetSize(int, int)          {}
func (p *dnsPane) SetSnapshot(s *engine.Snapshot) tea.Cmd {
	p.lanes = len(s.Lanes)
	return nil
}
func (p *dnsPane) SetFilter(f Filter) { p.filter = f }
func (p *dnsPane) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok && matches(k.String(), p.flush) {
		return status("dns cache flushed", false)
	}
	return nil
}
func (p *dnsPane) View() string     { return fmt.Sprintf("DNS pane: %d lanes resolve", p.lanes) }
func (p *dnsPane) Position() string { return "" }

// withRegistry runs f with extra panes and commands registered, then restores the
// registries so other tests see the stock console.
func withRegistry(t *testing.T, f func()) {
	t.Helper()
	panes, cmds := paneSpecs, commands
	paneSpecs = append([]paneSpec(nil), paneSpecs...)
	commands = append([]command(nil), commands...)
	defer func() { paneSpecs, commands = panes, cmds }()
	f()
}

func TestALaterPaneAndCommandPlugIn(t *testing.T) {
	withRegistry(t, func() {
		registerPane(40, func(c *Common) Pane {
			return &dnsPane{c: c, flush: key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "flush dns cache"))}
		})
		var flushed []string
		registerCommand(command{name: "dns flush", args: "[domain]", max: 1, control: true, help: "flush the DNS cache",
			run: func(m *Model, args []string) (tea.Cmd, error) {
				return m.c.Control("flush dns", "dns flushed", func(engine.Control) error {
					flushed = append(flushed, strings.Join(args, ""))
					return nil
				}), nil
			}})

		h := newHarness(t, 120, 40, Options{})
		h.mustShow("4 DNS")
		h.press("4")
		h.mustShow("[4 DNS]", "DNS pane: 12 lanes resolve", "F flush dns cache")
		h.press("F")
		h.mustShow("dns cache flushed")
		h.press("?")
		h.mustShow("DNS pane (4)", "flush dns cache", ":dns flush [domain]")
		h.press("esc", ":")
		h.typeText("dn")
		h.press("tab")
		if got := h.m.cmdIn.String(); got != "dns flush " {
			t.Fatalf("completion = %q", got)
		}
		h.typeText("example.org")
		h.press("enter", ":")
		h.typeText("dns flush")
		h.press("enter")
		if strings.Join(flushed, ",") != "example.org," {
			t.Fatalf("flushed = %q", flushed)
		}
		h.press(":")
		h.typeText("dns flush a b")
		h.press("enter")
		h.mustShow("usage: :dns flush [domain]")
	})
	h := newHarness(t, 120, 40, Options{})
	h.mustNotShow("4 DNS")
}
