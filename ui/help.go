package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/ui/commands"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// helpOverlay is the ? screen: every key of the keymap (global, navigation, each
// pane's) and every ":" command, generated from the same bindings and command
// registry that drive the console, and searchable with "/".
type helpOverlay struct {
	search    lineInput
	searching bool
	offset    int
}

// helpEntry is one line of the overlay: a section title (key == "") or a key/usage
// with its description.
type helpEntry struct {
	key, desc string
}

func (m *Model) openHelp() {
	m.focus = focusHelp
	m.help.searching = false
	m.help.search.set("")
	m.help.offset = 0
}

// helpEntries lists what the overlay shows, filtered by the search text.
func (m *Model) helpEntries() []helpEntry {
	km := m.c.Keys
	var out []helpEntry
	q := strings.ToLower(m.help.search.String())
	section := func(title string, items []helpEntry) {
		var keep []helpEntry
		for _, it := range items {
			if q == "" || strings.Contains(strings.ToLower(it.key+" "+it.desc+" "+title), q) {
				keep = append(keep, it)
			}
		}
		if len(keep) == 0 {
			return
		}
		out = append(out, helpEntry{desc: title})
		out = append(out, keep...)
	}
	fromBindings := func(bs []key.Binding) []helpEntry {
		var es []helpEntry
		for _, b := range bs {
			if m.c.ReadOnly && km.IsControl(b) {
				continue // a viewer is not offered what it would be refused
			}
			h := b.Help()
			es = append(es, helpEntry{key: h.Key, desc: h.Desc})
		}
		return es
	}
	if m.c.ReadOnly && q == "" {
		out = append(out, helpEntry{desc: "Read-only session: the keys and commands that change the crawl are left out"})
	}
	section("Global keys", fromBindings(km.GlobalHelp()))
	section("Moving in a pane", fromBindings(km.NavHelp()))
	for t, i := range m.shown {
		p := m.panes[i]
		var bs []key.Binding
		for _, group := range p.FullHelp() {
			for _, b := range group {
				if !containsBinding(km.NavHelp(), b) {
					bs = append(bs, b)
				}
			}
		}
		section(p.Title()+" pane ("+string(rune('1'+t))+")", fromBindings(bs))
	}
	var cmds []helpEntry
	for _, c := range commands.Offered(console{m}) {
		cmds = append(cmds, helpEntry{key: ":" + c.Usage(), desc: c.Help})
	}
	section("Commands (tab completes)", cmds)
	section("Typing a : command or / filter", fromBindings(km.EditHelp()))
	section("In a dialog (quit, rebalance)", fromBindings(km.DialogHelp()))
	return out
}

func containsBinding(bs []key.Binding, b key.Binding) bool {
	for _, x := range bs {
		if x.Help() == b.Help() {
			return true
		}
	}
	return false
}

func (m *Model) helpKey(msg tea.KeyMsg) tea.Cmd {
	h := &m.help
	k := msg.String()
	km := m.c.Keys
	if h.searching {
		switch {
		case pane.Matches(k, km.Run):
			h.searching = false
		case pane.Matches(k, km.Cancel):
			h.searching = false
			h.search.set("")
		default:
			if h.search.update(km, msg) {
				h.offset = 0
			}
		}
		return nil
	}
	switch {
	case k == "esc" || pane.Matches(k, km.Help, km.Quit):
		m.focus = focusPane
	case pane.Matches(k, km.Filter):
		h.searching = true
	case pane.Matches(k, km.Up):
		h.offset = max(h.offset-1, 0)
	case pane.Matches(k, km.Down):
		h.offset++
	case pane.Matches(k, km.PageUp):
		h.offset = max(h.offset-10, 0)
	case pane.Matches(k, km.PageDown):
		h.offset += 10
	case pane.Matches(k, km.Top):
		h.offset = 0
	}
	return nil
}

// view renders the overlay in height lines: one column, or two side by side when
// the terminal is wide enough, scrolled by offset.
func (h *helpOverlay) view(m *Model, height int) string {
	st := m.c.Styles
	entries := m.helpEntries()
	title := " Help: keys and commands"
	if q := h.search.String(); q != "" {
		title += " matching " + `"` + q + `"`
	}
	rows := max(height-1, 1)
	cols := 1
	if m.width >= 100 {
		cols = 2
	}
	colW := m.width / cols
	// The key column fits the keys of usual length; a longer one (a command's full
	// usage) takes room from its own description only, not from every line's.
	const usualKey = 22
	keyW := 0
	for _, e := range entries {
		if w := pane.CellWidth(e.key); e.key != "" && w <= usualKey {
			keyW = max(keyW, w)
		}
	}
	keyW = min(keyW, colW/2)
	cell := func(col []helpEntry, i int) string {
		if i >= len(col) {
			return strings.Repeat(" ", colW)
		}
		e := col[i]
		if e.key == "" {
			return st.ColHeader.Render(pane.Fit(" "+e.desc, colW))
		}
		kw := min(max(keyW, pane.CellWidth(e.key)), max(colW*2/3, keyW))
		return "   " + st.HelpKey.Render(pane.Fit(e.key, kw)) + "  " +
			st.HelpDesc.Render(pane.Fit(e.desc, max(colW-kw-5, 1)))
	}
	// Two columns break at a section boundary when one fits.
	split := len(entries)
	if cols == 2 {
		split = min(rows, len(entries))
		for i := split; i > 0; i-- {
			if entries[i-1].key == "" { // entries[i-1] starts a section
				if len(entries)-(i-1) <= rows || i-1 >= rows/2 {
					split = i - 1
				}
				break
			}
		}
	}
	left, right := entries[:split], entries[split:]
	lines := max(len(left), len(right))
	h.offset = min(h.offset, max(lines-rows, 0))
	var b strings.Builder
	b.WriteString(st.DialogTitle.Render(pane.Fit(title, m.width)))
	if len(entries) == 0 {
		b.WriteString("\n" + st.Muted.Render("   nothing matches"))
	}
	for r := h.offset; r < lines && r < h.offset+rows; r++ {
		b.WriteString("\n")
		b.WriteString(cell(left, r))
		if cols == 2 {
			b.WriteString(cell(right, r))
		}
	}
	return b.String()
}
