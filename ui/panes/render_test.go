package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// rowOf is the last line of a pane's view that names s (the table's, below the
// lines about the selected row).
func rowOf(v, s string) string {
	row := ""
	for _, line := range strings.Split(ansi.Strip(v), "\n") {
		if strings.Contains(line, s) {
			row = line
		}
	}
	return row
}

// A crawl that renders pages shows each host's renders (failed ones after a
// slash) and their mean time in the Hosts pane, and each lane's renders, those
// running beside its fetches, and their mean time in the Lanes pane; hosts and
// lanes that rendered nothing show a dash; a host's renders of pages that never
// settled are counted (UNSET). A crawl without a browser shows no
// render column.
func TestRenderColumnsInHostsAndLanes(t *testing.T) {
	snap := &view.Snapshot{At: time.Unix(0, 0),
		Render: &view.RenderStats{Running: true, Renders: 31},
		Hosts: &view.HostsView{
			Hosts:  view.HostRowsOf([]view.HostRow{{Name: "spa.test:8080", Fetched: 32}, {Name: "plain.test", Fetched: 40}}),
			Render: map[string]view.RenderHost{"spa.test": {Host: "spa.test", Renders: 30, Failed: 1, Seconds: 10.5, Unsettled: 4}},
		},
		Lanes: []view.Lane{
			{ID: 1, Egress: "direct", Hosts: []string{"spa.test"}, Current: "http://spa.test:8080/a/9", Rendered: 30, Rendering: 2, RenderTime: 10500 * time.Millisecond},
			{ID: 2, Egress: "direct", Hosts: []string{"plain.test"}, Current: "http://plain.test/x"},
		},
	}
	hp := &hostsPane{c: testCommon()}
	hp.SetSize(160, 12)
	hp.SetSnapshot(snap)
	hv := hp.View()
	if h := rowOf(hv, "FETCHED"); !strings.Contains(h, "REND") || !strings.Contains(h, "R-AVG") || !strings.Contains(h, "UNSET") {
		t.Fatalf("hosts header %q lacks the render columns", h)
	}
	if r := rowOf(hv, "spa.test"); !strings.Contains(r, "30/1") || !strings.Contains(r, "350ms") || !strings.HasSuffix(strings.TrimSpace(r), " 4") {
		t.Errorf("spa.test row %q; want 30/1 renders at 350ms, 4 of its pages unsettled", r)
	}
	if r := rowOf(hv, "plain.test"); !strings.HasSuffix(strings.TrimSpace(r), "-") {
		t.Errorf("plain.test row %q; want a dash for no render", r)
	}
	lp := newLanesPane(testCommon()).(*lanesPane)
	lp.SetSize(160, 12)
	lp.SetSnapshot(snap)
	lv := lp.View()
	if r := rowOf(lv, "spa.test:8080/a/9"); !strings.Contains(r, "30+2") || !strings.Contains(r, "350ms") {
		t.Errorf("lane 1 row %q; want 30+2 renders at 350ms", r)
	}
	snap.Render, snap.Hosts.Render = nil, nil
	hp.SetSnapshot(snap)
	lp.SetSnapshot(snap)
	if strings.Contains(hp.View(), "REND") || strings.Contains(lp.View(), "REND") {
		t.Errorf("a crawl that renders nothing shows render columns")
	}
}
