package pane

import (
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/themes"
)

// Rows is what every list pane over one slice of data has alike: the indexes of
// the data rows the filter lets through, the filter, and the cursor over them,
// which a new snapshot or a new filter leaves on the row it was on (found again by
// its key). The pane says how many data rows there are, what identifies one and
// which pass the filter (NewRows); Rows does the rest.
type Rows[K comparable] struct {
	// Index holds the indexes into the data of the rows that pass the filter, in
	// data order.
	Index  []int
	Filter Filter
	List   List

	count func() int
	key   func(i int) K
	match func(f Filter, i int) bool
}

// NewRows is the rows of a pane's data: count is how many data rows there are now
// (0 while there is no data), key(i) what keeps the cursor on data row i across
// snapshots, match whether data row i passes an active filter.
func NewRows[K comparable](count func() int, key func(i int) K, match func(f Filter, i int) bool) Rows[K] {
	return Rows[K]{count: count, key: key, match: match}
}

// Len is how many rows pass the filter.
func (r *Rows[K]) Len() int { return len(r.Index) }

// At is the data index of the row under the cursor; false when no row is listed.
func (r *Rows[K]) At() (int, bool) { return r.List.Row(r.Index) }

// Selected is the key of the row under the cursor; false when no row is listed.
func (r *Rows[K]) Selected() (K, bool) {
	if i, ok := r.At(); ok {
		return r.key(i), true
	}
	var zero K
	return zero, false
}

// Why is the note of a list with no row listed: empty when the data has no row
// or no filter is set, else noMatch (the filter hides every row).
func (r *Rows[K]) Why(empty, noMatch string) string {
	if r.Filter.Active() && r.count() > 0 {
		return noMatch
	}
	return empty
}

// Refilter lists again the data rows that pass the filter.
func (r *Rows[K]) Refilter() {
	r.Index = r.Index[:0]
	active := r.Filter.Active()
	for i := range r.count() {
		if !active || r.match(r.Filter, i) {
			r.Index = append(r.Index, i)
		}
	}
	r.List.Clamp(len(r.Index))
}

// Reselect puts the cursor on the row keyed k, when it is listed (else the cursor
// stays where it was, on the next row).
func (r *Rows[K]) Reselect(k K) {
	r.List.Reselect(r.Index, func(i int) bool { return r.key(i) == k })
}

// Change runs change, which replaces the data (a new snapshot), then lists the
// rows again with the cursor on the row it was on.
func (r *Rows[K]) Change(change func()) {
	Keep(r.Selected, func() {
		change()
		r.Refilter()
	}, r.Reselect)
}

// SetFilter sets the filter, keeping the cursor on its row when that still passes.
func (r *Rows[K]) SetFilter(f Filter) { r.Change(func() { r.Filter = f }) }

// SetHeight sets how many rows the screen has room for.
func (r *Rows[K]) SetHeight(h int) {
	r.List.Height = h
	r.List.Clamp(len(r.Index))
}

// Navigate moves the cursor for a navigation key; it reports whether k was one.
func (r *Rows[K]) Navigate(km *KeyMap, k string) bool { return r.List.Navigate(km, k, len(r.Index)) }

// Click puts the cursor on the row clicked, row being the pane row of the click and
// first the pane row of the first listed row; a click above the list does nothing.
func (r *Rows[K]) Click(row, first int) {
	if row >= first {
		r.List.Cursor = r.List.Offset + row - first
		r.List.Clamp(len(r.Index))
	}
}

// Handle moves the cursor for a navigation key or a click, first being the pane
// row of the first listed row; it reports whether msg was one of them.
func (r *Rows[K]) Handle(km *KeyMap, msg tea.Msg, first int) bool {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return r.Navigate(km, msg.String())
	case ClickMsg:
		r.Click(msg.Row, first)
		return true
	}
	return false
}

// Position is the "row/rows" note shown in the tab bar.
func (r *Rows[K]) Position() string { return r.List.Position(len(r.Index)) }

// PositionIf is Position for a pane that has a list only while shown is true
// (its data came): "" until then.
func (r *Rows[K]) PositionIf(shown bool) string {
	if !shown {
		return ""
	}
	return r.Position()
}

// WriteTable writes a plain table: its header row, then the rows on screen, the
// cells of data row i being cells(i), or the note none when no row is listed.
func (r *Rows[K]) WriteTable(b *strings.Builder, st *themes.Styles, cols []Column, width int, none string, cells func(i int) []string) {
	b.WriteString(HeaderRow(st, cols, width))
	r.WriteBody(b, st, width, none, func(i int, selected bool) string {
		return TableRow(st, cols, cells(i), width, selected, -1, nil)
	})
}

// WriteBody writes the rows on screen below a table's header, each after a
// newline, row(i, selected) rendering data row i; with no row listed it writes
// the muted note none instead (a NoMatch, or why the table is empty).
func (r *Rows[K]) WriteBody(b *strings.Builder, st *themes.Styles, width int, none string, row func(i int, selected bool) string) {
	r.List.WriteBody(b, st, width, len(r.Index), none, func(at int, selected bool) string { return row(r.Index[at], selected) })
}

// WriteBody writes the rows of n on screen below a table's header, each after a
// newline, row(r, selected) rendering row r; with n 0 it writes the muted note
// none instead.
func (l *List) WriteBody(b *strings.Builder, st *themes.Styles, width, n int, none string, row func(r int, selected bool) string) {
	if n == 0 {
		b.WriteString("\n" + Note(st, none, width))
		return
	}
	from, to := l.Visible(n)
	for r := from; r < to; r++ {
		b.WriteString("\n")
		b.WriteString(row(r, r == l.Cursor))
	}
}

// Keep runs change, which alters what a list shows (a new snapshot, a new filter,
// a new grouping), and puts the cursor back on the row it was on: selected names
// that row before the change, reselect finds it after. With no row selected
// before, the cursor stays where change left it.
func Keep[K any](selected func() (K, bool), change func(), reselect func(K)) {
	k, had := selected()
	change()
	if had {
		reselect(k)
	}
}

// Empty is the whole view of a pane with nothing to show: its title as a column
// header and, muted below it, why there is nothing (and what would give it
// something).
func Empty(st *themes.Styles, title, why string, width int) string {
	return st.ColHeader.Render(Fit("  "+title, width)) + "\n" + Note(st, why, width)
}

// Note is a muted line of a table in place of its rows: why it is empty, or that
// the filter hides every row (NoMatch).
func Note(st *themes.Styles, msg string, width int) string {
	return st.Muted.Render(Fit("  "+msg, width))
}

// NoMatch is the note of a table whose every row the filter hides, naming one row
// as what: `no site matches the filter "x"`.
func NoMatch(what string, f Filter) string {
	return "no " + what + " matches the filter " + strconv.Quote(f.String())
}
