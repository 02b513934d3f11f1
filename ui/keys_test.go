package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func TestPauseKeyTogglesTheCrawl(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.mustShow("RUNNING")
	h.press("p")
	h.mustCall("Pause")
	h.mustShow("PAUSED", "crawl paused")
	h.press("p")
	h.mustCall("Pause", "Resume")
	h.mustShow("RUNNING", "crawl resumed")
}

func TestSpacePausesTheSelectedLane(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("down", "space") // lane 2
	h.mustCall("PauseLane(2,true)")
	if row := h.rowOf("▸"); !strings.Contains(row, "paused") {
		t.Fatalf("lane 2 row should say paused: %q", row)
	}
	h.mustShow("lane 2 paused")
	h.press("space")
	h.mustCall("PauseLane(2,true)", "PauseLane(2,false)")
	h.mustShow("lane 2 resumed")
}

func TestHPausesTheSelectedLanesHost(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("H") // lane 1 fetches from news-00.sandbox.test
	h.mustCall("PauseHost(news-00.sandbox.test,true)")
	h.mustShow("host news-00.sandbox.test paused", "paused hosts 1")
	h.press("H")
	h.mustCall("PauseHost(news-00.sandbox.test,true)", "PauseHost(news-00.sandbox.test,false)")
	h.mustNotShow("paused hosts")
}

func TestNavigationMovesTheSelection(t *testing.T) {
	h := newHarness(t, 80, 24, Options{})
	sel := func() string {
		row := h.rowOf("▸")
		return strings.Fields(row)[1] // lane ID after the glyph
	}
	steps := []struct {
		key, want string
	}{
		{"down", "2"}, {"j", "3"}, {"up", "2"}, {"k", "1"}, {"up", "1"},
		{"end", "12"}, {"home", "1"}, {"G", "12"}, {"g", "1"},
		{"pgdown", "12"}, {"pgup", "1"}, {"ctrl+f", "12"}, {"ctrl+b", "1"},
	}
	for _, s := range steps {
		t.Run(s.key, func(t *testing.T) {
			defer h.use(t)()
			h.press(s.key)
			if got := sel(); got != s.want {
				t.Fatalf("after %s selected lane %s, want %s", s.key, got, s.want)
			}
		})
	}
}

func TestSelectionFollowsTheLaneAcrossSnapshots(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("down", "down") // lane 3
	h.typeText("/")
	h.typeText("blog") // lanes 3, 6, 9, 12
	h.press("enter")
	if row := h.rowOf("▸"); !strings.Contains(row, "blog-02") {
		t.Fatalf("selection should stay on lane 3: %q", row)
	}
	h.refresh()
	if row := h.rowOf("▸"); !strings.Contains(row, "blog-02") {
		t.Fatalf("selection should survive a snapshot: %q", row)
	}
}

func TestFreezeHoldsTheViewWhileTheCrawlRuns(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("f")
	h.mustShow("FROZEN", "view frozen")
	h.ctrl.Pause() // the engine moves on behind the frozen view
	h.refresh()
	h.send(tickMsg{})
	h.mustShow("RUNNING")
	h.mustNotShow("PAUSED")
	h.press("f") // unfreeze pulls a fresh snapshot at once
	h.mustShow("PAUSED", "view live")
	h.mustNotShow("FROZEN")
}

func TestTickPullsASnapshot(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.ctrl.Pause()
	h.mustShow("RUNNING")
	h.send(tickMsg{})
	h.mustShow("PAUSED")
}

func TestSnapshotsAreNotPulledTwiceAtOnce(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	_, first := h.m.Update(tickMsg{})
	_, second := h.m.Update(tickMsg{})
	if first == nil || second == nil {
		t.Fatal("every tick must re-arm")
	}
	if !h.m.fetching {
		t.Fatal("a tick should start a snapshot pull")
	}
	// The second tick only re-arms: its batch has one Cmd, the first had two.
	if n := batchLen(first); n != 2 {
		t.Fatalf("first tick batch = %d cmds, want tick+fetch", n)
	}
	if n := batchLen(second); n != 1 {
		t.Fatalf("second tick while a pull is in flight = %d cmds, want the tick only", n)
	}
}

func batchLen(c tea.Cmd) int {
	if b, ok := c().(tea.BatchMsg); ok {
		n := 0
		for _, x := range b {
			if x != nil {
				n++
			}
		}
		return n
	}
	return 1
}

func TestPaneSwitching(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	tests := []struct {
		key, want string
	}{
		{"tab", "[2 Groups]"}, {"tab", "[3 Log]"}, {"tab", "[4 DNS]"}, {"tab", "[5 Egress]"}, {"tab", "[6 Revisit]"},
		{"tab", "[1 Lanes]"}, {"shift+tab", "[6 Revisit]"}, {"1", "[1 Lanes]"}, {"2", "[2 Groups]"}, {"3", "[3 Log]"},
		{"4", "[4 DNS]"}, {"5", "[5 Egress]"}, {"6", "[6 Revisit]"}, {"3", "[3 Log]"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			defer h.use(t)()
			h.press(tc.key)
			if !strings.Contains(h.line(2), tc.want) {
				t.Fatalf("tab bar %q lacks %q", h.line(2), tc.want)
			}
		})
	}
	t.Run("no such pane", func(t *testing.T) {
		defer h.use(t)()
		h.press("9")
		h.mustShow("no pane 9 (have 1-6)", "[3 Log]")
	})
}

func TestFilterRows(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	// lanes checks how many lane rows show (a lane row holds its URL), when saying
	// what was done.
	lanes := func(want int, when string) {
		h.t.Helper()
		n := 0
		for _, l := range strings.Split(h.view(), "\n") {
			if strings.Contains(l, "http://") {
				n++
			}
		}
		if n != want {
			h.t.Fatalf("%s: %d lanes, want %d", when, n, want)
		}
	}
	lanes(12, "lanes shown")
	h.press("/")
	h.typeText("social")
	lanes(4, "live filter social")
	h.press("enter")
	h.mustShow(`filter "social"`)
	t.Run("inverted", func(t *testing.T) {
		defer h.use(t)()
		h.press("/")
		h.press("home")
		h.typeText("!")
		h.press("enter")
		lanes(8, "!social")
		h.mustNotShow("social-01")
	})
	t.Run("esc in the input restores the previous filter", func(t *testing.T) {
		defer h.use(t)()
		h.press("/", "ctrl+u")
		h.typeText("zzz")
		h.mustShow("no lane matches")
		h.press("esc")
		lanes(8, "after esc")
	})
	t.Run("q typed in the filter does not quit", func(t *testing.T) {
		defer h.use(t)()
		h.press("/", "q")
		if h.quit || h.m.dialog != nil {
			t.Fatal("q in the filter input must be text, not quit")
		}
		h.press("esc")
	})
	t.Run("esc in the pane clears it", func(t *testing.T) {
		defer h.use(t)()
		h.press("esc")
		lanes(12, "after clearing")
		h.mustShow("filter cleared")
	})
	t.Run("filters are per pane", func(t *testing.T) {
		defer h.use(t)()
		h.press("2")
		h.filter("lane 7")
		h.mustShow("news-06.sandbox.test")
		h.mustNotShow("news-03.sandbox.test")
		h.press("1")
		lanes(12, "lanes pane should be unfiltered")
	})
}

func TestRebalance(t *testing.T) {
	t.Run("apply on y", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("r")
		h.mustCall("PlanRebalance")
		h.mustShow("Rebalance lanes over egresses", "lane 2", "egress-b -> egress-c",
			"move 1 lanes; spread 7.0s -> 1.0s", "34.0s  ->    3 lanes    30.0s")
		h.press("y")
		h.mustCall("PlanRebalance", "ApplyRebalance(1 moves)")
		h.mustShow("rebalanced: move 1 lanes")
		row := h.rowOf("social-01.sandbox.test/")
		if !strings.Contains(row, "egress-c") {
			t.Fatalf("lane 2 should now leave from egress-c: %q", row)
		}
	})
	t.Run("enter applies too", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("r", "enter")
		h.mustCall("PlanRebalance", "ApplyRebalance(1 moves)")
	})
	for _, k := range []string{"n", "esc", "ctrl+c"} {
		t.Run("cancel on "+k, func(t *testing.T) {
			h := newHarness(t, 120, 40, Options{})
			h.press("r", k)
			h.mustCall("PlanRebalance")
			h.mustNotShow("Rebalance lanes over egresses")
			if h.quit {
				t.Fatal("cancelling a rebalance must not quit")
			}
		})
	}
	t.Run("nothing to move", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.ctrl.SetPlan(view.RebalancePlan{Summary: "already even"})
		h.press("r")
		h.mustShow("rebalance: nothing to move (already even)")
		if h.m.dialog != nil {
			t.Fatal("no dialog for an empty plan")
		}
	})
	t.Run("many moves are cut to fit", func(t *testing.T) {
		h := newHarness(t, 80, 24, Options{})
		var p view.RebalancePlan
		for i := range 40 {
			p.Moves = append(p.Moves, view.LaneMove{Lane: i + 1, From: "egress-a", To: "egress-b", Cost: 1})
		}
		p.Before = []view.EgressLoad{{Egress: "egress-a", Lanes: 40}, {Egress: "egress-b"}}
		p.After = []view.EgressLoad{{Egress: "egress-a"}, {Egress: "egress-b", Lanes: 40}}
		p.Summary = "move 40 lanes"
		h.ctrl.SetPlan(p)
		h.press("r")
		h.mustShow("… and ")
		if n := strings.Count(h.view(), "\n"); n != 23 {
			t.Fatalf("screen has %d lines, want 24", n+1)
		}
		mustShowWholeDialog(t, h)
	})
	t.Run("many egresses are cut to fit", func(t *testing.T) {
		// A crawl through many proxies: more egresses than the screen has rows.
		for _, height := range []int{24, 40} {
			h := newHarness(t, 120, height, Options{})
			var p view.RebalancePlan
			for i := range 60 {
				e := fmt.Sprintf("proxy-%02d", i)
				p.Moves = append(p.Moves, view.LaneMove{Lane: i + 1, From: "proxy-00", To: e, Cost: 1})
				p.Before = append(p.Before, view.EgressLoad{Egress: e, Lanes: 1})
				p.After = append(p.After, view.EgressLoad{Egress: e, Lanes: 1})
			}
			p.After[59].Lanes = 3 // the last egress's load changes: shown, though cut
			p.Summary = "move 60 lanes"
			h.ctrl.SetPlan(p)
			h.press("r")
			h.mustShow("… and ", "proxy-59    1 lane ")
			if n := strings.Count(h.view(), "\n"); n != height-1 {
				t.Fatalf("screen has %d lines, want %d", n+1, height)
			}
			mustShowWholeDialog(t, h)
		}
	})
}

// mustShowWholeDialog fails unless the open dialog is on screen down to its bottom
// border, its keys line included: a list cut to fit must leave room for both.
func mustShowWholeDialog(t *testing.T, h *harness) {
	t.Helper()
	scr := h.view()
	keys := strings.Index(scr, "│ y/enter apply · n/esc cancel")
	if keys < 0 || !strings.Contains(scr[keys:], "╰") {
		t.Fatalf("the dialog's keys line or bottom border is cut off the screen:\n%s", scr)
	}
}

// TestRebalanceOverWorkers: on a master, r shows seed 003's plan over workers —
// what moves where, each worker's weight total and the variance before and after —
// and y applies it; one worker has nothing to balance.
func TestRebalanceOverWorkers(t *testing.T) {
	plan := view.RebalancePlan{Workers: true, Summary: "move 2 sites/keyword shards; gap 0.400 -> 0.050, variance 0.027 -> 0.00042",
		Units: []view.UnitMove{{Unit: "harbor-times.com", From: "w1", To: "w3", Weight: 0.2},
			{Unit: "chirp.example · flood", From: "w1", To: "w2", Weight: 0.05}},
		Before:         []view.EgressLoad{{Egress: "w1", Lanes: 5, Cost: 0.6}, {Egress: "w2", Lanes: 3, Cost: 0.2}, {Egress: "w3", Lanes: 2, Cost: 0.2}},
		After:          []view.EgressLoad{{Egress: "w1", Lanes: 3, Cost: 0.35}, {Egress: "w2", Lanes: 4, Cost: 0.25}, {Egress: "w3", Lanes: 3, Cost: 0.4}},
		VarianceBefore: 0.027, VarianceAfter: 0.00042}
	h := newHarness(t, 120, 40, Options{})
	h.ctrl.SetPlan(plan)
	h.press("r")
	h.mustShow("Rebalance sites over workers (seed 003)", "harbor-times.com  w1 -> w3  (0.200)",
		"chirp.example · flood  w1 -> w2", "w1       5 sites  0.600  ->    3 sites  0.350", "variance 0.027 -> 0.00042")
	h.press("y")
	h.mustCall("PlanRebalance", "ApplyRebalance(2 units)")
	h.mustShow("rebalancing: move 2 sites")

	// A plan with more moves than the screen has rows: cut, and the dialog whole.
	for _, height := range []int{24, 40} {
		many := plan
		many.Units = nil
		for i := range 40 {
			many.Units = append(many.Units, view.UnitMove{Unit: fmt.Sprintf("site-%02d.example", i), From: "w1", To: "w2", Weight: 0.01})
		}
		h := newHarness(t, 120, height, Options{})
		h.ctrl.SetPlan(many)
		h.press("r")
		h.mustShow("… and ", "variance 0.027 -> 0.00042")
		mustShowWholeDialog(t, h)
	}

	one := newHarness(t, 120, 40, Options{})
	one.ctrl.SetPlan(view.RebalancePlan{Workers: true, Summary: "1 live worker: nothing to balance"})
	one.press("r")
	one.mustShow("rebalance: 1 live worker: nothing to balance")
	if one.m.dialog != nil {
		t.Fatal("a dialog for a plan with nothing to move")
	}
}

func TestQuit(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		state    view.State
		keys     []string
		wantQuit bool
		dialog   bool
	}{
		{name: "running crawl asks first", keys: []string{"q"}, dialog: true},
		{name: "y confirms", keys: []string{"q", "y"}, wantQuit: true},
		{name: "enter confirms", keys: []string{"q", "enter"}, wantQuit: true},
		{name: "n keeps watching", keys: []string{"q", "n"}},
		{name: "esc keeps watching", keys: []string{"q", "esc"}},
		{name: "ctrl+c twice quits", keys: []string{"ctrl+c", "ctrl+c"}, wantQuit: true},
		{name: "paused crawl still asks", state: view.StatePaused, keys: []string{"q"}, dialog: true},
		{name: "finished crawl quits at once", state: view.StateDone, keys: []string{"q"}, wantQuit: true},
		{name: "crawl stopped by a store failure quits at once", state: view.StateFailed, keys: []string{"q"}, wantQuit: true},
		{name: "ssh session quits at once", opts: Options{Detached: true}, keys: []string{"q"}, wantQuit: true},
		{name: ":quit asks too", keys: []string{":", "quit-typed", "enter"}, dialog: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 120, 40, tc.opts)
			if tc.state != "" {
				h.ctrl.SetState(tc.state)
				h.refresh()
			}
			for _, k := range tc.keys {
				if k == "quit-typed" {
					h.typeText("quit")
					continue
				}
				h.press(k)
			}
			if h.quit != tc.wantQuit {
				t.Fatalf("quit = %v, want %v", h.quit, tc.wantQuit)
			}
			if shown := strings.Contains(h.view(), "Quit crawlconsole?"); shown != tc.dialog {
				t.Fatalf("confirm shown = %v, want %v\n%s", shown, tc.dialog, h.view())
			}
			if len(h.calls()) != 0 {
				t.Fatalf("quitting must not call the engine: %v", h.calls())
			}
		})
	}
}

func TestHelpOverlayListsTheRealKeys(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("?")
	km := pane.DefaultKeyMap()
	for _, b := range km.GlobalHelp() {
		h.mustShow(b.Help().Key + strings.Repeat(" ", 1)) // every global key is listed
		h.mustShow(b.Help().Desc)
	}
	h.mustShow("Lanes pane (1)", "(un)pause lane", "Groups pane (2)", "Log pane (3)")

	t.Run("egress keys and commands", func(t *testing.T) {
		defer h.use(t)()
		h.filter("egress")
		h.mustShow(km.Rotate.Help().Key+"  ", km.Rotate.Help().Desc, "Egress pane (5)", "move lanes off egress",
			":egress add SPEC", ":egress rm NAME")
		h.filter("host")
		h.mustShow(km.DisableHost.Help().Desc, ":disable host NAME", ":enable host NAME")
		h.filter("dns")
		h.mustShow(":dns flush [domain]")
		h.filter("revisit")
		h.mustShow("Revisit pane (6)", km.RevisitNow.Help().Desc, ":revisit now URL")
		h.press("/", "esc")
	})

	t.Run("q and p in help do not act", func(t *testing.T) {
		defer h.use(t)()
		h.press("p")
		if len(h.calls()) != 0 {
			t.Fatalf("p in help must not pause: %v", h.calls())
		}
	})
	t.Run("search", func(t *testing.T) {
		defer h.use(t)()
		h.press("/")
		h.typeText("theme")
		h.mustShow(":theme NAME", `matching "theme"`)
		h.mustNotShow(":pause host NAME", "Global keys")
		h.press("enter")
	})
	t.Run("search without hits", func(t *testing.T) {
		defer h.use(t)()
		h.press("/")
		h.typeText("zzzz")
		h.mustShow("nothing matches")
		h.press("esc") // leaves the search, clears it
		h.mustShow("Global keys")
	})
	t.Run("scrolls to the commands", func(t *testing.T) {
		defer h.use(t)()
		h.press("pgdown", "pgdown", "pgdown")
		h.mustShow(":resume lane N", ":theme NAME")
		h.press("home")
		h.mustShow("Global keys")
	})
	for _, k := range []string{"esc", "?", "q"} {
		t.Run("closes on "+k, func(t *testing.T) {
			defer h.use(t)()
			h.press("?")
			if h.m.focus != focusHelp {
				h.press("?")
			}
			h.press(k)
			h.mustNotShow("Help: keys and commands")
			if h.quit || h.m.dialog != nil {
				t.Fatal("closing help must not quit")
			}
		})
	}
}

func TestGroupsPane(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("2")
	h.mustShow("BOUND HOSTS", "news-00.sandbox.test, news-57.sandbox.test")
	h.mustNotShow("host    news-00.sandbox.test")
	steps := []struct {
		keys      []string
		show      []string
		hide      []string
		wantCalls []string
	}{
		{keys: []string{"enter"}, show: []string{"host    news-00.sandbox.test  (2 tasks)", "parent  http://news-00.sandbox.test/section/0  (1 task)"}},
		{keys: []string{"left"}, hide: []string{"host    news-00.sandbox.test"}},
		{keys: []string{"right"}, show: []string{"host    news-57.sandbox.test"}},
		{keys: []string{"h"}, hide: []string{"host    news-57.sandbox.test"}},
		{keys: []string{"l", "down", "down", "H"}, show: []string{"host news-57.sandbox.test paused", "news-57.sandbox.test  (3 tasks)  paused"},
			wantCalls: []string{"PauseHost(news-57.sandbox.test,true)"}},
		{keys: []string{"space"}, show: []string{"lane 1 paused", "[paused] news-00"},
			wantCalls: []string{"PauseHost(news-57.sandbox.test,true)", "PauseLane(1,true)"}},
		{keys: []string{"left"}, show: []string{"▸ +    1"}, hide: []string{"host    news-57"}},
	}
	for i, s := range steps {
		t.Run(fmt.Sprint(i, s.keys), func(t *testing.T) {
			defer h.use(t)()
			h.press(s.keys...)
			h.mustShow(s.show...)
			h.mustNotShow(s.hide...)
			if s.wantCalls != nil {
				h.mustCall(s.wantCalls...)
			}
		})
	}
}

func TestGroupsParentHash(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("2", "down", "down", "enter") // lane 3: parents 0,1,2; parent 2 has no URL
	h.mustShow("parent  #")
}

func TestLogPane(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("3")
	h.mustShow("≥DEBUG 40/40", "robots.txt crawl-delay 2s honoured")
	levels := []struct {
		want, gone string
	}{
		{"≥INFO", "DEBUG "}, {"≥WARN", "INFO "}, {"≥ERROR", "WARN "}, {"≥TRACE", ""}, {"≥DEBUG", ""},
	}
	for _, l := range levels {
		t.Run(l.want, func(t *testing.T) {
			defer h.use(t)()
			h.press("v")
			h.mustShow(l.want, "log shows")
			if l.gone != "" {
				for _, line := range strings.Split(h.view(), "\n")[4:] {
					if strings.Contains(line, " "+l.gone) {
						t.Fatalf("%s filter still shows %q", l.want, line)
					}
				}
			}
		})
	}
	t.Run("new events arrive and are followed", func(t *testing.T) {
		defer h.use(t)()
		h.ctrl.Log(view.LevelWarn, 4, "blog-99.sandbox.test", "banned: captcha page")
		h.refresh()
		h.mustShow("≥DEBUG 41/41", "banned: captcha page")
		if row := h.rowOf("▸"); !strings.Contains(row, "captcha") {
			t.Fatalf("the newest event should be selected while following: %q", row)
		}
	})
	t.Run("scrolling up stops following", func(t *testing.T) {
		defer h.use(t)()
		h.press("up")
		before := h.rowOf("▸")
		h.ctrl.Log(view.LevelInfo, 0, "", "second new event")
		h.refresh()
		if row := h.rowOf("▸"); row != before {
			t.Fatalf("selection should stay put after scrolling up: %q, was %q", row, before)
		}
		h.press("G")
		if row := h.rowOf("▸"); !strings.Contains(row, "second new event") {
			t.Fatalf("G should follow again: %q", row)
		}
	})
	t.Run("filter", func(t *testing.T) {
		defer h.use(t)()
		h.filter("captcha")
		h.mustShow("≥DEBUG 1/1")
	})
}

func TestLogRingIsCapped(t *testing.T) {
	h := newHarness(t, 120, 40, Options{LogLines: 25})
	h.press("3")
	h.mustShow("≥DEBUG 25/25")
	for i := range 60 {
		h.ctrl.Log(view.LevelInfo, 1, "", fmt.Sprintf("event %d", i))
	}
	h.refresh() // 60 new > capacity: fetched in capped batches until caught up
	h.mustShow("≥DEBUG 25/25", "event 59")
	h.mustNotShow("event 34 ")
}

func TestMouse(t *testing.T) {
	click := func(x, y int) tea.MouseMsg {
		return tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}
	}
	wheel := tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress}
	t.Run("on", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{Mouse: true})
		h.send(wheel)
		if row := h.rowOf("▸"); !strings.Contains(row, "social-01") {
			t.Fatalf("wheel should move to lane 2: %q", row)
		}
		h.send(click(10, 8)) // body row 5 = lane 5
		if row := h.rowOf("▸"); !strings.Contains(row, "social-04") {
			t.Fatalf("click should select lane 5: %q", row)
		}
		tabs := h.m.tabs
		h.send(click(tabs[2].from+1, 2))
		h.mustShow("[3 Log]")
	})
	t.Run("off by default", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.send(wheel)
		h.send(click(10, 8))
		if row := h.rowOf("▸"); !strings.Contains(row, "news-00") {
			t.Fatalf("mouse must be ignored unless enabled: %q", row)
		}
	})
}

// A viewer's footer does not offer the controls it refuses.
func TestReadOnlyFooterOffersNoControls(t *testing.T) {
	h := newHarness(t, 160, 40, Options{ReadOnly: true})
	footer := h.rowOf("? help")
	if strings.Contains(footer, "(un)pause") || strings.Contains(footer, "rebalance") {
		t.Errorf("a viewer's footer offers controls: %q", footer)
	}
	h.press("5") // Egress describes Rotate its own way
	if footer := h.rowOf("? help"); strings.Contains(footer, "move lanes off") || strings.Contains(footer, "disable/enable") {
		t.Errorf("a viewer's Egress footer offers controls: %q", footer)
	}
	op := newHarness(t, 160, 40, Options{})
	if footer := op.rowOf("? help"); !strings.Contains(footer, "(un)pause") {
		t.Errorf("an operator's footer lacks pause: %q", footer)
	}
}

func TestReadOnlySession(t *testing.T) {
	controls := [][]string{
		{"p"}, {"space"}, {"H"}, {"r"}, {"2", "space"}, {"2", "H"},
		{"e"}, {"x"}, {"2", "e"}, {"2", "x"}, {"5", "e"}, {"5", "x"}, {"5", "G", "x"}, {"5", "down", "down", "down", "e"},
		{"6", "n"},
	}
	for _, keys := range controls {
		t.Run(strings.Join(keys, "+"), func(t *testing.T) {
			h := newHarness(t, 120, 40, Options{ReadOnly: true})
			h.press(keys...)
			h.mustShow(pane.ReadOnlyText)
			h.mustCall()
			h.mustNotShow("Rebalance lanes over egresses")
		})
	}
	for _, line := range []string{"pause", "resume", "pause host x.test", "resume lane 1", "lanes 3", "rebalance",
		"dns flush", "dns flush x.test", "egress add http://u:p@127.0.0.1:1", "egress rm egress-a", "rotate lane 1",
		"disable host x.test", "enable host x.test", "revisit now http://news-00.sandbox.test/"} {
		t.Run(":"+line, func(t *testing.T) {
			h := newHarness(t, 120, 40, Options{ReadOnly: true})
			h.command(line)
			h.mustShow(pane.ReadOnlyText)
			h.mustCall()
		})
	}
	t.Run("watching still works", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{ReadOnly: true})
		h.mustShow("read-only")
		h.press("tab", "f")
		h.command("theme light")
		h.mustShow("[2 Groups]", "FROZEN", "theme light")
		h.mustCall()
	})
}

func TestTooSmall(t *testing.T) {
	h := newHarness(t, 60, 20, Options{})
	h.mustShow("need 80×24 (have 60×20)")
	h.mustNotShow("LANE")
	h.press("p", "space", "r")
	h.mustCall()
	t.Run("reflows on resize", func(t *testing.T) {
		defer h.use(t)()
		h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
		h.mustShow("LANE", "[1 Lanes]")
		h.send(tea.WindowSizeMsg{Width: 79, Height: 24})
		h.mustShow("need 80×24 (have 79×24)")
		h.send(tea.WindowSizeMsg{Width: 80, Height: 23})
		h.mustShow("need 80×24 (have 80×23)")
	})
	t.Run("q still works", func(t *testing.T) {
		defer h.use(t)()
		h.press("q")
		h.mustShow("Quit crawlconsole?", "y/enter quit")
		h.press("y")
		if !h.quit {
			t.Fatal("q then y must quit on a tiny terminal")
		}
	})
}

func TestEveryScreenFitsTheTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}, {40, 10}} {
		for _, keys := range [][]string{{"1"}, {"2", "enter"}, {"3"}, {"4"}, {"5"}, {"5", "G"}, {"6"}, {"6", "G"}, {"?"}, {"r"}, {"q"}, {":"}, {"/"}} {
			t.Run(fmt.Sprint(size, keys), func(t *testing.T) {
				h := newHarness(t, size[0], size[1], Options{})
				h.press(keys...)
				h.mustFit(size[0], size[1])
			})
		}
	}
}

// Lanes opening and retiring are trace events: the Log pane's default (≥DEBUG)
// leaves them out, so the operator's event is the newest row; v reaches them after
// ERROR.
func TestLogPaneHidesTraceByDefault(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("3")
	h.ctrl.Log(view.LevelInfo, 0, "", "egress e9 added by operator")
	for i := range 30 {
		h.ctrl.Log(view.LevelTrace, i+1, "", fmt.Sprintf("lane %d retired", i+1))
	}
	h.refresh()
	h.mustShow("≥DEBUG", "egress e9 added by operator")
	h.mustNotShow("lane 30 retired", "TRACE")
	h.press("v", "v", "v", "v")
	h.mustShow("≥TRACE", "lane 30 retired")
}

// Lanes opening and retiring (debug) went on after an operator's steering line and
// pushed it out of the Log pane within a minute or two: debug events go first.
func TestLogRingDropsDebugFirst(t *testing.T) {
	h := newHarness(t, 120, 40, Options{LogLines: 25})
	h.press("3")
	h.ctrl.Log(view.LevelInfo, 0, "", "steering: keyword \"storm\" added to capital")
	for i := range 60 {
		h.ctrl.Log(view.LevelDebug, 1, "", fmt.Sprintf("lane %d opened", i))
	}
	h.refresh()
	h.mustShow("steering: keyword \"storm\" added to capital", "lane 59 opened")
	h.mustNotShow("lane 30 opened ")
	for i := range 30 { // with no debug left to drop, the oldest go
		h.ctrl.Log(view.LevelInfo, 1, "", fmt.Sprintf("event %d", i))
	}
	h.refresh()
	h.mustShow("event 29")
	h.mustNotShow("steering: keyword", "event 4 ")
}

// Lanes opening and retiring (trace) go before the debug rows: a debug event the
// operator may look for stays while the lanes churn on after it.
func TestLogRingDropsTraceBeforeDebug(t *testing.T) {
	h := newHarness(t, 120, 40, Options{LogLines: 100})
	h.press("3")
	h.ctrl.Log(view.LevelDebug, 2, "news.example", "robots.txt for http://news.example: allow all")
	for i := range 80 { // with the 40 events before, 21 more than the ring holds
		h.ctrl.Log(view.LevelTrace, 1, "", fmt.Sprintf("lane %d retired", i))
	}
	h.refresh()
	h.mustShow("robots.txt for http://news.example: allow all")
}

// Scrolled up to an event, the operator stays on it while debug events after it
// fall off (a count of dropped rows moved the cursor back one row per debug event).
func TestLogRingKeepsTheSelectedEvent(t *testing.T) {
	h := newHarness(t, 120, 40, Options{LogLines: 10})
	h.press("3")
	for i := 1; i <= 4; i++ {
		h.ctrl.Log(view.LevelInfo, 0, "", fmt.Sprintf("mark %d", i))
	}
	for i := 5; i <= 10; i++ {
		h.ctrl.Log(view.LevelDebug, 1, "", fmt.Sprintf("chatter %d", i))
	}
	h.refresh()
	for range 12 {
		if strings.Contains(h.rowOf("▸"), "mark 4") {
			break
		}
		h.press("up")
	}
	if row := h.rowOf("▸"); !strings.Contains(row, "mark 4") {
		t.Fatalf("selected %q, want mark 4", row)
	}
	h.ctrl.Log(view.LevelInfo, 0, "", "news")
	h.refresh()
	if row := h.rowOf("▸"); !strings.Contains(row, "mark 4") {
		t.Errorf("after one more event the selection moved to %q, want it on mark 4", row)
	}
}

// A group's TASKS is its tasks counted once: each task is bound by its host and by
// its parent, and the row added both (lane 1: hosts 2 + 3 tasks, parent 1 → 6).
func TestGroupTasksCountEachTaskOnce(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("2")
	row := h.rowOf("news-00.sandbox.test, news-57")
	// lane, hosts, parents, tasks
	if !fieldsInOrder(row, "1", "egress-a", "2", "1", "5", "news-00.sandbox.test,") {
		t.Errorf("lane 1's group row %q: want 2 hosts, 1 parent, 5 tasks", row)
	}
}

// A crawl that ran dry has no lane open: the Lanes pane says so rather than "no
// lanes yet", and a lane command says no lane is open rather than "lanes shown: 0".
func TestLanesPaneAfterTheCrawlRanDry(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.ctrl.RunDry()
	h.refresh()
	h.mustShow("no lane open: nothing queued is ready to fetch")
	h.mustNotShow("no lanes yet")
	h.command("pause lane 9")
	h.mustShow("no lane 9: no lane is open")
}

// A viewer's ? overlay leaves out the keys and commands it would be refused, and
// says so; what it may do (filter, themes, panes) is still there.
func TestHelpOverlayOfAViewer(t *testing.T) {
	km := pane.DefaultKeyMap()
	h := newHarness(t, 160, 60, Options{ReadOnly: true})
	h.press("?")
	h.mustShow("Read-only session", km.Filter.Help().Desc, ":theme NAME")
	h.mustNotShow(km.Pause.Help().Desc, ":pause host NAME", ":egress add SPEC", ":seed add URL")
	op := newHarness(t, 160, 60, Options{})
	op.press("?")
	op.mustShow(km.Pause.Help().Desc, ":pause host NAME")
	op.mustNotShow("Read-only session")
}

// A crawl whose every URL failed before a page was fetched (every seed refused by
// the SSRF guard): the Lanes pane says so and where the reason is, not "no lanes
// yet", which read as a crawl still starting.
func TestLanesPaneWhenEveryURLFailed(t *testing.T) {
	h := newHarness(t, 160, 40, Options{})
	h.ctrl.FailAll("ssrf_blocked", 2)
	h.refresh()
	h.mustShow("nothing was fetched and nothing is queued; the URLs ended ssrf_blocked ×2: the Log pane says why")
	h.mustNotShow("no lanes yet")
}
