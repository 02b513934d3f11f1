package lanes

import "testing"

// TestALaneTakesAnotherHostsTaskPastAPausedHosts: one lane holds hosts a and b
// (adjacent by their parent page); with a paused, the lane takes b's task, not a's,
// and a paused host's task in hand is set aside for it; a's tasks stay in the lane,
// and with nothing else left the lane takes a's task in hand (to hold it there).
func TestALaneTakesAnotherHostsTaskPastAPausedHosts(t *testing.T) {
	b := NewBoard(4, []string{"e1"})
	l := b.Add(task("http://a/1", "a", 9)).Lane
	b.Add(task("http://a/2", "a", 9))
	b.Add(task("http://b/1", "b", 9))
	paused := map[string]bool{}
	b.Held = func(host string) bool { return paused[host] }

	got, ok, _ := b.Next(l) // a not paused yet: a/1 in hand
	if !ok || got.URL != "http://a/1" {
		t.Fatalf("first take %q, want a/1", got.URL)
	}
	paused["a"] = true
	if !b.SetAside(l, got) {
		t.Fatal("a/1 in hand, a paused, b/1 queued: a/1 must be set aside")
	}
	if got, ok, _ = b.Next(l); !ok || got.URL != "http://b/1" {
		t.Fatalf("with a paused the lane took %q, want b/1", got.URL)
	}
	if b.SetAside(l, got) {
		t.Fatal("b/1 is not of a paused host: it must not be set aside")
	}
	got, ok, _ = b.Next(l)
	if !ok || got.Host != "a" || b.SetAside(l, got) {
		t.Fatalf("only a's tasks left: the lane takes one in hand and keeps it (got %q, ok %v)", got.URL, ok)
	}
	if l.Backlog() != 1 || !b.Holds("a") {
		t.Fatalf("a's other task must stay queued on the lane: backlog %d", l.Backlog())
	}
}

// TestAFreedSlotGoesPastAWaitingTaskNoEgressMayServe: when a lane retires, the
// oldest waiting task is on a host no egress may serve now; the slot goes to the
// task behind it, and it keeps waiting.
func TestAFreedSlotGoesPastAWaitingTaskNoEgressMayServe(t *testing.T) {
	b := NewBoard(1, []string{"e1"})
	l := b.Add(task("http://a/1", "a", 0)).Lane
	b.Add(task("http://x/1", "x", 0))
	b.Add(task("http://y/1", "y", 0))
	if b.Pending() != 2 {
		t.Fatalf("%d pending, want x/1 and y/1", b.Pending())
	}
	b.Allowed = func(_ int, host string) bool { return host != "x" }
	if _, ok, _ := b.Next(l); !ok {
		t.Fatal("lane a must take a/1")
	}
	_, ok, opened := b.Next(l)
	if ok || !l.Retired() {
		t.Fatal("lane a ran dry: it must retire")
	}
	if len(opened) != 1 || opened[0].hosts["y"] != 1 {
		t.Fatalf("the freed slot must go to y/1 past x/1: %d lanes opened", len(opened))
	}
	if b.Pending() != 1 || !b.Holds("x") {
		t.Fatalf("x/1 must keep waiting: %d pending", b.Pending())
	}
}
