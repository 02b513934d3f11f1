package worker

import (
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// masterReach is whether the master answers the worker's heartbeats, so that a
// worker whose master went away says so, once, and says when it is back: an
// operator watching a worker's log otherwise saw nothing while its results piled up.
type masterReach struct {
	mu     sync.Mutex
	missed int       // heartbeats unanswered in a row
	since  time.Time // when the first of them was sent
	said   bool      // "master unreachable" was logged
}

// reachAfter is how many heartbeats in a row go unanswered before the worker says
// its master is unreachable: one reply may be late from a busy master.
const reachAfter = 2

// miss counts a heartbeat the master did not answer (err says why); l logs.
func (r *masterReach) miss(l Lanes, err error, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.missed == 0 {
		r.since = at
	}
	r.missed++
	if r.missed >= reachAfter && !r.said {
		r.said = true
		l.Logf(view.LevelWarn, "master unreachable: %d heartbeats unanswered since %s (%v); results wait here until it answers",
			r.missed, r.since.Format(time.TimeOnly), err)
	}
}

// answer notes a heartbeat the master answered.
func (r *masterReach) answer(l Lanes, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.said {
		l.Logf(view.LevelWarn, "master reachable again after %v", at.Sub(r.since).Round(time.Second))
	}
	r.missed, r.said = 0, false
}
