package lanes

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// The operator's tasks go to the head of their lane's queue in the order
// they were added, and a lane holding an ordinary task it has not sent yet can trade
// it for them without losing it or its place behind them.
func TestAddFirstAndPutBack(t *testing.T) {
	b := NewBoard(4, nil)
	l := b.Add(task("http://a/1", "a", 0)).Lane
	b.Add(task("http://a/2", "a", 0))
	inHand, _, _ := b.Next(l)
	if inHand.URL != "http://a/1" || l.TookUrgent() {
		t.Fatalf("took %s (urgent %v), want a/1, ordinary", inHand.URL, l.TookUrgent())
	}
	if b.UrgentAhead(l) {
		t.Fatal("no operator task queued, yet UrgentAhead")
	}
	for _, u := range []string{"http://a/k1", "http://a/k2"} {
		if p := b.AddFirst(task(u, "a", 0)); p.Lane != l {
			t.Fatalf("%s went to lane %v, want a's lane %d (M1: the host's lane)", u, p.Lane, l.ID)
		}
	}
	if !b.UrgentAhead(l) {
		t.Fatal("operator tasks at the head, yet not UrgentAhead")
	}
	b.PutBack(l, inHand)
	var got []string
	var urgent []bool
	for {
		tk, ok, _ := b.Next(l)
		if !ok {
			break
		}
		got = append(got, tk.URL)
		urgent = append(urgent, l.TookUrgent())
	}
	want := []string{"http://a/k1", "http://a/k2", "http://a/1", "http://a/2"}
	if len(got) != len(want) {
		t.Fatalf("fetch order %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] || urgent[i] != (i < 2) {
			t.Fatalf("fetch order %v (urgent %v), want %v with the first two urgent", got, urgent, want)
		}
	}
	if l.Done() != 4 {
		t.Errorf("lane done %d, want 4 (the task given back counts once)", l.Done())
	}
}

// A task given back keeps its host held: an adjacent task joins the same lane, never
// a second lane on the same address (M1).
func TestPutBackKeepsTheHostHeld(t *testing.T) {
	b := NewBoard(4, nil)
	l := b.Add(task("http://a/1", "a", 0)).Lane
	inHand, _, _ := b.Next(l)
	b.AddFirst(task("http://a/k", "a", 0))
	b.PutBack(l, inHand)
	if tk, _, _ := b.Next(l); tk.URL != "http://a/k" {
		t.Fatalf("next %s, want the operator's a/k", tk.URL)
	}
	if p := b.Add(task("http://a/2", "a", 0)); p.Lane != l {
		t.Fatalf("a/2 went to lane %v, want lane %d: a/1 is still held there", p.Lane, l.ID)
	}
}

// At the gate an urgent request to a host takes the host's next slot ahead of an
// ordinary one that came first and waits for the same slot (ten rounds: without
// the priority the ordinary one, first in line, would go first), and a waiter can
// be stopped.
func TestGateUrgentGoesFirstAndStop(t *testing.T) {
	const gap = 20 * time.Millisecond
	g := &Gate{Interval: func(string) (time.Duration, Reason) { return gap, ReasonDelay }}
	ctx := context.Background()
	for round := range 10 {
		// The host is held until both wait: on a loaded box the urgent request
		// could otherwise come after the slot was given.
		tk, _ := g.Acquire(ctx, 0, "a", 0)
		order := make(chan string, 2)
		for i, w := range []Wait{{}, {Urgent: true}} {
			go func() {
				tk, err := g.AcquireWith(ctx, w, 1, "a", 0)
				if err == nil {
					if w.Urgent {
						order <- "urgent"
					} else {
						order <- "ordinary"
					}
					g.Release(tk)
				}
			}()
			for g.waiters("a") < i+1 { // it came: the urgent one comes after the ordinary one
				time.Sleep(time.Millisecond)
			}
		}
		g.Release(tk) // the host's gap runs from here
		if first, second := <-order, <-order; first != "urgent" || second != "ordinary" {
			t.Fatalf("round %d: %s then %s; the urgent request should take the host's next slot", round, first, second)
		}
	}

	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := g.AcquireWith(ctx, Wait{Stop: stop}, 0, "a", 0)
		done <- err
	}()
	close(stop)
	if err := <-done; !errors.Is(err, ErrStopped) {
		t.Fatalf("stopped wait returned %v, want ErrStopped", err)
	}
}

// Articles a feed read has just listed go ahead of the lane's ordinary tasks (a due
// read, a revisit) in the order listed, behind the operator's tasks.
func TestAddAheadGoesBeforeOrdinaryBehindUrgent(t *testing.T) {
	b := NewBoard(4, nil)
	l := b.Add(task("http://a/read", "a", 0)).Lane
	b.Add(task("http://a/revisit", "a", 0))
	for _, u := range []string{"http://a/new1", "http://a/new2"} {
		if p := b.AddAhead(task(u, "a", 0)); p.Lane != l {
			t.Fatalf("%s went to lane %v, want a's lane %d (M1: the host's lane)", u, p.Lane, l.ID)
		}
	}
	b.AddFirst(task("http://a/op", "a", 0))
	b.AddAhead(task("http://a/new3", "a", 0))
	var got []string
	for {
		tk, ok, _ := b.Next(l)
		if !ok {
			break
		}
		got = append(got, tk.URL)
	}
	want := []string{"http://a/op", "http://a/new1", "http://a/new2", "http://a/new3", "http://a/read", "http://a/revisit"}
	if len(got) != len(want) {
		t.Fatalf("fetch order %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fetch order %v, want %v", got, want)
		}
	}
	if len(b.ahead) != 0 {
		t.Errorf("%d AddAhead marks left after every task was taken", len(b.ahead))
	}
}

// With every lane slot taken, an article a read listed waits in the pending queue's
// first tier: the next lane to open takes it before tasks that were pending earlier.
func TestAddAheadPendingOpensTheNextLaneFirst(t *testing.T) {
	b := NewBoard(1, nil)
	l := b.Add(task("http://a/1", "a", 0)).Lane
	b.Add(task("http://b/read", "b", 0))
	if p := b.AddAhead(task("http://c/new", "c", 0)); !p.Pending {
		t.Fatalf("c/new placed %+v with the only lane slot taken: want pending", p)
	}
	b.Add(task("http://b/2", "b", 0))
	if tk, ok, _ := b.Next(l); !ok || tk.URL != "http://a/1" {
		t.Fatalf("lane a took %v %v, want a/1", tk.URL, ok)
	}
	_, ok, opened := b.Next(l) // a ran dry: it retires and its slot goes to the pending tasks
	if ok || len(opened) != 1 {
		t.Fatalf("lane a: ok %v, %d lanes opened; want it retired and one lane opened", ok, len(opened))
	}
	var got []string
	for nl := opened[0]; ; {
		tk, ok, more := b.Next(nl)
		if !ok {
			if len(more) == 0 {
				break
			}
			nl = more[0]
			continue
		}
		got = append(got, tk.URL)
	}
	want := []string{"http://c/new", "http://b/read", "http://b/2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("fetch order %v, want %v: the listed article first", got, want)
	}
}

// Lowering lanes.max sheds a lane at its next turn and its queue waits for a lane
// again; the operator's task in it (a keyword search added live) keeps its place
// ahead of what was waiting already: the next lane to open takes it first, and takes
// it as the operator's.
func TestAShedLanesUrgentTaskKeepsItsPlace(t *testing.T) {
	b := NewBoard(2, nil)
	a := b.Add(task("http://a/1", "a", 0)).Lane
	c := b.Add(task("http://c/1", "c", 0)).Lane
	if p := b.Add(task("http://x/1", "x", 0)); !p.Pending {
		t.Fatalf("x/1 placed %+v with both lane slots taken: want pending", p)
	}
	if p := b.AddFirst(task("http://a/search", "a", 0)); p.Lane != a {
		t.Fatalf("the operator's a/search went to %+v, want a's lane", p)
	}
	if _, err := b.SetMax(1); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := b.Next(a); ok || !a.Retired() {
		t.Fatal("lane a above lanes.max 1 must be shed at its turn")
	}
	if tk, ok, _ := b.Next(c); !ok || tk.URL != "http://c/1" {
		t.Fatalf("lane c took %q, want c/1", tk.URL)
	}
	_, ok, opened := b.Next(c) // c ran dry: its slot goes to the tasks waiting
	if ok || len(opened) != 1 {
		t.Fatalf("lane c: ok %v, %d lanes opened; want it retired and one lane opened", ok, len(opened))
	}
	var got []string
	var urgent []bool
	for l := opened[0]; ; {
		tk, ok, more := b.Next(l)
		if !ok {
			if len(more) == 0 {
				break
			}
			l = more[0]
			continue
		}
		got = append(got, tk.URL)
		urgent = append(urgent, l.TookUrgent())
	}
	if len(got) == 0 || got[0] != "http://a/search" || !urgent[0] {
		t.Fatalf("after the shed: fetch order %v (urgent %v), want a/search first and as the operator's", got, urgent)
	}
	if want := "http://a/search http://a/1 http://x/1"; strings.Join(got, " ") != want {
		t.Fatalf("fetch order %q, want %q", strings.Join(got, " "), want)
	}
}

// With every lane slot taken, the operator's task that joins no lane waits ahead of
// every other waiting task, the articles a read listed included.
func TestAddFirstPendingOpensTheNextLaneFirst(t *testing.T) {
	b := NewBoard(1, nil)
	l := b.Add(task("http://a/1", "a", 0)).Lane
	b.Add(task("http://b/read", "b", 0))
	b.AddAhead(task("http://c/new", "c", 0))
	if p := b.AddFirst(task("http://d/search", "d", 0)); !p.Pending {
		t.Fatalf("d/search placed %+v with the only lane slot taken: want pending", p)
	}
	b.Next(l)
	_, _, opened := b.Next(l) // a ran dry: its slot goes to the pending tasks
	if len(opened) != 1 {
		t.Fatalf("%d lanes opened, want 1", len(opened))
	}
	if tk, ok, _ := b.Next(opened[0]); !ok || tk.URL != "http://d/search" || !opened[0].TookUrgent() {
		t.Fatalf("the lane opened took %q (urgent %v), want the operator's d/search", tk.URL, opened[0].TookUrgent())
	}
}
