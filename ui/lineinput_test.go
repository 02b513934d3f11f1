package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func TestLineInputEditing(t *testing.T) {
	k := func(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	tests := []struct {
		name string
		keys []tea.KeyMsg
		want string
	}{
		{"type", []tea.KeyMsg{runes("pause"), {Type: tea.KeySpace}, runes("lane")}, "pause lane"},
		{"backspace", []tea.KeyMsg{runes("abc"), k(tea.KeyBackspace)}, "ab"},
		{"insert in the middle", []tea.KeyMsg{runes("ac"), k(tea.KeyLeft), runes("b")}, "abc"},
		{"home and delete", []tea.KeyMsg{runes("xabc"), k(tea.KeyHome), k(tea.KeyDelete)}, "abc"},
		{"end", []tea.KeyMsg{runes("ab"), k(tea.KeyHome), k(tea.KeyEnd), runes("c")}, "abc"},
		{"ctrl+a ctrl+e", []tea.KeyMsg{runes("b"), k(tea.KeyCtrlA), runes("a"), k(tea.KeyCtrlE), runes("c")}, "abc"},
		{"ctrl+w deletes a word", []tea.KeyMsg{runes("pause host  "), k(tea.KeyCtrlW)}, "pause "},
		{"ctrl+u deletes to the start", []tea.KeyMsg{runes("abc"), k(tea.KeyLeft), k(tea.KeyCtrlU)}, "c"},
		{"ctrl+k deletes to the end", []tea.KeyMsg{runes("abc"), k(tea.KeyLeft), k(tea.KeyLeft), k(tea.KeyCtrlK)}, "a"},
		{"control characters are dropped", []tea.KeyMsg{runes("a\x07b")}, "ab"},
		{"bounds", []tea.KeyMsg{k(tea.KeyLeft), k(tea.KeyBackspace), k(tea.KeyDelete), runes("a"), k(tea.KeyRight), k(tea.KeyRight)}, "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in lineInput
			keys := pane.DefaultKeyMap()
			for _, km := range tc.keys {
				in.update(keys, km)
			}
			if in.String() != tc.want {
				t.Fatalf("got %q, want %q", in.String(), tc.want)
			}
		})
	}
}
