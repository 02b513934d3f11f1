package attach_test

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// TestUnreachableMaster: when the master does not answer, Snapshot is the last
// one received with State "master unreachable"; when it answers again, the crawl
// is back.
func TestUnreachableMaster(t *testing.T) {
	ns := startNATS(t, 0)
	ctrl := fake.New(fake.Config{Workers: 4})
	stop, err := attach.Serve(connect(t, ns), prefix, ctrl)
	if err != nil {
		t.Fatal(err)
	}
	nc := connect(t, ns)
	cl := attach.Dial(nc, prefix, attach.WithTimeout(300*time.Millisecond))
	if s := cl.Snapshot(); s.State != view.StateRunning || len(s.Nodes) != 4 {
		t.Fatalf("first snapshot: %s, %d nodes (%v)", s.State, len(s.Nodes), cl.Err())
	}

	t.Run("master gone", func(t *testing.T) {
		stop()
		stop() // twice is fine
		s := cl.Snapshot()
		if s.State != attach.StateUnreachable || len(s.Lanes) != 12 || len(s.Nodes) != 4 || s.Totals.PagesFetched != 123456 {
			t.Fatalf("state %q with %d lanes, %d nodes: want the last snapshot, unreachable", s.State, len(s.Lanes), len(s.Nodes))
		}
		if err := cl.Err(); err == nil || !strings.Contains(err.Error(), "master unreachable") {
			t.Fatalf("Err = %v", err)
		}
		if evs := cl.EventsSince(0, 10); evs != nil {
			t.Fatalf("events from nowhere: %v", evs)
		}
		if err := cl.PauseLane(1, true); err == nil {
			t.Fatal("PauseLane succeeded without a master")
		}
		if p := cl.PlanRebalance(); !strings.HasPrefix(p.Summary, "no plan: master unreachable") || len(p.Moves) != 0 {
			t.Fatalf("plan = %+v", p)
		}
		if calls := ctrl.Calls(); len(calls) != 0 {
			t.Fatalf("calls reached a stopped master: %q", calls)
		}
	})

	t.Run("master hangs", func(t *testing.T) {
		hung := connect(t, ns)
		sub, err := hung.Subscribe(prefix+".console.snapshot", func(*nats.Msg) {}) // never replies
		if err == nil {
			err = hung.Flush() // the server knows the subscription before the request comes
		}
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
		// A timeout longer than DefaultTimeout: a wait at least that long shows
		// the option, not the default, bounds it. A timer never fires early, so
		// the lower bound holds on any box; the upper one is a guard against a
		// request that never gives up, not a measure.
		timeout := attach.DefaultTimeout + 200*time.Millisecond
		fresh := attach.Dial(nc, prefix, attach.WithTimeout(timeout))
		start := time.Now()
		got := make(chan view.Snapshot, 1)
		go func() { got <- fresh.Snapshot() }()
		var s view.Snapshot
		select {
		case s = <-got:
		case <-time.After(time.Minute):
			t.Fatalf("Snapshot still waiting after a minute with a %v timeout", timeout)
		}
		if took := time.Since(start); took < timeout {
			t.Fatalf("Snapshot gave up after %v with a %v timeout", took, timeout)
		}
		if s.State != attach.StateUnreachable || s.Lanes != nil || !s.At.IsZero() {
			t.Fatalf("before any snapshot: %+v", s)
		}
	})

	t.Run("master back", func(t *testing.T) {
		stop, err := attach.Serve(connect(t, ns), prefix, ctrl)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		if s := cl.Snapshot(); s.State != view.StateRunning || cl.Err() != nil {
			t.Fatalf("state %q, err %v", s.State, cl.Err())
		}
	})
}

// TestConsoleOverNATS: the real console, attached over NATS to a master serving a
// distributed crawl: p pauses the master's crawl, space on the Nodes pane pauses a
// worker, and the header says so when the master goes away.
func TestConsoleOverNATS(t *testing.T) {
	ns := startNATS(t, 0)
	ctrl := fake.New(fake.Config{Workers: 4})
	stop, err := attach.Serve(connect(t, ns), prefix, ctrl)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cl := attach.Dial(connect(t, ns), prefix, attach.WithTimeout(500*time.Millisecond))

	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := ui.NewModel(cl, ui.Options{Refresh: 20 * time.Millisecond, Clock: func() time.Time { return fake.Epoch }, Detached: true}, r)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	out := tm.Output()
	waitScreen := func(what string) {
		t.Helper()
		teatest.WaitFor(t, out, func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	waitCall := func(call string) {
		t.Helper()
		for deadline := time.Now().Add(90 * time.Second); !slices.Contains(ctrl.Calls(), call); {
			if time.Now().After(deadline) {
				t.Fatalf("the master never saw %s; it saw %q", call, ctrl.Calls())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	waitScreen("RUNNING")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'p'}})
	waitCall("Pause")
	waitScreen("PAUSED")
	if !ctrl.Paused() {
		t.Fatal("p on the attached console did not pause the master's crawl")
	}

	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'7'}})
	waitScreen("worker-4")
	tm.Send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
	waitCall("PauseNode(worker-1,true)")
	waitScreen("node worker-1 paused")

	stop()
	waitScreen("master unreachable")

	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'q'}})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// TestUnreachableOneBoxCrawl: a console attached to a one-box crawl's operator port
// (no workers, no heartbeat) says the crawl is unreachable when it goes away, not a
// master that was never there.
func TestUnreachableOneBoxCrawl(t *testing.T) {
	ns := startNATS(t, 0)
	stop, err := attach.Serve(connect(t, ns), prefix, fake.New(fake.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	cl := attach.Dial(connect(t, ns), prefix, attach.WithTimeout(300*time.Millisecond))
	if s := cl.Snapshot(); s.State != view.StateRunning || len(s.Nodes) != 0 || s.HeartbeatEvery != 0 {
		t.Fatalf("first snapshot: %s, %d nodes, heartbeat %v (%v)", s.State, len(s.Nodes), s.HeartbeatEvery, cl.Err())
	}
	stop()
	if s := cl.Snapshot(); s.State != attach.StateCrawlUnreachable || !attach.Unreachable(s.State) {
		t.Fatalf("state %q: want %q", s.State, attach.StateCrawlUnreachable)
	}
}
