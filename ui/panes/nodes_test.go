package panes

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/crawlconsole/crawlconsole/engine"
)

// The Nodes pane's total rate is the live workers': a dead one's last heartbeat
// kept counting ("2 active, 1 dead · 2.6 pages/s" while the live ones did 1.4).
func TestNodesTotalRateLeavesTheDeadOut(t *testing.T) {
	p := &nodesPane{c: testCommon(), width: 160, nodes: []engine.Node{
		{Name: "w1", State: engine.NodeActive, PagesPerSec: 0.9},
		{Name: "w2", State: engine.NodeActive, PagesPerSec: 0.5},
		{Name: "w3", State: engine.NodeDead, PagesPerSec: 1.2},
	}}
	if got := ansi.Strip(p.summary()); !strings.Contains(got, "1.4 pages/s") {
		t.Errorf("summary %q, want the live workers' 1.4 pages/s", got)
	}
}
