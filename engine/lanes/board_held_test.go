package lanes

import (
	"fmt"
	"testing"
)

// TestALaneTakesAnotherHostsTaskPastAPausedHosts: one lane holds hosts a and b
// (adjacent by their parent page); with a paused, the lane takes b's task, not a's,
// and a paused host's task in hand is set aside for it; with only a's tasks left the
// lane gives them back and its slot up, no lane opens for them while a is paused, and
// once a is resumed a lane opens for them (Fill).
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
		t.Fatal("a/1 in hand, a paused: a/1 must be set aside")
	}
	if got, ok, _ = b.Next(l); !ok || got.URL != "http://b/1" {
		t.Fatalf("with a paused the lane took %q, want b/1", got.URL)
	}
	if b.SetAside(l, got) {
		t.Fatal("b/1 is not of a paused host: it must not be set aside")
	}
	got, ok, opened := b.Next(l)
	if ok || !l.Retired() || len(opened) != 0 || b.Len() != 0 {
		t.Fatalf("only a's tasks left: the lane must give its slot up, none opening for them (took %q, ok %v, %d opened, %d lanes)",
			got.URL, ok, len(opened), b.Len())
	}
	if b.Pending() != 2 || !b.Holds("a") {
		t.Fatalf("a's tasks must wait for a lane: %d pending", b.Pending())
	}
	if p := b.Add(task("http://a/3", "a", 0)); !p.Pending {
		t.Fatalf("a/3 of the paused host placed %+v with three slots free: want pending", p)
	}
	paused["a"] = false
	if opened := b.Fill(); len(opened) != 1 || opened[0].Backlog() != 3 {
		t.Fatalf("a resumed: %d lanes opened, want one with a's three tasks", len(opened))
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

// TestAPausedHostsTasksDoNotKeepEverySlot: a host spread over both egresses fills
// both lane slots; once the operator pauses it, another host's task that waits for a
// slot gets one at the next lane's turn, and the paused host's tasks open no lane
// again while it is paused.
func TestAPausedHostsTasksDoNotKeepEverySlot(t *testing.T) {
	b := NewBoard(2, []string{"e1", "e2"})
	paused := map[string]bool{}
	b.Held = func(host string) bool { return paused[host] }
	for i := range 8 {
		b.Add(task(fmt.Sprintf("http://p/%d", i), "p", 0))
	}
	if b.Len() != 2 {
		t.Fatalf("host p over two egresses: %d lanes, want both slots", b.Len())
	}
	paused["p"] = true
	if p := b.Add(task("http://h/1", "h", 0)); !p.Pending {
		t.Fatalf("h/1 placed %+v with both slots taken: want pending", p)
	}
	for _, l := range b.View() {
		ln, _ := b.Lane(l.ID)
		tk, ok, opened := b.Next(ln)
		if ok {
			t.Fatalf("lane %d took %s of the paused host", l.ID, tk.URL)
		}
		for _, o := range opened {
			if o.hosts["p"] > 0 || o.hosts["h"] != 1 {
				t.Fatalf("a lane opened for %v, want h/1 alone", o.hosts)
			}
		}
	}
	if b.Len() != 1 || b.Pending() != 8 {
		t.Fatalf("%d lanes (want h's alone), %d pending (want p's 8)", b.Len(), b.Pending())
	}
}
