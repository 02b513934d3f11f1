package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// The header says what the crawl is doing between rounds or revisits, and when it goes on, and
// keeps a polite rate's figures (0.25 pages/s was shown as 0.2, 0.04 as 0.0).
func TestHeaderSaysIdleUntilTheNextRoundAndPoliteRates(t *testing.T) {
	h := newHarness(t, 120, 30, Options{Title: "demo"})
	s := h.ctrl.Snapshot()
	s.State, s.NextRound, s.PagesPerSec = view.StateIdle, fake.Epoch.Add(90*time.Second), 0.04
	h.send(SnapshotMsg{Snapshot: s})
	if head := h.line(0); !strings.Contains(head, "IDLE (next round in 1m30s)") || !strings.Contains(head, "0.04 pages/s") {
		t.Errorf("header between rounds: %q; want IDLE with the next round's countdown and 0.04 pages/s", head)
	}
	// With no rounds, an idle crawl waits for its next revisit, and says when.
	s.NextRound, s.NextRevisit = time.Time{}, fake.Epoch.Add(59*time.Minute)
	h.send(SnapshotMsg{Snapshot: s})
	if head := h.line(0); !strings.Contains(head, "IDLE (next revisit in 59m") {
		t.Errorf("header between revisits: %q; want IDLE with the next revisit's countdown", head)
	}
	for _, st := range []view.State{view.StateDone, view.StateDraining} {
		s.State, s.NextRound = st, time.Time{}
		h.send(SnapshotMsg{Snapshot: s})
		if head := h.line(0); !strings.Contains(head, string(st)) || strings.Contains(head, "next round") || strings.Contains(head, "next revisit") {
			t.Errorf("header in state %s: %q", st, head)
		}
	}
}

// The header shows how far the crawl is (the URLs done of those taken, as a bar and
// a share), what is queued and in flight, and a polite rate per minute as well.
func TestHeaderShowsProgressAndARatePerMinute(t *testing.T) {
	h := newHarness(t, 120, 30, Options{})
	s := h.ctrl.Snapshot()
	s.Totals.URLsDone, s.Totals.URLsQueued, s.PagesPerSec = 300, 1200, 0.25
	h.send(SnapshotMsg{Snapshot: s})
	if head := h.line(0); !strings.Contains(head, "▕███░░░░░░░▏ 25% done") || !strings.Contains(head, "0.25 pages/s (15/min)") {
		t.Errorf("header: %q; want a bar at 25%% done and 0.25 pages/s (15/min)", head)
	}
	if line := h.line(1); !strings.Contains(line, "queue 4,567") || !strings.Contains(line, "in flight 3") {
		t.Errorf("totals: %q; want the queue and the lanes fetching now", line)
	}
	h.send(windowSize(80, 24))
	if head := h.line(0); !strings.Contains(head, " 25% done") || strings.Contains(head, "▕") {
		t.Errorf("header at 80 columns: %q; want the share without the bar", head)
	}
}

// One rate reads the same in the header as on `ctl status` and the progress lines:
// a stopped crawl's was "0.00 pages/s" in the header and "0 pages/s" in ctl.
func TestHeaderRateReadsAsCtlDoes(t *testing.T) {
	h := newHarness(t, 120, 30, Options{})
	s := h.ctrl.Snapshot()
	for rate, want := range map[float64]string{0: "  0 pages/s ", 0.25: "  0.25 pages/s (15/min) ", 3.456: "  3.46 pages/s ", 42.5: "  42.5 pages/s "} {
		s.PagesPerSec = rate
		h.send(SnapshotMsg{Snapshot: s})
		if head := h.line(0); !strings.Contains(head, want) {
			t.Errorf("header at %v pages/s: %q; want %q", rate, head, want)
		}
	}
}

// The header's rate counts the crawl's first pages: before the engine's window is
// full it is the pages over the time since the start, not a mean of samples that
// began a second in (0 pages/s with a page fetched).
func TestHeaderRateCountsTheFirstPages(t *testing.T) {
	h := newHarness(t, 120, 30, Options{})
	s := h.ctrl.Snapshot()
	s.State, s.StartedAt = view.StateRunning, s.At.Add(-4*time.Second)
	s.RateHistory, s.PagesPerSec, s.Totals.PagesFetched = []float64{0, 0, 0}, 0, 2
	h.send(SnapshotMsg{Snapshot: s})
	if head := h.line(0); !strings.Contains(head, "  0.50 pages/s (30/min) ") {
		t.Errorf("header 4 s in with 2 pages: %q; want 0.50 pages/s (30/min)", head)
	}
}

// At 80 columns with every figure a paused cluster crawl can have, the header keeps
// the ones that ask for the operator's eye (errors, paused hosts, robots.txt waits)
// and drops the running counts first, each figure whole or not at all.
func TestHeaderAt80ColumnsKeepsTheFiguresThatNeedTheOperator(t *testing.T) {
	h := newHarness(t, 80, 24, Options{})
	s := h.ctrl.Snapshot()
	s.State = view.StatePaused
	s.PausedHosts = []string{"a.example", "b.example"}
	s.Totals.Robots.URLs = 1234
	s.Totals.Skipped = map[string]int64{"robots": 40}
	s.Totals.Warnings = map[string]int64{"feed": 4}
	s.Nodes = []view.Node{{Name: "w1"}, {Name: "w2"}, {Name: "w3"}}
	h.send(SnapshotMsg{Snapshot: s})
	totals := h.line(1)
	for _, want := range []string{"errors 8", "paused hosts 2", "robots.txt wait 1,234", "workers 3", "fetched 123,456"} {
		if !strings.Contains(totals, want) {
			t.Errorf("totals at 80 columns: %q; want %q in it", totals, want)
		}
	}
	if w := displayWidth(totals); w > 80 {
		t.Errorf("totals are %d columns wide at 80: %q", w, totals)
	}
	// Each figure whole: "label value" pairs, two spaces apart.
	labels := []string{"fetched", "stored", "queue", "lanes", "workers", "errors", "refused", "robots.txt wait",
		"in flight", "paused hosts", "skipped", "warnings", "bytes"}
	for _, f := range strings.Split(strings.TrimSpace(totals), "  ") {
		if !slices.ContainsFunc(labels, func(l string) bool {
			v, ok := strings.CutPrefix(f, l+" ")
			return ok && v != "" && !strings.Contains(v, " ")
		}) {
			t.Errorf("totals at 80 columns: figure %q is not a whole label and value (line %q)", f, totals)
		}
	}
	// The order stays the one wide consoles show.
	if i, j := strings.Index(totals, "fetched"), strings.Index(totals, "errors"); i > j {
		t.Errorf("totals at 80 columns: %q; want fetched before errors, as on a wide console", totals)
	}
}

// The state line of a narrow read-only console, frozen, idle until a revisit, leaves
// out its least useful parts rather than running past the edge.
func TestHeaderStateLineFitsAt80WithEveryNote(t *testing.T) {
	h := newHarness(t, 80, 24, Options{ReadOnly: true})
	s := h.ctrl.Snapshot()
	s.State, s.NextRevisit = view.StateIdle, fake.Epoch.Add(59*time.Minute+59*time.Second)
	h.send(SnapshotMsg{Snapshot: s})
	h.press("f")
	head := h.line(0)
	for _, want := range []string{"IDLE (next revisit in 59m59s)", "FROZEN", "read-only"} {
		if !strings.Contains(head, want) {
			t.Errorf("state line at 80 columns: %q; want %q in it", head, want)
		}
	}
	if w := displayWidth(head); w > 80 {
		t.Errorf("state line is %d columns wide at 80: %q", w, head)
	}
}
