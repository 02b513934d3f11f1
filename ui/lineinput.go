package ui

import (
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/themes"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// lineInput is the one-line editor behind ":" and "/" (and the help search). It is
// small on purpose: no blinking cursor (a blink is a re-render twice a second for
// nothing) and styles from the session's renderer, not lipgloss's global one.
type lineInput struct {
	prompt string
	value  []rune
	pos    int
	// mask, when set, is what the line shows instead of its text: same length, so
	// the cursor stays put (the command line stars out egress passwords, M3).
	mask func([]rune) []rune
}

// set replaces the text and puts the cursor at its end.
func (in *lineInput) set(s string) {
	in.value = []rune(s)
	in.pos = len(in.value)
}

func (in *lineInput) String() string { return string(in.value) }

// update edits the line for one key, matched through km's editing keys (the
// help overlay lists the same); it reports whether the key was an edit.
func (in *lineInput) update(km *pane.KeyMap, msg tea.KeyMsg) bool {
	if msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace {
		rs := msg.Runes
		if msg.Type == tea.KeySpace {
			rs = []rune{' '}
		}
		clean := make([]rune, 0, len(rs))
		for _, r := range rs {
			if unicode.IsPrint(r) {
				clean = append(clean, r)
			}
		}
		in.value = append(in.value[:in.pos], append(clean, in.value[in.pos:]...)...)
		in.pos += len(clean)
		return true
	}
	switch k := msg.String(); {
	case pane.Matches(k, km.DeleteBack):
		if in.pos > 0 {
			in.value = append(in.value[:in.pos-1], in.value[in.pos:]...)
			in.pos--
		}
	case pane.Matches(k, km.DeleteOn):
		if in.pos < len(in.value) {
			in.value = append(in.value[:in.pos], in.value[in.pos+1:]...)
		}
	case pane.Matches(k, km.CursorLeft):
		in.pos = max(in.pos-1, 0)
	case pane.Matches(k, km.CursorRight):
		in.pos = min(in.pos+1, len(in.value))
	case pane.Matches(k, km.LineStart):
		in.pos = 0
	case pane.Matches(k, km.LineEnd):
		in.pos = len(in.value)
	case pane.Matches(k, km.KillStart):
		in.value = append(in.value[:0], in.value[in.pos:]...)
		in.pos = 0
	case pane.Matches(k, km.KillEnd):
		in.value = in.value[:in.pos]
	case pane.Matches(k, km.KillWord):
		i := in.pos
		for i > 0 && in.value[i-1] == ' ' {
			i--
		}
		for i > 0 && in.value[i-1] != ' ' {
			i--
		}
		in.value = append(in.value[:i], in.value[in.pos:]...)
		in.pos = i
	default:
		return false
	}
	return true
}

// view renders prompt, text and cursor in width cells, scrolling long text so the
// cursor stays visible. Without colour the cursor is drawn as a glyph.
func (in *lineInput) view(st *themes.Styles, width int) string {
	shown := in.value
	if in.mask != nil {
		shown = in.mask(in.value)
	}
	text := string(shown)
	before := string(shown[:in.pos])
	avail := width - pane.CellWidth(in.prompt) - 1
	// Scroll: drop leading runes until the cursor fits.
	for avail > 0 && pane.CellWidth(before) > avail {
		_, sz := firstRune(before)
		before, text = before[sz:], text[sz:]
	}
	after := text[len(before):]
	var b strings.Builder
	b.WriteString(st.Prompt.Render(in.prompt))
	b.WriteString(before)
	switch {
	case st.Plain && after == "":
		b.WriteString("_")
	case st.Plain:
		b.WriteString("|")
		b.WriteString(after)
	case after == "":
		b.WriteString(st.Cursor.Render(" "))
	default:
		r, sz := firstRune(after)
		b.WriteString(st.Cursor.Render(string(r)))
		b.WriteString(after[sz:])
	}
	return b.String()
}

func firstRune(s string) (rune, int) {
	for i, r := range s {
		if i == 0 {
			n := len(string(r))
			return r, n
		}
	}
	return 0, 0
}
