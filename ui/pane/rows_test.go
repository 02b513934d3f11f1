package pane

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/themes"
)

// plainStyles are the default theme's styles without colour, so a view reads as
// text.
func plainStyles(t *testing.T) *themes.Styles {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	th, ok := themes.Lookup(themes.Default)
	if !ok {
		t.Fatal("no default theme")
	}
	return themes.NewStyles(r, th)
}

// names is a list pane's data: rows keyed and filtered by their name.
type names struct {
	data []string
	rows Rows[string]
}

func newNames(data ...string) *names {
	n := &names{data: data}
	n.rows = NewRows(func() int { return len(n.data) }, func(i int) string { return n.data[i] },
		func(f Filter, i int) bool { return f.Match(n.data[i]) })
	n.rows.SetHeight(10)
	n.rows.Refilter()
	return n
}

func (n *names) selected(t *testing.T) string {
	t.Helper()
	k, ok := n.rows.Selected()
	if !ok {
		t.Fatal("no row under the cursor")
	}
	return k
}

// A new snapshot that reorders the data, or a filter, leaves the cursor on the row
// it was on; a row that is gone leaves it where it was.
func TestRowsKeepTheCursorOnItsRow(t *testing.T) {
	n := newNames("alpha", "beta", "gamma", "delta")
	n.rows.Navigate(DefaultKeyMap(), "down")
	n.rows.Navigate(DefaultKeyMap(), "down")
	if got := n.selected(t); got != "gamma" {
		t.Fatalf("two rows down the cursor is on %s, want gamma", got)
	}
	n.rows.Change(func() { n.data = []string{"gamma", "delta", "alpha", "beta"} })
	if got := n.selected(t); got != "gamma" {
		t.Errorf("after a reorder the cursor is on %s, want gamma", got)
	}
	n.rows.SetFilter(ParseFilter("a"))
	if got := n.selected(t); got != "gamma" || n.rows.Position() != "1/4" {
		t.Errorf("filter \"a\": cursor on %s at %s, want gamma at 1/4", got, n.rows.Position())
	}
	n.rows.SetFilter(ParseFilter("ta"))
	if got := n.selected(t); got != "delta" || n.rows.Len() != 2 {
		t.Errorf("filter \"ta\" hides gamma: cursor on %s of %d rows, want delta of 2", got, n.rows.Len())
	}
	n.rows.SetFilter(ParseFilter("zzz"))
	if _, ok := n.rows.Selected(); ok || n.rows.Position() != "0/0" {
		t.Errorf("a filter nothing passes leaves a row selected (%s)", n.rows.Position())
	}
}

// A click selects the row under it; one above the list (a summary, the header)
// changes nothing.
func TestRowsClickSelectsTheRowUnderIt(t *testing.T) {
	n := newNames("a", "b", "c", "d")
	n.rows.Click(4, 2) // the list starts on pane row 2: row 4 is "c"
	if got := n.selected(t); got != "c" {
		t.Errorf("click on pane row 4 selects %s, want c", got)
	}
	n.rows.Click(1, 2)
	if got := n.selected(t); got != "c" {
		t.Errorf("click on the header moved the cursor to %s", got)
	}
	n.rows.Click(40, 2)
	if got := n.selected(t); got != "d" {
		t.Errorf("click below the last row selects %s, want the last, d", got)
	}
}

// The body draws only the rows on screen, the cursor's marked; with no row it is
// the note saying why.
func TestRowsWriteBodyDrawsTheVisibleRowsOrWhyNone(t *testing.T) {
	st := plainStyles(t)
	n := newNames("a", "b", "c", "d", "e")
	n.rows.SetHeight(2)
	n.rows.Navigate(DefaultKeyMap(), "down")
	n.rows.Navigate(DefaultKeyMap(), "down") // "c": scrolled to b, c
	var b strings.Builder
	n.rows.WriteBody(&b, st, 20, "", func(i int, sel bool) string {
		if sel {
			return ">" + n.data[i]
		}
		return " " + n.data[i]
	})
	if got, want := b.String(), "\n b\n>c"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
	n.rows.SetFilter(ParseFilter("x"))
	b.Reset()
	n.rows.WriteBody(&b, st, 40, NoMatch("name", n.rows.Filter), func(int, bool) string { return "row" })
	if got, want := strings.TrimRight(b.String(), " "), "\n  no name matches the filter \"x\""; got != want {
		t.Errorf("body with no row %q, want %q", got, want)
	}
}

// Keep reselects only when a row was selected before the change.
func TestKeepReselectsOnlyASelectedRow(t *testing.T) {
	var got []string
	Keep(func() (string, bool) { return "", false }, func() { got = append(got, "change") }, func(string) { got = append(got, "reselect") })
	Keep(func() (string, bool) { return "a", true }, func() { got = append(got, "change") }, func(k string) { got = append(got, "reselect "+k) })
	if want := "change change reselect a"; strings.Join(got, " ") != want {
		t.Errorf("Keep ran %q, want %q", strings.Join(got, " "), want)
	}
}

// A pane with nothing to show is its title as a header and why, each a full line.
func TestEmptyIsTitleAndWhy(t *testing.T) {
	got := Empty(plainStyles(t), "SITES", "no sites declared", 24)
	if want := "  SITES                 \n  no sites declared     "; got != want {
		t.Errorf("Empty gives %q, want %q", got, want)
	}
}

// An empty table says why: nothing there yet, or the filter hides what is.
func TestRowsWhySaysNothingYetOrFiltered(t *testing.T) {
	n := newNames()
	n.rows.SetFilter(ParseFilter("a"))
	if got := n.rows.Why("nothing yet", "filtered"); got != "nothing yet" {
		t.Errorf("no data, a filter: %q, want nothing yet", got)
	}
	n.rows.Change(func() { n.data = []string{"bob"} })
	if got := n.rows.Why("nothing yet", "filtered"); got != "filtered" {
		t.Errorf("data the filter hides: %q, want filtered", got)
	}
}
