package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-runewidth"

	"github.com/crawlconsole/crawlconsole/themes"
)

// listView is the cursor and scroll position of a list pane. Only rows
// [offset, offset+height) are ever rendered, so a frame costs the same with 10 lanes
// or 10,000.
type listView struct {
	cursor, offset, height int
}

// clamp keeps the cursor on one of n rows and the cursor row on screen.
func (l *listView) clamp(n int) {
	if l.cursor >= n {
		l.cursor = n - 1
	}
	if l.cursor < 0 {
		l.cursor = 0
	}
	h := max(l.height, 1)
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+h {
		l.offset = l.cursor - h + 1
	}
	if l.offset > n-h {
		l.offset = n - h
	}
	if l.offset < 0 {
		l.offset = 0
	}
}

// visible returns the half-open range of rows on screen.
func (l *listView) visible(n int) (from, to int) {
	return l.offset, min(n, l.offset+max(l.height, 0))
}

// navigate moves the cursor for a navigation key; it reports whether k was one.
func (l *listView) navigate(km *KeyMap, k string, n int) bool {
	switch {
	case matches(k, km.Up):
		l.cursor--
	case matches(k, km.Down):
		l.cursor++
	case matches(k, km.PageUp):
		l.cursor -= max(l.height-1, 1)
	case matches(k, km.PageDown):
		l.cursor += max(l.height-1, 1)
	case matches(k, km.Top):
		l.cursor = 0
	case matches(k, km.Bottom):
		l.cursor = n - 1
	default:
		return false
	}
	l.clamp(n)
	return true
}

// position is the "row/rows" note shown in the tab bar.
func (l *listView) position(n int) string {
	if n == 0 {
		return "0/0"
	}
	return strconv.Itoa(l.cursor+1) + "/" + strconv.Itoa(n)
}

// cellWidth is how many terminal cells s takes. Rows are mostly ASCII (hosts, URLs,
// figures), which is one cell a byte; only other text pays for grapheme analysis,
// which would otherwise dominate a frame.
// A styled string (a detail line built of rendered parts) is measured without its
// escape sequences, which take no cells.
func cellWidth(s string) int {
	wide := false
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			return ansi.StringWidth(s)
		}
		wide = wide || s[i] >= 0x80
	}
	if wide {
		return runewidth.StringWidth(s)
	}
	return len(s)
}

// truncate cuts s to w cells, ending in "…" (keeping a styled string's escape
// sequences whole).
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	wide := false
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			return ansi.Truncate(s, w, "…")
		}
		wide = wide || s[i] >= 0x80
	}
	if wide {
		return runewidth.Truncate(s, w, "…")
	}
	return s[:w-1] + "…"
}

// fit pads or truncates s to exactly w cells (with "…" when cut).
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := cellWidth(s)
	if sw > w {
		return truncate(s, w)
	}
	return s + spaces(w-sw)
}

// fitRight right-aligns s in w cells.
func fitRight(s string, w int) string {
	sw := cellWidth(s)
	if sw > w {
		return truncate(s, w)
	}
	return spaces(w-sw) + s
}

const blanks = "                                                                                                                                "

// spaces returns n spaces without allocating for the usual short runs.
func spaces(n int) string {
	if n <= len(blanks) {
		return blanks[:max(n, 0)]
	}
	return strings.Repeat(" ", n)
}

// egressWidth is the width of an EGRESS column that fits every name in names (the
// names are short labels like "egress-a" or "bind:127.0.0.2", within reason).
func egressWidth[T any](items []T, name func(*T) string) int {
	return nameWidth(items, name, 6, 21)
}

// nodeWidth is the width of a NODE column (M4) that fits every worker name in items,
// 0 when none runs on a worker (a single-process crawl: no column).
func nodeWidth[T any](items []T, name func(*T) string) int {
	for i := range items {
		if name(&items[i]) != "" {
			return nameWidth(items, name, 4, 16)
		}
	}
	return 0
}

// nameWidth is the width of a column of names: the widest, within [lo, hi].
func nameWidth[T any](items []T, name func(*T) string, lo, hi int) int {
	w := lo
	for i := range items {
		w = max(w, cellWidth(name(&items[i])))
	}
	return min(w, hi)
}

// column is one table column: its title, width and alignment.
type column struct {
	title string
	width int // 0: takes the remaining width
	right bool
}

// layoutColumns gives the flexible column(s) what the fixed ones leave of width.
// The two leading cells are the selection marker.
func layoutColumns(cols []column, width int) []column {
	out := append([]column(nil), cols...)
	fixed, flex := 2, 0
	for _, c := range out {
		fixed += c.width + 1
		if c.width == 0 {
			flex++
		}
	}
	if flex > 0 {
		each := max((width-fixed)/flex, 4)
		for i := range out {
			if out[i].width == 0 {
				out[i].width = each
			}
		}
	}
	return out
}

// header renders the column titles.
func headerRow(st *themes.Styles, cols []column, width int) string {
	var b strings.Builder
	b.WriteString("  ")
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		if c.right {
			b.WriteString(fitRight(c.title, c.width))
		} else {
			b.WriteString(fit(c.title, c.width))
		}
	}
	return st.ColHeader.Render(fit(b.String(), width))
}

// tableRow renders one row's cells; accent, when set, styles the cell at index
// accentCol (e.g. a lane status). Selected rows get the glyph and the selection
// style over the whole row, so the selection shows with or without colour.
func tableRow(st *themes.Styles, cols []column, cells []string, width int, selected bool, accentCol int, accent *lipgloss.Style) string {
	return styledRow(st, cols, cells, width, selected, func(i int) *lipgloss.Style {
		if i == accentCol {
			return accent
		}
		return nil
	})
}

// styledRow is tableRow with any number of accented cells: accent(i), when not nil,
// styles cell i of an unselected row (the Nodes pane: a worker's state and a late
// heartbeat).
func styledRow(st *themes.Styles, cols []column, cells []string, width int, selected bool, accent func(i int) *lipgloss.Style) string {
	var b strings.Builder
	b.Grow(width + 16)
	if selected {
		b.WriteString(themes.SelectionGlyph + " ")
	} else {
		b.WriteString("  ")
	}
	used := 2
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
			used++
		}
		cell := ""
		if i < len(cells) {
			cell = cells[i]
		}
		if c.right {
			cell = fitRight(cell, c.width)
		} else {
			cell = fit(cell, c.width)
		}
		used += c.width
		if !selected {
			if a := accent(i); a != nil {
				cell = a.Render(cell)
			}
		}
		b.WriteString(cell)
	}
	if used < width {
		b.WriteString(spaces(width - used))
	}
	if selected {
		return st.Selected.Render(b.String())
	}
	return b.String()
}
