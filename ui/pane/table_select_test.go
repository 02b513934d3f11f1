package pane

import "testing"

// The cursor follows its row when a new snapshot reorders or filters the rows,
// and stays in place when the row is gone.
func TestListReselectFollowsItsRow(t *testing.T) {
	data := []string{"a", "b", "c", "d"}
	l := List{Height: 10}
	rows := []int{0, 1, 2, 3}
	l.Cursor = 2 // "c"
	i, ok := l.Row(rows)
	if !ok || data[i] != "c" {
		t.Fatalf("row under the cursor %d (%v), want c", i, ok)
	}
	rows = []int{3, 2} // filtered and reordered: d, c
	l.Reselect(rows, func(i int) bool { return data[i] == "c" })
	if i, _ := l.Row(rows); data[i] != "c" {
		t.Errorf("after the reorder the cursor is on %s, want c", data[i])
	}
	rows = []int{0} // c filtered out
	l.Reselect(rows, func(i int) bool { return data[i] == "c" })
	if l.Cursor != 0 {
		t.Errorf("cursor %d with one row left, want 0", l.Cursor)
	}
	if _, ok := l.Row(nil); ok {
		t.Error("an empty list has a row under its cursor")
	}
}
