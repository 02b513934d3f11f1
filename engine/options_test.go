package engine

import (
	"testing"
	"time"
)

// TestInjectedClock: the engine's timestamps come from Options.Now, and so do those
// of the egress rotation it builds: a crawl on a clock ten years ahead shows that time.
func TestInjectedClock(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 2, 10, 0)
	o := testOptions(t, w)
	o.Egress = []string{"bind:127.0.0.2"}
	const ahead = 10 * 365 * 24 * time.Hour
	o.Now = func() time.Time { return time.Now().Add(ahead) }
	from := time.Now().Add(ahead)
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	s := e.Snapshot()
	to := time.Now().Add(ahead)
	on := func(what string, at time.Time) {
		t.Helper()
		if at.Before(from) || at.After(to) {
			t.Errorf("%s at %v, want on the injected clock (%v..%v)", what, at, from, to)
		}
	}
	on("snapshot", s.At)
	on("crawl start", s.StartedAt)
	events := e.EventsSince(0, 0)
	if len(events) == 0 {
		t.Fatal("no events")
	}
	for _, ev := range events {
		on("event "+ev.Msg, ev.At)
	}
	if s.Egress == nil || len(s.Egress.Egresses) == 0 {
		t.Fatal("no egress view")
	}
	on("egress view", s.Egress.At)
	on("egress start_time", s.Egress.Egresses[0].StartTime)
}
