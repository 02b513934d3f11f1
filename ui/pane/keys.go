package pane

import (
	"slices"

	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every key the console answers. The same bindings drive key matching,
// the help line and the ? overlay, so help cannot drift from the real keys
// (soft-serve's pattern). Global keys are reserved: a pane may not rebind them.
type KeyMap struct {
	// Global keys, answered whatever the pane.
	Help      key.Binding
	Pause     key.Binding
	Freeze    key.Binding
	Filter    key.Binding
	Command   key.Binding
	Rebalance key.Binding
	Quit      key.Binding
	NextPane  key.Binding
	PrevPane  key.Binding
	GotoPane  key.Binding
	Clear     key.Binding

	// Row navigation, shared by every list pane.
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding

	// Lanes and Adjacency groups panes.
	PauseLane key.Binding
	PauseHost key.Binding
	Expand    key.Binding
	Collapse  key.Binding
	Toggle    key.Binding

	// Egress rotation (M3), in the Lanes, Groups and Egress panes.
	Rotate      key.Binding // the selected lane's egress now; in Egress, every lane off the selected egress
	DisableHost key.Binding // put the selected host on the host_disable_list, or take it off

	// Log pane.
	Level   key.Binding
	OpenRow key.Binding // show the selected event whole, its message wrapped, with every field

	// Revisit pane (M2).
	RevisitNow key.Binding // refetch the selected page now
	Behind     key.Binding // show the pages the budget cannot follow instead of the due queue

	// Hosts pane.
	Sort    key.Binding // sort by the next column
	Reverse key.Binding // reverse the sort
	GroupBy key.Binding // per host, per site, per egress

	// Nodes pane (M4, a distributed crawl only).
	PauseNode key.Binding // pause or resume the selected worker

	// Dialogs.
	Yes key.Binding
	No  key.Binding

	// Typing a line: the ":" command line, the "/" filter and the help's search.
	Run         key.Binding // run the command, keep the filter or the search
	Cancel      key.Binding // close the line: the command unrun, the filter as it was
	Complete    key.Binding // ":" only: complete the word
	HistoryBack key.Binding // ":" only: the command before in the history
	HistoryOn   key.Binding // ":" only: the command after
	CursorLeft  key.Binding
	CursorRight key.Binding
	LineStart   key.Binding
	LineEnd     key.Binding
	DeleteBack  key.Binding // the character before the cursor
	DeleteOn    key.Binding // the character under the cursor
	KillStart   key.Binding // all before the cursor
	KillEnd     key.Binding // all from the cursor on
	KillWord    key.Binding // the word before the cursor
}

// controls are the keys that change the crawl: a viewer session refuses them, and
// its footer does not offer them.
func (k *KeyMap) controls() []key.Binding {
	return []key.Binding{k.Pause, k.Rebalance, k.PauseLane, k.PauseHost, k.Rotate, k.DisableHost, k.RevisitNow, k.PauseNode}
}

// IsControl says whether b is one of controls: bound to the same keys (a pane may
// describe a control its own way, as Egress does Rotate).
func (k *KeyMap) IsControl(b key.Binding) bool {
	for _, c := range k.controls() {
		if slices.Equal(c.Keys(), b.Keys()) {
			return true
		}
	}
	return false
}

// DefaultKeyMap returns the console's keys.
func DefaultKeyMap() *KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return &KeyMap{
		Help:      b([]string{"?"}, "?", "help"),
		Pause:     b([]string{"p"}, "p", "(un)pause crawl"),
		Freeze:    b([]string{"f"}, "f", "freeze view"),
		Filter:    b([]string{"/"}, "/", "filter (!x inverts)"),
		Command:   b([]string{":"}, ":", "command"),
		Rebalance: b([]string{"r"}, "r", "rebalance (master: over workers)"),
		Quit:      b([]string{"q", "ctrl+c"}, "q/ctrl+c", "quit"),
		NextPane:  b([]string{"tab"}, "tab", "next pane"),
		PrevPane:  b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		GotoPane:  b([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "1-9", "pane N"),
		Clear:     b([]string{"esc"}, "esc", "clear filter (Log: close event)"),

		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   b([]string{"pgup", "ctrl+b"}, "pgup/ctrl+b", "page up"),
		PageDown: b([]string{"pgdown", "ctrl+f"}, "pgdn/ctrl+f", "page down"),
		Top:      b([]string{"home", "g"}, "g/home", "top"),
		Bottom:   b([]string{"end", "G"}, "G/end", "bottom / follow"),

		PauseLane: b([]string{" "}, "space", "(un)pause lane"),
		PauseHost: b([]string{"H"}, "H", "(un)pause host"),
		Expand:    b([]string{"right", "l"}, "→/l", "expand"),
		Collapse:  b([]string{"left", "h"}, "←/h", "collapse"),
		Toggle:    b([]string{"enter"}, "enter", "expand/collapse"),

		Rotate:      b([]string{"e"}, "e", "rotate lane's egress"),
		DisableHost: b([]string{"x"}, "x", "disable/enable host"),

		Level:   b([]string{"v"}, "v", "min level"),
		OpenRow: b([]string{"enter"}, "enter", "open/close event"),

		RevisitNow: b([]string{"n"}, "n", "revisit page now"),
		Behind:     b([]string{"b"}, "b", "due queue / not followed"),

		Sort:    b([]string{"o"}, "o", "sort by next figure"),
		Reverse: b([]string{"O"}, "O", "reverse sort"),
		GroupBy: b([]string{"m"}, "m", "per host/site/egress"),

		PauseNode: b([]string{" "}, "space", "(un)pause node"),

		Yes: b([]string{"y", "enter"}, "y/enter", "confirm"),
		No:  b([]string{"n", "esc"}, "n/esc", "cancel"),

		Run:         b([]string{"enter"}, "enter", "run the command / keep the filter"),
		Cancel:      b([]string{"esc", "ctrl+c"}, "esc/ctrl+c", "close the line (the filter as it was)"),
		Complete:    b([]string{"tab"}, "tab", "complete the command"),
		HistoryBack: b([]string{"up"}, "↑", "previous command"),
		HistoryOn:   b([]string{"down"}, "↓", "next command"),
		CursorLeft:  b([]string{"left"}, "←", "cursor left"),
		CursorRight: b([]string{"right"}, "→", "cursor right"),
		LineStart:   b([]string{"home", "ctrl+a"}, "home/ctrl+a", "start of the line"),
		LineEnd:     b([]string{"end", "ctrl+e"}, "end/ctrl+e", "end of the line"),
		DeleteBack:  b([]string{"backspace"}, "backspace", "delete before the cursor"),
		DeleteOn:    b([]string{"delete"}, "delete", "delete under the cursor"),
		KillStart:   b([]string{"ctrl+u"}, "ctrl+u", "delete to the start"),
		KillEnd:     b([]string{"ctrl+k"}, "ctrl+k", "delete to the end"),
		KillWord:    b([]string{"ctrl+w"}, "ctrl+w", "delete the word before"),
	}
}

// GlobalHelp lists the global keys in help order.
func (k *KeyMap) GlobalHelp() []key.Binding {
	return []key.Binding{k.Help, k.Pause, k.Freeze, k.Filter, k.Command, k.Rebalance,
		k.NextPane, k.PrevPane, k.GotoPane, k.Clear, k.Quit}
}

// NavHelp lists the row navigation keys.
func (k *KeyMap) NavHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// EditHelp lists the keys of a line being typed (":", "/").
func (k *KeyMap) EditHelp() []key.Binding {
	return []key.Binding{k.Run, k.Cancel, k.Complete, k.HistoryBack, k.HistoryOn, k.CursorLeft, k.CursorRight,
		k.LineStart, k.LineEnd, k.DeleteBack, k.DeleteOn, k.KillStart, k.KillEnd, k.KillWord}
}

// DialogHelp lists the keys of a dialog that asks (quit, a rebalance's plan).
func (k *KeyMap) DialogHelp() []key.Binding { return []key.Binding{k.Yes, k.No} }

// Matches reports whether the key named k (tea.KeyMsg.String()) is bound to any of bs.
func Matches(k string, bs ...key.Binding) bool {
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		for _, bk := range b.Keys() {
			if bk == k {
				return true
			}
		}
	}
	return false
}
