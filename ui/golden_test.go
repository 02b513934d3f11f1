package ui

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/patience"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// TestGolden renders each pane (and the overlays) of a deterministic fake crawl at
// 80×24 and 120×40 in the ASCII profile through a real Bubble Tea program, and
// compares the final screen with testdata/TestGolden/*.golden (go test -update to
// rewrite them after a deliberate change).
func TestGolden(t *testing.T) {
	screens := []struct {
		name string
		keys []string
		wait string // text that shows the screen is complete
		// ticks > 0: the fake crawl moves on one second this many times, each
		// snapshot sent in order (the periodic pull is off, so the DNS pane's
		// sparklines come out the same on every run).
		ticks int
		cfg   fake.Config // the fake crawl; zero: a single-process crawl
		sizes [][2]int    // nil: 80×24 and 120×40
	}{
		{name: "lanes", wait: "blog-11.sandbox.test"},
		{name: "groups", keys: []string{"2", "down", "enter"}, wait: "parent  http://social-01.sandbox.test/section/1"},
		{name: "log", keys: []string{"3"}, wait: "≥DEBUG 40/40"},
		{name: "help", keys: []string{"?"}, wait: "Help: keys and commands"},
		{name: "rebalance", keys: []string{"r"}, wait: "y/enter apply"},
		{name: "command", keys: []string{":", "t", "h", "e", "m", "e", " ", "n", "e", "o", "n", "enter"}, wait: "unknown theme"},
		{name: "quit", keys: []string{"q"}, wait: "Quit crawlconsole?"},
		{name: "dns", keys: []string{"4"}, ticks: 30, wait: "gone-03.news-73.sandbox.test"},
		{name: "egress", keys: []string{"5"}, ticks: 30, wait: "PAIR-BANNED HOST"},
		{name: "revisit", keys: []string{"6"}, wait: "17h33m"},
		// A distributed crawl (M4): the Nodes pane, and the lanes with their worker.
		{name: "nodes", keys: []string{"7"}, wait: "11,751", cfg: fake.Config{Workers: 4}},
		// URLs skipped by choice are counted apart from errors in the header.
		{name: "lanes_skipped", wait: "skipped 1,573", cfg: fake.Config{Skips: true}, sizes: [][2]int{{120, 40}}},
		{name: "lanes_nodes", wait: "blog-11.sandbox.test", cfg: fake.Config{Workers: 4}, sizes: [][2]int{{120, 40}}},
		// Declared sites: the Sites pane.
		{name: "sites", keys: []string{"7"}, wait: "tattle", cfg: fake.Config{Sites: true}},
		// The hosts report, per host and added up per site.
		{name: "hosts", keys: []string{"7"}, wait: "sort name", cfg: fake.Config{Hosts: 40}},
		{name: "hosts_sites", keys: []string{"7", "m"}, wait: "hosts report per site", cfg: fake.Config{Hosts: 40}},
		// A master no worker joined yet (M4): the join command from the first frame.
		{name: "master_join", wait: "news.db.token", cfg: fake.Config{Join: fakeJoin}},
		{name: "master_join_nodes", keys: []string{"7"}, wait: "waiting for the first to join", cfg: fake.Config{Join: fakeJoin}},
		// Articles found under several URLs: the Stories pane.
		{name: "stories", keys: []string{"7"}, wait: "harbor-times.com/port/ferry-services-s", cfg: fake.Config{Stories: true}},
	}
	sizes := [][2]int{{80, 24}, {120, 40}}
	for _, sz := range sizes {
		for _, sc := range screens {
			if sc.sizes != nil && !slices.Contains(sc.sizes, sz) {
				continue
			}
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				goldenScreen(t, sc.cfg, sz[0], sz[1], sc.keys, sc.wait, sc.ticks)
			})
		}
	}
	t.Run("too_small_60x20", func(t *testing.T) {
		goldenScreen(t, fake.Config{}, 60, 20, nil, "need 80×24 (have 60×20)", 0)
	})
}

func goldenScreen(t *testing.T, cfg fake.Config, w, h int, keys []string, wait string, ticks int) {
	t.Helper()
	ctrl := fake.New(cfg)
	refresh := 20 * time.Millisecond
	if ticks > 0 {
		refresh = time.Hour
	}
	m := newModel(ctrl, Options{Clock: fixedClock, Refresh: refresh}, asciiRenderer())
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	// One buffer across waits: a screen that is already complete writes nothing new.
	var out bytes.Buffer
	waitFor := func(texts ...string) {
		t.Helper()
		deadline := time.Now().Add(patience.Wait)
		for {
			if _, err := out.ReadFrom(tm.Output()); err != nil {
				t.Fatal(err)
			}
			for _, s := range texts {
				if bytes.Contains(out.Bytes(), []byte(s)) {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("screen never showed %q; output so far:\n%s", texts, out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("RUNNING", "need 80") // the first snapshot is in
	for range ticks {
		ctrl.Tick()
		tm.Send(SnapshotMsg{Snapshot: ctrl.Snapshot()})
	}
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
	waitFor(wait)
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(90*time.Second)).(*Model)
	golden.RequireEqual(t, []byte(final.View()))
}
