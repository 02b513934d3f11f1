package panes

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// A click on the column header of the Lanes or Groups pane leaves the cursor where
// it was, scrolled or not; a click on a row selects that row.
func TestClickOnTheHeaderKeepsTheSelection(t *testing.T) {
	snap := &view.Snapshot{At: time.Unix(0, 0)}
	for i := 1; i <= 12; i++ {
		host := fmt.Sprintf("h%d.test", i)
		snap.Lanes = append(snap.Lanes, view.Lane{ID: i, Egress: "direct", Hosts: []string{host}})
		snap.Groups = append(snap.Groups, view.Group{Lane: i, Egress: "direct", Hosts: []view.HostRef{{Host: host, Tasks: 1}}})
	}
	c := testCommon()
	down := func(p pane.Pane, n int) {
		for range n {
			p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'j'}})
		}
	}
	lp := newLanesPane(c).(*lanesPane)
	lp.SetSize(120, 6)
	lp.SetSnapshot(snap)
	down(lp, 8)
	before, _ := lp.selected()
	lp.Update(pane.ClickMsg{Row: 0})
	if after, _ := lp.selected(); after.ID != before.ID {
		t.Errorf("Lanes: a click on the header moved the cursor from lane %d to lane %d", before.ID, after.ID)
	}
	lp.Update(pane.ClickMsg{Row: 1})
	if first, _ := lp.selected(); first.ID != lp.lanes[lp.rows.Index[lp.rows.List.Offset]].ID {
		t.Errorf("Lanes: a click on the first shown row selected lane %d", first.ID)
	}
	gp := newGroupsPane(c).(*groupsPane)
	gp.SetSize(120, 6)
	gp.SetSnapshot(snap)
	down(gp, 8)
	cur := gp.list.Cursor
	gp.Update(pane.ClickMsg{Row: 0})
	if gp.list.Cursor != cur {
		t.Errorf("Groups: a click on the header moved the cursor from row %d to row %d", cur, gp.list.Cursor)
	}
}
