package themes

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// SelectionGlyph marks the selected row in every theme, so the selection is visible
// without colour or reverse video (NO_COLOR drops both).
const SelectionGlyph = "▸"

// Styles are the console's styles for one renderer and one theme. Build them once per
// renderer (and again when the theme changes), never per frame.
type Styles struct {
	Theme Theme
	// Plain is true when the renderer emits no colour or attributes at all (NO_COLOR,
	// a dumb terminal, the ASCII profile): the UI then marks things with glyphs only.
	Plain bool

	Title       lipgloss.Style // header title
	Label       lipgloss.Style // header labels ("queue", "lanes")
	Value       lipgloss.Style // header figures
	Bad         lipgloss.Style // non-zero error/refusal counts
	Spark       lipgloss.Style // pages/s sparkline
	Frozen      lipgloss.Style // FROZEN badge
	Tab         lipgloss.Style // inactive pane tab
	TabActive   lipgloss.Style // active pane tab
	ColHeader   lipgloss.Style // column titles of a pane
	Row         lipgloss.Style // ordinary row
	Selected    lipgloss.Style // selected row
	Muted       lipgloss.Style // hints, empty-state text
	StatusInfo  lipgloss.Style // status line, success
	StatusError lipgloss.Style // status line, error or refusal
	HelpKey     lipgloss.Style // key in help
	HelpDesc    lipgloss.Style // description in help
	Dialog      lipgloss.Style // confirm dialogs and the help overlay
	DialogTitle lipgloss.Style // their titles
	Prompt      lipgloss.Style // ":" and "/" prompts
	Cursor      lipgloss.Style // text cursor in inputs

	state  map[string]lipgloss.Style // crawl state -> style
	lane   map[string]lipgloss.Style // lane status -> style
	egress map[string]lipgloss.Style // egress state (M3) -> style
	levels [4]lipgloss.Style         // event level -> style
}

// NewStyles builds the styles of theme t for renderer r.
func NewStyles(r *lipgloss.Renderer, t Theme) *Styles {
	ns := func(c lipgloss.TerminalColor) lipgloss.Style {
		s := r.NewStyle()
		if c != nil {
			s = s.Foreground(c)
		}
		return s
	}
	bold := func(s lipgloss.Style) lipgloss.Style { return s.Bold(t.Attrs) }
	s := &Styles{
		Theme:       t,
		Plain:       r.ColorProfile() == termenv.Ascii,
		Title:       bold(ns(t.Accent)),
		Label:       ns(t.Muted),
		Value:       bold(ns(t.Text)),
		Bad:         bold(ns(t.Bad)),
		Spark:       ns(t.Accent),
		Frozen:      ns(t.Accent).Reverse(t.Attrs).Bold(t.Attrs),
		Tab:         ns(t.Muted),
		TabActive:   bold(ns(t.Accent)).Underline(t.Attrs),
		ColHeader:   bold(ns(t.Muted)),
		Row:         ns(t.Text),
		Selected:    bold(ns(t.SelFg)),
		Muted:       ns(t.Muted),
		StatusInfo:  ns(t.Good),
		StatusError: bold(ns(t.Bad)),
		HelpKey:     bold(ns(t.Accent)),
		HelpDesc:    ns(t.Muted),
		Dialog:      r.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1),
		DialogTitle: bold(ns(t.Accent)),
		Prompt:      bold(ns(t.Accent)),
		Cursor:      r.NewStyle().Reverse(true),
	}
	if t.SelBg != nil {
		s.Selected = s.Selected.Background(t.SelBg)
	} else {
		s.Selected = s.Selected.Reverse(t.Attrs)
	}
	if t.Border != nil {
		s.Dialog = s.Dialog.BorderForeground(t.Border)
	}
	s.state = map[string]lipgloss.Style{
		"RUNNING":  bold(ns(t.Good)),
		"PAUSED":   bold(ns(t.Warn)).Reverse(t.Attrs && t.Warn == nil),
		"STARTING": ns(t.Muted),
		"STOPPING": bold(ns(t.Warn)),
		"DONE":     ns(t.Muted),
		"FAILED":   bold(ns(t.Bad)).Reverse(t.Attrs && t.Bad == nil),
	}
	s.lane = map[string]lipgloss.Style{
		"fetching": ns(t.Good),
		"waiting":  ns(t.Text),
		"gated":    ns(t.Warn),
		"paused":   bold(ns(t.Bad)),
		"idle":     ns(t.Muted),
	}
	s.egress = map[string]lipgloss.Style{
		"in use":  bold(ns(t.Good)),
		"ready":   ns(t.Text),
		"cooling": bold(ns(t.Warn)),
		"free":    ns(t.Muted),
	}
	s.levels = [4]lipgloss.Style{ns(t.Muted), ns(t.Good), bold(ns(t.Warn)), bold(ns(t.Bad))}
	return s
}

// State is the style of a crawl state word in the header.
func (s *Styles) State(state string) lipgloss.Style {
	if st, ok := s.state[state]; ok {
		return st
	}
	return s.Value
}

// LaneStatus is the style of a lane status cell.
func (s *Styles) LaneStatus(status string) lipgloss.Style {
	if st, ok := s.lane[status]; ok {
		return st
	}
	return s.Row
}

// EgressState is the style of an egress state cell (M3): in use, ready, cooling,
// free; "on NODE" (assigned to another node) is muted.
func (s *Styles) EgressState(state string) lipgloss.Style {
	if st, ok := s.egress[state]; ok {
		return st
	}
	return s.Muted
}

// Level is the style of an event level (0 debug .. 3 error).
func (s *Styles) Level(level int) lipgloss.Style {
	if level < 0 {
		level = 0
	}
	if level > 3 {
		level = 3
	}
	return s.levels[level]
}
