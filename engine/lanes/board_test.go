package lanes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

func task(url, host string, parent uint64) frontier.Task {
	return frontier.Task{URL: url, Host: host, ParentHash: parent}
}

// TestM1Rule walks the adjacency rule of seed 000 case by case on one egress.
func TestM1Rule(t *testing.T) {
	type step struct {
		t        frontier.Task
		wantLane int // lane ID the task must end up in (0: pending)
		opened   bool
	}
	cases := []struct {
		name  string
		max   int
		steps []step
	}{
		{"neither matches: each opens its own lane", 4, []step{
			{task("http://a/1", "a", 0), 1, true},
			{task("http://b/1", "b", 0), 2, true},
			{task("http://c/1", "c", 7), 3, true},
		}},
		{"host match joins the host's lane", 4, []step{
			{task("http://a/1", "a", 1), 1, true},
			{task("http://a/2", "a", 2), 1, false},
		}},
		{"parent match joins the parent's lane across hosts", 4, []step{
			{task("http://a/1", "a", 9), 1, true},
			{task("http://b/1", "b", 9), 1, false},
			{task("http://c/1", "c", 9), 1, false},
		}},
		{"host and parent match different lanes: host wins", 4, []step{
			{task("http://a/1", "a", 1), 1, true},
			{task("http://b/1", "b", 2), 2, true},
			{task("http://a/2", "a", 2), 1, false},
		}},
		{"seed parent 0 binds nothing", 4, []step{
			{task("http://a/", "a", 0), 1, true},
			{task("http://b/", "b", 0), 2, true},
		}},
		{"lanes full: a non-adjacent task waits, adjacent ones still join", 2, []step{
			{task("http://a/1", "a", 0), 1, true},
			{task("http://b/1", "b", 0), 2, true},
			{task("http://c/1", "c", 0), 0, false},
			{task("http://a/2", "a", 5), 1, false},
			{task("http://d/1", "d", 5), 1, false}, // parent 5 now held by lane 1
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBoard(c.max, nil)
			for i, s := range c.steps {
				p := b.Add(s.t)
				got := 0
				if p.Lane != nil {
					got = p.Lane.ID
				}
				if got != s.wantLane || p.Opened != s.opened || p.Pending != (s.wantLane == 0) {
					t.Fatalf("step %d (%s): got lane %d opened=%v pending=%v, want lane %d opened=%v",
						i, s.t.URL, got, p.Opened, p.Pending, s.wantLane, s.opened)
				}
			}
		})
	}
}

func TestLaneSerialOrderAndRetire(t *testing.T) {
	b := NewBoard(1, nil)
	l := b.Add(task("http://a/1", "a", 0)).Lane
	b.Add(task("http://a/2", "a", 0))
	if p := b.Add(task("http://b/1", "b", 0)); !p.Pending {
		t.Fatalf("b/1 should wait for a lane (max 1), got %+v", p)
	}
	var got []string
	for {
		tk, ok, opened := b.Next(l)
		if !ok {
			if len(opened) != 1 {
				t.Fatalf("retiring lane %d should open one lane for the pending task, opened %d", l.ID, len(opened))
			}
			l = opened[0]
			tk, ok, _ = b.Next(l)
			if !ok || tk.URL != "http://b/1" {
				t.Fatalf("new lane should fetch b/1, got %q ok=%v", tk.URL, ok)
			}
			got = append(got, tk.URL)
			break
		}
		got = append(got, tk.URL)
	}
	want := []string{"http://a/1", "http://a/2", "http://b/1"}
	if len(got) != len(want) {
		t.Fatalf("fetch order %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fetch order %v, want %v", got, want)
		}
	}
	if b.Peak() != 1 {
		t.Fatalf("peak lanes %d, want 1", b.Peak())
	}
}

// A lane keeps the host of the task it just fetched while it pauses, so the next
// task of that host joins it instead of opening a parallel lane.
func TestLaneHoldsHostDuringPause(t *testing.T) {
	b := NewBoard(4, nil)
	l := b.Add(task("http://a/1", "a", 0)).Lane
	if _, ok, _ := b.Next(l); !ok {
		t.Fatal("lane should hand out a/1")
	}
	p := b.Add(task("http://a/2", "a", 0))
	if p.Lane != l || p.Opened {
		t.Fatalf("a/2 should join lane %d during its pause, got %+v", l.ID, p)
	}
	// after the pause the lane releases a/1 and takes a/2; then it runs dry and retires
	if tk, ok, _ := b.Next(l); !ok || tk.URL != "http://a/2" {
		t.Fatalf("next = %q %v", tk.URL, ok)
	}
	if _, ok, _ := b.Next(l); ok || b.Len() != 0 {
		t.Fatalf("dry lane should retire, lanes=%d", b.Len())
	}
	if p := b.Add(task("http://a/3", "a", 0)); !p.Opened {
		t.Fatal("after retirement a new task opens a new lane")
	}
}

func TestOpeningLanePullsAdjacentPending(t *testing.T) {
	b := NewBoard(1, nil)
	l := b.Add(task("http://x/1", "x", 0)).Lane
	b.Add(task("http://a/1", "a", 3))
	b.Add(task("http://b/1", "b", 3)) // same parent as a/1
	b.Add(task("http://a/2", "a", 4)) // same host as a/1
	b.Add(task("http://c/1", "c", 8))
	if b.Pending() != 4 {
		t.Fatalf("pending %d, want 4", b.Pending())
	}
	b.Next(l)
	_, _, opened := b.Next(l) // x/1 done, lane retires, a/1's lane opens
	if len(opened) != 1 {
		t.Fatalf("opened %d lanes, want 1", len(opened))
	}
	if q := opened[0].Backlog(); q != 3 {
		t.Fatalf("new lane should hold a/1, b/1 and a/2 (3 tasks), has %d", q)
	}
	if b.Pending() != 1 {
		t.Fatalf("only c/1 should still wait, pending=%d", b.Pending())
	}
}

func TestSpreadAcrossEgresses(t *testing.T) {
	b := NewBoard(8, []string{"e1", "e2"})
	first := b.Add(task("http://a/0", "a", 0)).Lane
	for i := 1; i < SpreadBacklog; i++ {
		if p := b.Add(task("http://a/x", "a", 0)); p.Lane != first {
			t.Fatalf("below the spread backlog host a must stay on lane %d", first.ID)
		}
	}
	p := b.Add(task("http://a/y", "a", 0))
	if !p.Opened || p.Lane.Egress == first.Egress {
		t.Fatalf("with a backlog, host a should spread to the other egress; got %+v (first on %d)", p, first.Egress)
	}
	// one egress only: never spreads, always joins (exact M1)
	b1 := NewBoard(8, []string{"only"})
	b1.Add(task("http://a/0", "a", 0))
	for i := 0; i < 10; i++ {
		if p := b1.Add(task("http://a/x", "a", 0)); p.Opened {
			t.Fatal("single egress must never open a second lane for a host")
		}
	}
}

func TestSetMaxOpensPendingLanes(t *testing.T) {
	b := NewBoard(1, nil)
	b.Add(task("http://a/1", "a", 0))
	b.Add(task("http://b/1", "b", 0))
	b.Add(task("http://c/1", "c", 0))
	opened, err := b.SetMax(3)
	if err != nil || len(opened) != 2 {
		t.Fatalf("SetMax(3) opened %d lanes (err %v), want 2", len(opened), err)
	}
	if _, err := b.SetMax(0); err == nil {
		t.Fatal("SetMax(0) must fail")
	}
}

// Lowering lanes.max below the lanes alive: a lane above the cap stops at its next
// turn and gives its queue back, whose tasks go to the lane left once it runs dry,
// so the host is fetched, by one lane, and nothing is lost.
func TestLoweredMaxShedsLanesAtTheirNextTurn(t *testing.T) {
	b := NewBoard(3, nil)
	a := b.Add(task("http://a/1", "a", 0)).Lane
	b.Add(task("http://a/2", "a", 0))
	c := b.Add(task("http://c/1", "c", 0)).Lane
	b.Add(task("http://c/2", "c", 0))
	if _, err := b.SetMax(1); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := b.Next(a); ok || !a.Retired() || b.Len() != 1 {
		t.Fatalf("lane above lanes.max 1 took a task (retired %v, %d lanes)", a.Retired(), b.Len())
	}
	if b.Pending() != 2 || !b.Holds("a") {
		t.Fatalf("the shed lane's tasks: %d pending, want 2, host a held %v", b.Pending(), b.Holds("a"))
	}
	var got []string
	for l := c; ; {
		tk, ok, opened := b.Next(l)
		if !ok {
			if len(opened) == 0 {
				break
			}
			l = opened[0] // the lane opened for the pending tasks once l ran dry
			continue
		}
		got = append(got, tk.URL)
		if b.Len() > 1 {
			t.Fatalf("%d lanes alive under lanes.max 1", b.Len())
		}
	}
	if want := "http://c/1 http://c/2 http://a/1 http://a/2"; strings.Join(got, " ") != want {
		t.Fatalf("fetched %q, want %q", strings.Join(got, " "), want)
	}
}

// A lane the operator paused does not take its turn, so it is never shed: counted
// against a lowered lanes.max, it would shed the lanes that fetch and leave the
// crawl standing until it is resumed. The cap counts the lanes that can fetch.
func TestLoweredMaxKeepsALaneThatFetchesBesideAPausedOne(t *testing.T) {
	b := NewBoard(3, nil)
	a := b.Add(task("http://a/1", "a", 0)).Lane
	c := b.Add(task("http://c/1", "c", 0)).Lane
	b.Add(task("http://c/2", "c", 0))
	if err := b.SetPaused(a.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetMax(1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"http://c/1", "http://c/2"} {
		tk, ok, _ := b.Next(c)
		if !ok || tk.URL != want {
			t.Fatalf("the one lane that can fetch under lanes.max 1 got %q (ok %v, retired %v), want %s", tk.URL, ok, c.Retired(), want)
		}
	}
	// Resumed, the paused lane makes two that can fetch: the next to take a turn
	// goes.
	if err := b.SetPaused(a.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := b.Next(a); ok || !a.Retired() || b.Len() != 1 {
		t.Fatalf("a resumed lane above lanes.max 1 took a task (retired %v, %d lanes)", a.Retired(), b.Len())
	}
}

func TestDropHost(t *testing.T) {
	b := NewBoard(1, nil)
	b.Add(task("http://a/1", "a", 0))
	b.Add(task("http://a/2", "a", 0))
	b.Add(task("http://b/1", "b", 0))
	got := b.DropHost("a")
	if len(got) != 2 {
		t.Fatalf("DropHost returned %d tasks, want 2", len(got))
	}
	if b.Queued() != 1 {
		t.Fatalf("queued %d after drop, want 1", b.Queued())
	}
}

// Once the parent page that tied two hosts is done, their queued tasks are no longer
// adjacent: the lane hands the other host's group to a new lane on the same egress.
func TestLaneSplitsWhenTheTieIsReleased(t *testing.T) {
	b := NewBoard(4, nil)
	l := b.Add(task("http://a/entry", "a", 0)).Lane
	if _, ok, _ := b.Next(l); !ok { // a/entry in hand
		t.Fatal("no task")
	}
	entry := uint64(42) // children of a/entry: a listing on a, a story on b (same parent)
	b.Add(task("http://a/list", "a", entry))
	b.Add(task("http://b/story", "b", entry))
	if b.Len() != 1 {
		t.Fatalf("siblings must share lane %d while their parent ties them", l.ID)
	}
	b.Next(l) // entry released; a/list in hand (b/story still tied by parent)
	b.Add(task("http://a/art1", "a", 7))
	b.Add(task("http://b/art1", "b", 8))
	if b.Len() != 1 {
		t.Fatal("b/art1 joins by host: b/story is still queued on the lane")
	}
	// a/list done; next is b/story: it and b/art1 stay; a/art1 is no longer tied to b.
	tk, ok, opened := b.Next(l)
	if !ok || tk.URL != "http://b/story" {
		t.Fatalf("next = %q", tk.URL)
	}
	if len(opened) != 1 || opened[0].Egress != l.Egress || opened[0].Backlog() != 1 {
		t.Fatalf("want a/art1 moved to one new lane on the same egress, opened %d", len(opened))
	}
	if p := b.Add(task("http://a/art2", "a", 9)); p.Lane != opened[0] {
		t.Fatal("host a is now bound to the new lane")
	}
	if p := b.Add(task("http://b/art2", "b", 9)); p.Lane != l {
		t.Fatal("host b stays with the old lane")
	}
	// no slots free: no split
	full := NewBoard(1, nil)
	f := full.Add(task("http://a/1", "a", 0)).Lane
	full.Add(task("http://b/1", "b", 0)) // pending
	full.Next(f)
	if full.Len() != 1 {
		t.Fatal("split must respect lanes.max")
	}
}

// A lane that runs dry takes over the newest half of the longest backlog on another
// egress instead of retiring (adjacency is per address), unless a lane on its own
// egress already holds those tasks' host.
func TestDryLaneTakesOverBacklogFromAnotherEgress(t *testing.T) {
	spread := false // host a may use e1 (index 0) only once spread is true
	allowed := func(e int, host string) bool { return host != "a" || e == 1 || spread }
	setup := func() (b *Board, lc, la *Lane) {
		spread = false
		b = NewBoard(8, []string{"e1", "e2"})
		b.Allowed = allowed
		lc = b.Add(task("http://c/0", "c", 0)).Lane // e1
		la = b.Add(task("http://a/0", "a", 0)).Lane // e2
		for i := 1; i <= 6; i++ {
			b.Add(task(fmt.Sprintf("http://a/%d", i), "a", 0))
		}
		if la.Egress != 1 || lc.Egress != 0 || la.Backlog() != 7 {
			t.Fatalf("setup: lane a on %d with %d queued, lane c on %d", la.Egress, la.Backlog(), lc.Egress)
		}
		if _, ok, _ := b.Next(lc); !ok { // c/0 in hand
			t.Fatal("no task for lane c")
		}
		spread = true
		return b, lc, la
	}

	t.Run("takes the newest half", func(t *testing.T) {
		b, lc, la := setup()
		tk, ok, _ := b.Next(lc)
		if !ok || tk.URL != "http://a/4" || lc.Backlog() != 2 || la.Backlog() != 4 || lc.Retired() {
			t.Fatalf("dry lane got %q ok=%v, backlog %d (donor %d); want a/4 then a/5, a/6 queued, a/0..a/3 left",
				tk.URL, ok, lc.Backlog(), la.Backlog())
		}
		if p := b.Add(task("http://a/7", "a", 0)); p.Lane != lc {
			t.Fatal("host a is now held on e1 by the lane that took its tasks")
		}
		if tk, _, _ := b.Next(la); tk.URL != "http://a/0" {
			t.Fatalf("the donor keeps its oldest tasks in order, next %q", tk.URL)
		}
		fetched := 3 // c/0, a/4, a/0
		for _, l := range []*Lane{la, lc} {
			for {
				if _, ok, _ := b.Next(l); !ok {
					break
				}
				fetched++
			}
		}
		if fetched != 9 || b.Len() != 0 || b.Holds("a") || b.Holds("c") {
			t.Fatalf("after the crawl: %d tasks fetched (want 9), %d lanes, holds a %v", fetched, b.Len(), b.Holds("a"))
		}
	})

	t.Run("not a paused host's tasks", func(t *testing.T) {
		b, lc, la := setup()
		b.Held = func(host string) bool { return host == "a" }
		if _, ok, _ := b.Next(lc); ok || !lc.Retired() || la.Backlog() != 7 {
			t.Fatalf("lane c must retire and leave the paused host's 7 tasks where they are (ok=%v, donor backlog %d)", ok, la.Backlog())
		}
	})

	t.Run("not while tasks wait for a lane", func(t *testing.T) {
		b, lc, _ := setup()
		b.SetMax(2) // both slots taken: the next new host waits
		if p := b.Add(task("http://d/0", "d", 0)); p.Lane != nil || b.Pending() != 1 {
			t.Fatalf("d/0 should wait for a lane, got lane %v, %d pending", p.Lane, b.Pending())
		}
		_, ok, opened := b.Next(lc)
		if ok || !lc.Retired() {
			t.Fatal("lane c must retire so that the waiting host gets its slot, not take over a's backlog")
		}
		if len(opened) != 1 || opened[0].Backlog() != 1 || b.Pending() != 0 {
			t.Fatalf("the freed slot must go to d/0: opened %d lanes, %d pending", len(opened), b.Pending())
		}
	})

	t.Run("not past another lane holding the host on its egress", func(t *testing.T) {
		b, lc, _ := setup()
		lx := b.Add(task("http://a/x", "a", 0)).Lane // backlog 7 on e2: a spreads to e1
		if lx.Egress != 0 || lx == lc {
			t.Fatalf("a/x should open a lane on e1, got lane %d on %d", lx.ID, lx.Egress)
		}
		if _, ok, _ := b.Next(lc); ok || !lc.Retired() {
			t.Fatal("lane c must retire: host a is held on e1 by another lane")
		}
	})
}

func TestTakeAllEmptiesLanesAndPending(t *testing.T) {
	b := NewBoard(1, []string{"e1"})
	for i, host := range []string{"a.test", "a.test", "b.test", "c.test"} {
		b.Add(frontier.Task{URL: fmt.Sprintf("http://%s/%d", host, i), Host: host, ParentHash: uint64(i + 1)})
	}
	if b.Queued() != 4 {
		t.Fatalf("queued %d before, want 4", b.Queued())
	}
	got := b.TakeAll()
	if len(got) != 4 || b.Queued() != 0 || b.Holds("a.test") || b.Holds("c.test") {
		t.Errorf("TakeAll gave %d tasks, left %d queued (holds a: %v, c: %v); want all 4 out, none left",
			len(got), b.Queued(), b.Holds("a.test"), b.Holds("c.test"))
	}
}
