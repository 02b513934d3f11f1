package ui

import (
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// BenchmarkFrame is one snapshot -> Update -> View with 1000 lanes at 120×40, per
// pane (go run ./bench console reports the same figure with a baseline).
func BenchmarkFrame(b *testing.B) {
	for i, pane := range []string{"lanes", "groups", "log", "dns", "egress", "revisit"} {
		b.Run(pane, func(b *testing.B) {
			ctrl := fake.New(fake.Config{Lanes: 1000, Events: 1000})
			r := lipgloss.NewRenderer(io.Discard)
			r.SetColorProfile(termenv.TrueColor)
			m := newModel(ctrl, Options{Clock: fixedClock}, r)
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			_, cmd := m.Update(SnapshotMsg{Snapshot: ctrl.Snapshot()})
			settle(b, m, cmd, 0) // the Log pane fetches the events
			m.setActive(i)
			b.ReportAllocs()
			for b.Loop() {
				ctrl.Tick()
				m.Update(SnapshotMsg{Snapshot: ctrl.Snapshot()})
				_ = m.View()
			}
		})
	}
}

// BenchmarkHostsFrame is the same frame on the Hosts pane over 10,000 hosts, sorted
// by pages fetched (go run ./bench console reports it against 10 hosts).
func BenchmarkHostsFrame(b *testing.B) {
	ctrl := fake.New(fake.Config{Hosts: 10000})
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	m := newModel(ctrl, Options{Clock: fixedClock}, r)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	_, cmd := m.Update(SnapshotMsg{Snapshot: ctrl.Snapshot()})
	settle(b, m, cmd, 0)
	m.setActive(len(m.panes) - 1)
	m.panes[m.active].Update(keyMsg("o"))
	b.ReportAllocs()
	for b.Loop() {
		ctrl.Tick()
		m.Update(SnapshotMsg{Snapshot: ctrl.Snapshot()})
		_ = m.View()
	}
}
