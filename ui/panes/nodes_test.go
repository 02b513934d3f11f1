package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// The Nodes pane's total rate is the live workers': a dead one's last heartbeat
// kept counting ("2 active, 1 dead · 2.6 pages/s" while the live ones did 1.4).
func TestNodesTotalRateLeavesTheDeadOut(t *testing.T) {
	p := &nodesPane{c: testCommon(), width: 160, nodes: []view.Node{
		{Name: "w1", State: view.NodeActive, PagesPerSec: 0.9},
		{Name: "w2", State: view.NodeActive, PagesPerSec: 0.5},
		{Name: "w3", State: view.NodeDead, PagesPerSec: 1.2},
	}}
	if got := ansi.Strip(p.summary()); !strings.Contains(got, "· 1.40 pages/s") {
		t.Errorf("summary %q, want the live workers' 1.40 pages/s", got)
	}
}

// A worker that left gracefully shows as left, its old heartbeat unmarked: it used
// to show as "dead" with the late mark, as a crashed one, though nothing was lost.
func TestNodesShowsALeftWorkerAsLeft(t *testing.T) {
	c := testCommon()
	now := c.Now()
	p := newNodesPane(c).(*nodesPane)
	p.SetSize(160, 10)
	p.SetSnapshot(&view.Snapshot{At: now, HeartbeatEvery: time.Second, Nodes: []view.Node{
		{Name: "w1", State: view.NodeActive, Heartbeat: now},
		{Name: "w2", State: view.NodeLeft, Heartbeat: now.Add(-5 * time.Minute)},
	}})
	view := ansi.Strip(p.View())
	var row string
	for _, line := range strings.Split(view, "\n") {
		if strings.Contains(line, "w2") {
			row = line
		}
	}
	if !strings.Contains(row, "left") || strings.Contains(row, "dead") || strings.Contains(row, lateMark) {
		t.Errorf("the left worker's row %q; want it shown as left, with no late mark", row)
	}
	if got := ansi.Strip(p.summary()); !strings.Contains(got, "1 left") {
		t.Errorf("summary %q, want it to count 1 left", got)
	}
}
