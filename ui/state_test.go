package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// The header says what the crawl is doing between rounds, and when it goes on, and
// keeps a polite rate's figures (0.25 pages/s was shown as 0.2, 0.04 as 0.0).
func TestHeaderSaysIdleUntilTheNextRoundAndPoliteRates(t *testing.T) {
	h := newHarness(t, 120, 30, Options{Title: "demo"})
	s := h.ctrl.Snapshot()
	s.State, s.NextRound, s.PagesPerSec = engine.StateIdle, fake.Epoch.Add(90*time.Second), 0.04
	h.send(SnapshotMsg{Snapshot: s})
	if head := h.line(0); !strings.Contains(head, "IDLE (next round in 1m30s)") || !strings.Contains(head, "0.04 pages/s") {
		t.Errorf("header between rounds: %q; want IDLE with the next round's countdown and 0.04 pages/s", head)
	}
	for _, st := range []engine.State{engine.StateDone, engine.StateDraining} {
		s.State, s.NextRound = st, time.Time{}
		h.send(SnapshotMsg{Snapshot: s})
		if head := h.line(0); !strings.Contains(head, string(st)) || strings.Contains(head, "next round") {
			t.Errorf("header in state %s: %q", st, head)
		}
	}
}
