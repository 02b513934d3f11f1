package worker

import (
	"context"
	"sync"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// pauseLanes are lanes that only pause and resume (the rest of Lanes is not called).
type pauseLanes struct {
	Lanes
	mu     sync.Mutex
	paused bool
}

func (l *pauseLanes) Paused() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.paused }
func (l *pauseLanes) Pause()       { l.mu.Lock(); l.paused = true; l.mu.Unlock() }
func (l *pauseLanes) Resume()      { l.mu.Lock(); l.paused = false; l.mu.Unlock() }

// TestStaleHeartbeatReplyDoesNotUndoACrawlPause: p on the master pauses a worker; a
// heartbeat reply the master sent just before (crawl running) and the worker reads
// just after leaves it paused, where it used to resume it until its next heartbeat.
// The numbers also keep a pause and a resume that overtake each other in order, and
// a join's state is taken whatever its number (a restarted master).
func TestStaleHeartbeatReplyDoesNotUndoACrawlPause(t *testing.T) {
	l := &pauseLanes{}
	n := &Node{lanes: l}
	const before = 1000 // the master's number when the replies were sent: running
	n.setCrawlPaused(before+1, true, false)
	if !l.Paused() {
		t.Fatal("the master's pause did not pause the lanes")
	}
	for _, step := range []struct {
		what         string
		seq          uint64
		paused, join bool
		want         bool
	}{
		{"the heartbeat reply from before the pause", before, false, false, true},
		{"an unnumbered state (a master of an older version)", 0, false, false, false},
		{"the pause again, numbered", before + 1, true, false, true},
		{"a resume numbered before that pause", before, false, false, true},
		{"a join to a restarted master counting from lower", 1, false, true, false},
	} {
		n.setCrawlPaused(step.seq, step.paused, step.join)
		if got := l.Paused(); got != step.want {
			t.Errorf("after %s: paused %v, want %v", step.what, got, step.want)
		}
	}
}

// holdingLanes are lanes holding some tasks (only Snapshot and Holding are called).
type holdingLanes struct {
	Lanes
	tasks []frontier.Task
}

func (l *holdingLanes) Snapshot() view.Snapshot  { return view.Snapshot{} }
func (l *holdingLanes) Holding() []frontier.Task { return l.tasks }

// A worker's heartbeat says it is idle only when it holds no task at all: none on
// its board or in a lane's hand, and no report its server has not acknowledged (the
// master takes back what it counts handed to an idle worker: a task whose report is
// still on its way is not lost).
func TestHeartbeatIsIdleOnlyHoldingNothing(t *testing.T) {
	l := &holdingLanes{tasks: []frontier.Task{{URL: "http://www.a.test/1", Lease: 7}}}
	quit := make(chan struct{})
	defer close(quit)
	n := &Node{lanes: l, box: NewOutbox(context.Background(), quit, nil, wire.Subjects("t"), "w1", "i")}
	if n.beat().Idle {
		t.Fatal("idle with a task on its lanes")
	}
	l.tasks = nil
	n.box.Result(wire.Result{Task: frontier.Task{URL: "http://www.a.test/1", Lease: 7}})
	if n.beat().Idle {
		t.Fatal("idle with a report its server has not acknowledged")
	}
	n.box.settle(7)
	if !n.beat().Idle {
		t.Fatal("not idle holding nothing")
	}
}
