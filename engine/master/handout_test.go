package master

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// withdrawing is a front on which the operator withdrew one URL.
type withdrawing struct {
	keepAll
	url string
}

func (f *withdrawing) HandedBack(t frontier.Task) bool {
	f.back++
	return t.URL != f.url
}

// A dead worker's hand-outs go back to their unit's queue in the order they were
// handed out, through the front (which drops one the operator withdrew meanwhile);
// the worker's late report for one of them counts late, not as a result, and does not
// end the new hand-out.
func TestDeadWorkersHandOutsComeBackInOrder(t *testing.T) {
	t.Parallel()
	front := &withdrawing{url: "http://www.a.test/2"}
	tb := New(front, nil, 100)
	now := time.Unix(1700000000, 0)
	for _, w := range []string{"w1", "w2"} {
		tb.addNode(w).heard = now
	}
	for _, p := range []string{"1", "2", "3", "4"} {
		tb.Add(frontier.Task{URL: "http://www.a.test/" + p, Host: "www.a.test"})
	}
	owner := tb.units["a.test"].owner
	batches := tb.Dispatch(3)
	if len(batches) != 1 || batches[0].Node != owner || len(batches[0].Tasks) != 3 || front.out != 3 {
		t.Fatalf("dispatch with a window of 3: %+v (front saw %d hand-outs); want 3 tasks to %s", batches, front.out, owner)
	}
	if p, o := tb.Counts(); p != 1 || o != 3 {
		t.Fatalf("counts %d waiting, %d out; want 1, 3", p, o)
	}
	first := batches[0].Tasks[0]
	other := "w1"
	if owner == "w1" {
		other = "w2"
	}
	tb.nodes[other].heard = now.Add(time.Hour)
	if dead := tb.BuryDead(now.Add(time.Hour), time.Minute); len(dead) != 1 || dead[0].Name != owner {
		t.Fatalf("buried %v, want [%s]", dead, owner)
	}
	if got := tb.units["a.test"].owner; got != other {
		t.Fatalf("the unit went to %q, want the live %s", got, other)
	}
	var urls []string
	for _, task := range tb.units["a.test"].tasks {
		urls = append(urls, task.URL)
		if task.Lease != 0 {
			t.Errorf("%s came back with lease %d; a requeued task's lease no longer counts", task.URL, task.Lease)
		}
	}
	want := []string{"http://www.a.test/1", "http://www.a.test/3", "http://www.a.test/4"}
	if len(urls) != len(want) || urls[0] != want[0] || urls[1] != want[1] || urls[2] != want[2] {
		t.Fatalf("queue after the death %v, want %v (in hand-out order, the withdrawn /2 dropped)", urls, want)
	}
	if p, o := tb.Counts(); p != 3 || o != 0 || front.back != 3 {
		t.Fatalf("counts %d waiting, %d out, %d handed back; want 3, 0, 3", p, o, front.back)
	}
	again := tb.Dispatch(10)
	if len(again) != 1 || again[0].Node != other || again[0].Tasks[0].URL != first.URL || again[0].Tasks[0].Lease == first.Lease {
		t.Fatalf("second dispatch %+v: want %s first to %s under a new lease", again, first.URL, other)
	}
	if tb.Settle(owner, first, true) {
		t.Fatal("the dead worker's report on its old hand-out was taken")
	}
	if s := tb.Stats(); s.LateResults != 1 || s.Nodes[owner].Late != 1 || s.Nodes[owner].Results != 0 || s.Nodes[owner].State != view.NodeDead {
		t.Fatalf("stats %+v: want one late report from the dead %s and no result", s, owner)
	}
	if !tb.Settle(other, again[0].Tasks[0], true) || tb.Stats().Nodes[other].Results != 1 {
		t.Fatalf("the current hand-out's result was not taken: %+v", tb.Stats())
	}
	if !tb.Settle(other, again[0].Tasks[1], false) || tb.Stats().Nodes[other].Results != 1 {
		t.Fatalf("a deferral counted as a result: %+v", tb.Stats())
	}
}

// A task queued while its URL is in flight (the front paging it in again before
// the hand-out out reported) is not handed out a second time: the worker holding
// it fetches it once, its report is the URL's current one (not late), and the
// stats count the task dropped. Before, the second dispatch handed the URL out
// under a new lease: two fetches of the page, the first report counted late.
func TestDispatchHandsAURLInFlightOnce(t *testing.T) {
	t.Parallel()
	front := &keepAll{}
	tb := New(front, nil, 100)
	tb.addNode("w1")
	page := frontier.Task{URL: "http://www.a.test/1", Host: "www.a.test"}
	tb.Add(page)
	first := tb.Dispatch(10)
	if len(first) != 1 || len(first[0].Tasks) != 1 {
		t.Fatalf("first dispatch %+v; want /1 to w1", first)
	}
	out := first[0].Tasks[0]
	tb.Add(page) // queued again while its hand-out is out
	tb.Add(frontier.Task{URL: "http://www.a.test/2", Host: "www.a.test"})
	second := tb.Dispatch(10)
	if len(second) != 1 || len(second[0].Tasks) != 1 || second[0].Tasks[0].URL != "http://www.a.test/2" {
		t.Fatalf("second dispatch %+v; want /2 alone (/1 is out under lease %d)", second, out.Lease)
	}
	if p, o := tb.Counts(); p != 0 || o != 2 || front.out != 2 {
		t.Fatalf("counts %d waiting, %d out, %d hand-outs; want 0, 2, 2", p, o, front.out)
	}
	if !tb.Settle("w1", out, true) {
		t.Fatal("the report of /1's one hand-out was taken late")
	}
	if s := tb.Stats(); s.Doubled != 1 || s.LateResults != 0 {
		t.Fatalf("stats: %d doubled, %d late; want 1, 0", s.Doubled, s.LateResults)
	}
}
