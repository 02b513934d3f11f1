package master

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A worker the operator paused stays paused when it comes back: declared dead
// and rejoining under its incarnation, or restarted under a new one, it shows
// paused and is dealt nothing until resumed.
func TestAPausedWorkerComesBackPaused(t *testing.T) {
	t.Parallel()
	for _, inc := range []string{"i", "j"} { // a rejoin, a restart
		tb := New(&keepAll{}, nil, 1)
		tb.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4}, time.Now(), 0)
		tb.Add(frontier.Task{URL: "http://a.test/1", Host: "a.test"})
		tb.SetPaused("w1", true)
		tb.BuryDead(time.Now().Add(time.Hour), time.Minute)
		tb.Join(&wire.Join{Node: "w1", Incarnation: inc, LanesMax: 4}, time.Now(), 0)
		if b := tb.Dispatch(10); len(b) != 0 {
			t.Errorf("incarnation %s: the paused w1, back, was dealt %v", inc, b)
		}
		tb.Heartbeat(wire.Heartbeat{Node: "w1", Incarnation: inc}, time.Now()) // the worker knows no pause yet
		if nodes, _ := tb.View(); nodes[0].State != view.NodePaused {
			t.Errorf("incarnation %s: the paused w1, back, shows %v", inc, nodes[0].State)
		}
		tb.SetPaused("w1", false)
		if b := tb.Dispatch(10); len(b) != 1 {
			t.Errorf("incarnation %s: w1 resumed was dealt %d batches, want 1", inc, len(b))
		}
	}
}

// A worker paused while the crawl found its sites takes none of them (they go to
// the active workers); resumed, it gets its share, as a worker joining would,
// instead of idling while another worker has them all queued.
func TestAResumedWorkerGetsItsShareOfTheSites(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	for _, w := range []string{"w1", "w2"} {
		tb.Join(&wire.Join{Node: w, Incarnation: "i", LanesMax: 4}, time.Now(), 0)
	}
	tb.SetPaused("w1", true)
	for _, h := range []string{"a", "b", "c", "d", "e", "f"} {
		tb.Add(frontier.Task{URL: "http://" + h + ".test/1", Host: h + ".test"})
	}
	tb.SetPaused("w1", false)
	dealt := map[string]int{}
	for _, b := range tb.Dispatch(10) {
		dealt[b.Node] += len(b.Tasks)
	}
	if dealt["w1"] != 3 || dealt["w2"] != 3 {
		t.Errorf("after w1's resume the six sites' tasks were dealt %v; want 3 to each worker", dealt)
	}
}
