package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/fake"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// distributed is the fake crawl of four workers the Nodes tests use: worker-1
// active, worker-2 active with a late heartbeat, worker-3 paused, worker-4 dead.
var distributed = fake.Config{Workers: 4}

func TestNodesPaneOnlyOnADistributedCrawl(t *testing.T) {
	t.Run("single process", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.mustNotShow("Nodes", "NODE")
		h.press("7")
		h.mustShow("no pane 7 (have 1-6)", "[1 Lanes]")
		h.press("shift+tab")
		h.mustShow("[6 Revisit]")
		h.press("tab")
		h.mustShow("[1 Lanes]")
		h.press("?")
		h.mustNotShow("Nodes pane", "(un)pause node", ":pause node", ":resume node")
	})
	t.Run("distributed", func(t *testing.T) {
		h := newHarnessWith(t, 120, 40, Options{}, distributed)
		h.mustShow(" 7 Nodes ")
		h.press("shift+tab")
		h.mustShow("[7 Nodes]", "4 workers: 2 active, 1 paused, 1 dead")
		h.press("tab")
		h.mustShow("[1 Lanes]")
	})
	t.Run("the last worker leaves", func(t *testing.T) {
		h := newHarnessWith(t, 120, 40, Options{}, distributed)
		h.press("7")
		s := h.ctrl.Snapshot()
		s.Nodes = nil
		h.send(SnapshotMsg{Snapshot: s})
		h.mustShow("[1 Lanes]")
		h.mustNotShow("Nodes")
	})
}

func TestNodesPaneShowsTheWorkers(t *testing.T) {
	h := newHarnessWith(t, 120, 40, Options{}, distributed)
	h.press("7")
	h.mustShow("NODE", "STATE", "HEARTBEAT", "EGRESSES", "LANES", "PG/S", "QUEUE", "HOSTS", "RESULTS", "LATE",
		"! = no heartbeat for 10s")
	rows := []struct {
		node string
		want []string
		late bool
	}{
		{"worker-1", []string{"active", "2s ago", "egress-a, egress-e", "4/8", "12.4", "1,200"}, false},
		{"worker-2", []string{"active", "12s ago !", "egress-b, egress-f", "15.2", "4,717"}, true},
		{"worker-3", []string{"paused", "3s ago", "0.0", "8,234"}, false},
		{"worker-4", []string{"dead", "1m ago !", "0/8", "11,751"}, true},
	}
	for _, r := range rows {
		t.Run(r.node, func(t *testing.T) {
			defer h.use(t)()
			row := h.rowOf(r.node)
			for _, w := range r.want {
				if !strings.Contains(row, w) {
					t.Fatalf("row %q lacks %q", row, w)
				}
			}
			if got := strings.Contains(row, "ago !"); got != r.late {
				t.Fatalf("row %q: late mark %v, want %v", row, got, r.late)
			}
		})
	}
	t.Run("ages follow the master's clock", func(t *testing.T) {
		defer h.use(t)()
		for range 5 {
			h.ctrl.Tick() // live workers keep beating; the dead one does not
		}
		h.refresh()
		if row := h.rowOf("worker-1"); !strings.Contains(row, "2s ago ") || strings.Contains(row, "!") {
			t.Fatalf("a live worker's heartbeat stays fresh: %q", row)
		}
		if row := h.rowOf("worker-4"); !strings.Contains(row, "1m ago !") {
			t.Fatalf("the dead worker ages: %q", row)
		}
	})
	t.Run("seed 003's sizing estimates", func(t *testing.T) {
		defer h.use(t)()
		s := h.ctrl.Snapshot()
		s.Sizing = &view.Sizing{Workers: 3, VPNs: 2}
		h.send(SnapshotMsg{Snapshot: s})
		h.mustShow("needed ≈ 3 workers, 2 VPNs")
		s.Sizing = &view.Sizing{VPNs: 2} // the workers' inputs still unknown
		h.send(SnapshotMsg{Snapshot: s})
		h.mustShow("needed ≈ ? workers, 2 VPNs")
		s.Sizing = &view.Sizing{Workers: 1, VPNs: 1} // a small crawl: one of each
		h.send(SnapshotMsg{Snapshot: s})
		h.mustShow("needed ≈ 1 worker, 1 VPN")
		h.refresh()
	})
	t.Run("late after two of the crawl's heartbeat periods", func(t *testing.T) {
		defer h.use(t)()
		s := h.ctrl.Snapshot()
		s.HeartbeatEvery = time.Second // worker-3's 3s-old beat is late at a 1s period
		h.send(SnapshotMsg{Snapshot: s})
		h.mustShow("! = no heartbeat for 2s")
		if row := h.rowOf("worker-3"); !strings.Contains(row, "ago !") {
			t.Fatalf("a 1s heartbeat period: worker-3's heartbeat is late: %q", row)
		}
		h.refresh()
	})
	t.Run("filter", func(t *testing.T) {
		defer h.use(t)()
		h.filter("dead")
		h.mustShow("worker-4", "1/1")
		h.mustNotShow("worker-1")
		h.filter("zzz")
		h.mustShow(`no node matches the filter "zzz"`)
		h.press("esc")
	})
}

func TestSpacePausesTheSelectedNode(t *testing.T) {
	h := newHarnessWith(t, 120, 40, Options{}, distributed)
	h.press("7", "space") // worker-1, active
	h.mustCall("PauseNode(worker-1,true)")
	h.mustShow("node worker-1 paused")
	if row := h.rowOf("▸"); !strings.Contains(row, "worker-1") || !strings.Contains(row, "paused") {
		t.Fatalf("worker-1 should show paused and stay selected: %q", row)
	}
	h.press("down", "down", "space") // worker-3, paused
	h.mustCall("PauseNode(worker-1,true)", "PauseNode(worker-3,false)")
	h.mustShow("node worker-3 resumed")
	if row := h.rowOf("worker-3"); !strings.Contains(row, "active") {
		t.Fatalf("worker-3 should be active again: %q", row)
	}
	// Its lanes run again too.
	h.press("1")
	if row := h.rowOf("     3 worker-3"); strings.Contains(row, "paused") {
		t.Fatalf("lane 3 on worker-3 still paused: %q", row)
	}

	t.Run("engine error", func(t *testing.T) {
		defer h.use(t)()
		s := h.ctrl.Snapshot()
		s.Nodes = append(s.Nodes, view.Node{Name: "worker-9", State: view.NodeActive, Heartbeat: s.At})
		h.send(SnapshotMsg{Snapshot: s}) // a worker the engine does not know (it just left)
		h.press("7", "end", "space")
		h.mustShow("could not pause node worker-9: worker worker-9: no such worker")
	})
	t.Run("read-only", func(t *testing.T) {
		defer h.use(t)()
		ro := newHarnessWith(t, 120, 40, Options{ReadOnly: true}, distributed)
		ro.press("7", "space")
		ro.mustCall()
		ro.mustShow(pane.ReadOnlyText)
	})
	t.Run("click selects", func(t *testing.T) {
		defer h.use(t)()
		m := newHarnessWith(t, 120, 40, Options{Mouse: true}, distributed)
		m.press("7")
		m.send(tea.MouseMsg{X: 10, Y: 7, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}) // third row
		if row := m.rowOf("▸"); !strings.Contains(row, "worker-3") {
			t.Fatalf("selected row = %q, want worker-3", row)
		}
		m.send(tea.MouseMsg{X: 10, Y: 4, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}) // the column header
		if row := m.rowOf("▸"); !strings.Contains(row, "worker-3") {
			t.Fatalf("a click on the column header moved the selection: %q", row)
		}
	})
}

func TestNodeCommands(t *testing.T) {
	tests := []struct {
		line      string
		wantCalls []string
		show      string
		errText   string
	}{
		{line: "pause node worker-2", wantCalls: []string{"PauseNode(worker-2,true)"}, show: "node worker-2 paused"},
		{line: "resume node WORKER-3", wantCalls: []string{"PauseNode(worker-3,false)"}, show: "node worker-3 resumed"},
		{line: "pause node worker-7", errText: `no node "worker-7" (have worker-1, worker-2, worker-3, worker-4)`},
		{line: "pause node", errText: "usage: :pause | :pause host NAME | :pause lane N | :pause node NAME"},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			h := newHarnessWith(t, 120, 40, Options{}, distributed)
			h.command(tc.line)
			h.mustAnswer(tc.wantCalls, tc.errText, tc.show)
		})
	}
	t.Run("single process", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.command("pause node worker-1")
		h.mustCall()
		h.mustShow("no nodes: this crawl runs in one process")
	})

	completions := []struct {
		typed, want string
		hint        []string
	}{
		{"pause ", "pause ", []string{"pause host", "pause lane", "pause node"}},
		{"pause n", "pause node ", nil},
		{"pause node ", "pause node worker-", []string{"worker-1", "worker-2", "worker-4"}}, // not the paused one
		{"pause node worker-4", "pause node worker-4", nil},
		{"resume node ", "resume node worker-3", nil}, // the paused one
	}
	for _, tc := range completions {
		t.Run("complete "+tc.typed, func(t *testing.T) {
			h := newHarnessWith(t, 120, 40, Options{}, distributed)
			if got := h.complete(tc.typed); got != tc.want {
				t.Fatalf("completed %q to %q, want %q", tc.typed, got, tc.want)
			}
			if strings.Join(h.m.cmdHint, ",") != strings.Join(tc.hint, ",") {
				t.Fatalf("candidates = %q, want %q", h.m.cmdHint, tc.hint)
			}
		})
	}
}

func TestHelpListsTheNodeKeys(t *testing.T) {
	h := newHarnessWith(t, 120, 40, Options{}, distributed)
	h.press("?", "/")
	h.typeText("node")
	h.press("enter")
	km := pane.DefaultKeyMap()
	h.mustShow("Nodes pane (7)", km.PauseNode.Help().Key+"  ", km.PauseNode.Help().Desc,
		":pause node NAME", ":resume node NAME")
}

// TestFilterByNodeName: typing a worker's name after / keeps that worker's lanes
// and groups, not those of worker-10 and worker-11.
func TestFilterByNodeName(t *testing.T) {
	cfg := fake.Config{Workers: 11, Lanes: 30, LanesMax: 40}
	count := func(h *harness, node string) (n int) {
		for _, l := range strings.Split(h.body(), "\n") {
			if strings.Contains(l, " "+node+" ") {
				n++
			}
		}
		return n
	}
	rows := func(h *harness) (n int) {
		for _, l := range strings.Split(h.body(), "\n")[1:] {
			if strings.Contains(l, " worker-") {
				n++
			}
		}
		return n
	}
	for _, pane := range []string{"1", "2"} {
		t.Run("pane "+pane, func(t *testing.T) {
			h := newHarnessWith(t, 120, 40, Options{}, cfg)
			h.press(pane)
			h.filter("worker-1")
			if got, all := count(h, "worker-1"), rows(h); got != 3 || all != 3 {
				t.Fatalf("/worker-1 shows %d rows, %d of them worker-1's; want 3 of 3:\n%s", all, got, h.body())
			}
			h.filter("WORKER-10")
			if got, all := count(h, "worker-10"), rows(h); got != 3 || all != 3 {
				t.Fatalf("/WORKER-10 shows %d rows, %d of them worker-10's; want 3 of 3", all, got)
			}
			h.filter("!worker-1")
			if got, all := count(h, "worker-1"), rows(h); got != 0 || all != 27 {
				t.Fatalf("!worker-1 shows %d rows, %d of them worker-1's; want 27, none", all, got)
			}
			h.filter("worker-")
			if all := rows(h); all != 30 {
				t.Fatalf("/worker- (no node's name) shows %d rows, want all 30", all)
			}
		})
	}
}

// TestGroupsKeepLanesOfTwoWorkersApart: lanes are told apart by worker and ID, so a
// group expanded on one worker does not open a lane with the same ID on another.
func TestGroupsKeepLanesOfTwoWorkersApart(t *testing.T) {
	h := newHarnessWith(t, 120, 40, Options{}, distributed)
	s := h.ctrl.Snapshot()
	s.Groups[1].Lane = s.Groups[0].Lane // lane 1 on worker-1 and on worker-2
	s.Lanes[1].ID = s.Lanes[0].ID
	h.send(SnapshotMsg{Snapshot: s})
	h.press("2", "enter")
	if got := strings.Count(h.body(), "host    "); got != len(s.Groups[0].Hosts) {
		t.Fatalf("expanding worker-1's lane 1 shows %d host rows, want %d:\n%s", got, len(s.Groups[0].Hosts), h.body())
	}
	h.press("down", "down", "down", "down") // worker-2's lane 1
	if row := h.rowOf("▸"); !strings.Contains(row, "worker-2") || !strings.Contains(row, "+") {
		t.Fatalf("worker-2's lane 1 should be selected and closed: %q", row)
	}
}

func TestNodeScreensFitTheTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		for _, keys := range [][]string{{"1"}, {"2", "enter"}, {"7"}, {"7", "G"}, {"?"}} {
			t.Run(fmt.Sprint(size, keys), func(t *testing.T) {
				h := newHarnessWith(t, size[0], size[1], Options{}, fake.Config{Workers: 40, Lanes: 60, LanesMax: 80})
				h.press(keys...)
				h.mustFit(size[0], size[1])
			})
		}
	}
}
