package pane

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-runewidth"

	"github.com/crawlconsole/crawlconsole/themes"
)

// List is the cursor and scroll position of a list pane. Only rows
// [offset, offset+height) are ever rendered, so a frame costs the same with 10 lanes
// or 10,000.
type List struct {
	Cursor, Offset, Height int
}

// Clamp keeps the cursor on one of n rows and the cursor row on screen.
func (l *List) Clamp(n int) {
	if l.Cursor >= n {
		l.Cursor = n - 1
	}
	if l.Cursor < 0 {
		l.Cursor = 0
	}
	h := max(l.Height, 1)
	if l.Cursor < l.Offset {
		l.Offset = l.Cursor
	}
	if l.Cursor >= l.Offset+h {
		l.Offset = l.Cursor - h + 1
	}
	if l.Offset > n-h {
		l.Offset = n - h
	}
	if l.Offset < 0 {
		l.Offset = 0
	}
}

// Row is the index in the pane's data of the row under the cursor, for a list whose
// rows are indexes into that data (the rows a filter let through); false when the
// list is empty.
func (l *List) Row(rows []int) (int, bool) {
	if l.Cursor < 0 || l.Cursor >= len(rows) {
		return 0, false
	}
	return rows[l.Cursor], true
}

// Reselect puts the cursor back on the row whose data is, by same, the one it was on
// before the data changed under it (a new snapshot); when that one is gone, the
// cursor stays where it was.
func (l *List) Reselect(rows []int, same func(i int) bool) {
	for r, i := range rows {
		if same(i) {
			l.Cursor = r
			break
		}
	}
	l.Clamp(len(rows))
}

// Visible returns the half-open range of rows on screen.
func (l *List) Visible(n int) (from, to int) {
	return l.Offset, min(n, l.Offset+max(l.Height, 0))
}

// Navigate moves the cursor for a navigation key; it reports whether k was one.
func (l *List) Navigate(km *KeyMap, k string, n int) bool {
	switch {
	case Matches(k, km.Up):
		l.Cursor--
	case Matches(k, km.Down):
		l.Cursor++
	case Matches(k, km.PageUp):
		l.Cursor -= max(l.Height-1, 1)
	case Matches(k, km.PageDown):
		l.Cursor += max(l.Height-1, 1)
	case Matches(k, km.Top):
		l.Cursor = 0
	case Matches(k, km.Bottom):
		l.Cursor = n - 1
	default:
		return false
	}
	l.Clamp(n)
	return true
}

// Position is the "row/rows" note shown in the tab bar.
func (l *List) Position(n int) string {
	if n == 0 {
		return "0/0"
	}
	return strconv.Itoa(l.Cursor+1) + "/" + strconv.Itoa(n)
}

// CellWidth is how many terminal cells s takes. Rows are mostly ASCII (hosts, URLs,
// figures), which is one cell a byte; only other text pays for grapheme analysis,
// which would otherwise dominate a frame.
// A styled string (a detail line built of rendered parts) is measured without its
// escape sequences, which take no cells.
func CellWidth(s string) int {
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

// Fit pads or truncates s to exactly w cells (with "…" when cut).
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := CellWidth(s)
	if sw > w {
		return truncate(s, w)
	}
	return s + Spaces(w-sw)
}

// FitRight right-aligns s in w cells.
func FitRight(s string, w int) string {
	sw := CellWidth(s)
	if sw > w {
		return truncate(s, w)
	}
	return Spaces(w-sw) + s
}

const blanks = "                                                                                                                                "

// Spaces returns n spaces without allocating for the usual short runs.
func Spaces(n int) string {
	if n <= len(blanks) {
		return blanks[:max(n, 0)]
	}
	return strings.Repeat(" ", n)
}

// EgressWidth is the width of an EGRESS column that fits every name in names (the
// names are short labels like "egress-a" or "bind:127.0.0.2", within reason).
func EgressWidth[T any](items []T, name func(*T) string) int {
	return NameWidth(items, name, 6, 21)
}

// NodeWidth is the width of a NODE column (M4) that fits every worker name in items,
// 0 when none runs on a worker (a single-process crawl: no column).
func NodeWidth[T any](items []T, name func(*T) string) int {
	for i := range items {
		if name(&items[i]) != "" {
			return NameWidth(items, name, 4, 16)
		}
	}
	return 0
}

// NameWidth is the width of a column of names: the widest, within [lo, hi].
func NameWidth[T any](items []T, name func(*T) string, lo, hi int) int {
	w := lo
	for i := range items {
		w = max(w, CellWidth(name(&items[i])))
	}
	return min(w, hi)
}

// Column is one table column: its title, width and alignment.
type Column struct {
	Title string
	Width int // 0: takes the remaining width
	Right bool
}

// LayoutColumns gives the flexible column(s) what the fixed ones leave of width.
// The two leading cells are the selection marker.
func LayoutColumns(cols []Column, width int) []Column {
	out := append([]Column(nil), cols...)
	fixed, flex := 2, 0
	for _, c := range out {
		fixed += c.Width + 1
		if c.Width == 0 {
			flex++
		}
	}
	if flex > 0 {
		each := max((width-fixed)/flex, 4)
		for i := range out {
			if out[i].Width == 0 {
				out[i].Width = each
			}
		}
	}
	return out
}

// HeaderRow renders the column titles.
func HeaderRow(st *themes.Styles, cols []Column, width int) string {
	var b strings.Builder
	b.WriteString("  ")
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		if c.Right {
			b.WriteString(FitRight(c.Title, c.Width))
		} else {
			b.WriteString(Fit(c.Title, c.Width))
		}
	}
	return st.ColHeader.Render(Fit(b.String(), width))
}

// TableRow renders one row's cells; accent, when set, styles the cell at index
// accentCol (e.g. a lane status). Selected rows get the glyph and the selection
// style over the whole row, so the selection shows with or without colour.
func TableRow(st *themes.Styles, cols []Column, cells []string, width int, selected bool, accentCol int, accent *lipgloss.Style) string {
	return StyledRow(st, cols, cells, width, selected, func(i int) *lipgloss.Style {
		if i == accentCol {
			return accent
		}
		return nil
	})
}

// StyledRow is TableRow with any number of accented cells: accent(i), when not nil,
// styles cell i of an unselected row (the Nodes pane: a worker's state and a late
// heartbeat).
func StyledRow(st *themes.Styles, cols []Column, cells []string, width int, selected bool, accent func(i int) *lipgloss.Style) string {
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
		if c.Right {
			cell = FitRight(cell, c.Width)
		} else {
			cell = Fit(cell, c.Width)
		}
		used += c.Width
		if !selected {
			if a := accent(i); a != nil {
				cell = a.Render(cell)
			}
		}
		b.WriteString(cell)
	}
	if used < width {
		b.WriteString(Spaces(width - used))
	}
	if selected {
		return st.Selected.Render(b.String())
	}
	return b.String()
}
