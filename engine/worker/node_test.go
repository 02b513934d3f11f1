package worker

import (
	"sync"
	"testing"
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
