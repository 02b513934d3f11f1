// Package themes holds the operator console's colour themes (dark, light,
// high-contrast, mono) and turns one into the console's styles for a given
// renderer. Styles are built per renderer, never at package level: over SSH each
// session has its own renderer that knows the client's terminal, not the server's.
package themes

import (
	"sort"

	"github.com/charmbracelet/lipgloss"
)

// Default is the theme used when none is named.
const Default = "dark"

// Theme is a palette: the colours the console's styles are built from. A nil colour
// means "the terminal's default"; Attrs says whether bold/reverse may be used.
type Theme struct {
	Name   string
	Text   lipgloss.TerminalColor // ordinary text
	Muted  lipgloss.TerminalColor // labels, idle rows, hints
	Accent lipgloss.TerminalColor // title, active tab, keys in help
	Good   lipgloss.TerminalColor // RUNNING, fetching lanes, INFO
	Warn   lipgloss.TerminalColor // PAUSED, gated lanes, WARN
	Bad    lipgloss.TerminalColor // errors, refusals, ERROR
	SelFg  lipgloss.TerminalColor // selected row text
	SelBg  lipgloss.TerminalColor // selected row background
	Border lipgloss.TerminalColor // dialog borders, separators
	// Attrs allows bold and reverse video. The selection glyph is drawn in every
	// theme anyway, so a terminal without attributes still shows the selection.
	Attrs bool
}

var registry = map[string]Theme{
	"dark": {
		Name:   "dark",
		Text:   lipgloss.Color("252"),
		Muted:  lipgloss.Color("244"),
		Accent: lipgloss.Color("111"),
		Good:   lipgloss.Color("114"),
		Warn:   lipgloss.Color("221"),
		Bad:    lipgloss.Color("203"),
		SelFg:  lipgloss.Color("231"),
		SelBg:  lipgloss.Color("24"),
		Border: lipgloss.Color("240"),
		Attrs:  true,
	},
	"light": {
		Name:   "light",
		Text:   lipgloss.Color("235"),
		Muted:  lipgloss.Color("243"),
		Accent: lipgloss.Color("25"),
		Good:   lipgloss.Color("28"),
		Warn:   lipgloss.Color("130"),
		Bad:    lipgloss.Color("160"),
		SelFg:  lipgloss.Color("16"),
		SelBg:  lipgloss.Color("153"),
		Border: lipgloss.Color("248"),
		Attrs:  true,
	},
	"high-contrast": {
		Name:   "high-contrast",
		Text:   lipgloss.Color("15"),
		Muted:  lipgloss.Color("15"),
		Accent: lipgloss.Color("14"),
		Good:   lipgloss.Color("10"),
		Warn:   lipgloss.Color("11"),
		Bad:    lipgloss.Color("9"),
		SelFg:  lipgloss.Color("0"),
		SelBg:  lipgloss.Color("11"),
		Border: lipgloss.Color("15"),
		Attrs:  true,
	},
	// mono uses no colour at all, only attributes: for terminals or operators that
	// do not want colour but still have bold and reverse video.
	"mono": {Name: "mono", Attrs: true},
}

// Names lists the theme names, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the theme called name.
func Lookup(name string) (Theme, bool) {
	t, ok := registry[name]
	return t, ok
}
