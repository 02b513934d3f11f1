package ui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// terminalRenderer is a renderer as a real terminal session gets it: a TTY with
// TERM and whatever else is in env (NO_COLOR, say).
func terminalRenderer(env ...string) *lipgloss.Renderer {
	return lipgloss.NewRenderer(&bytes.Buffer{},
		termenv.WithTTY(true),
		termenv.WithEnvironment(environ(append([]string{"TERM=xterm-256color"}, env...))))
}

type environ []string

func (e environ) Environ() []string { return e }
func (e environ) Getenv(k string) string {
	for _, kv := range e {
		if strings.HasPrefix(kv, k+"=") {
			return kv[len(k)+1:]
		}
	}
	return ""
}

func TestNoColor(t *testing.T) {
	tests := []struct {
		name      string
		env       []string
		wantEsc   bool
		wantGlyph bool
	}{
		{name: "colour terminal", wantEsc: true, wantGlyph: true},
		{name: "NO_COLOR", env: []string{"NO_COLOR=1"}, wantEsc: false, wantGlyph: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, theme := range []string{"dark", "light", "high-contrast", "mono"} {
				ctrl := fake.New(fake.Config{})
				m := newModel(ctrl, Options{Theme: theme, Clock: fixedClock}, terminalRenderer(tc.env...))
				m.Update(windowSize(120, 40))
				m.Update(SnapshotMsg{Snapshot: ctrl.Snapshot()})
				v := m.View()
				if got := strings.Contains(v, "\x1b["); got != tc.wantEsc {
					t.Fatalf("%s: escapes in output = %v, want %v", theme, got, tc.wantEsc)
				}
				// The selection is a glyph, visible without colour or reverse video.
				if !strings.HasPrefix(ansi.Strip(strings.Split(v, "\n")[4]), "▸    1") {
					t.Fatalf("%s: selected row lacks the glyph: %q", theme, strings.Split(v, "\n")[4])
				}
				// Without colour the active tab is still marked.
				if !strings.Contains(ansi.Strip(v), "[1 Lanes]") {
					t.Fatalf("%s: active tab not marked", theme)
				}
			}
		})
	}
}
