package engine

import (
	"fmt"
	"sync"
)

// StallWorker holds w's engine lock as a process stalled on a loaded box would: the
// worker answers no control request, and sends no heartbeat, until resume is
// called (more than once is harmless).
func StallWorker(w *Worker) (resume func()) {
	w.e.mu.Lock()
	var once sync.Once
	return func() { once.Do(w.e.mu.Unlock) }
}

// IdleReport says what the end-of-crawl test (checkIdle) weighs, for a test's
// failure message: a crawl not done names what it still waits for.
func IdleReport(e *Engine) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	waiting, inHand := e.crew.Counts()
	return fmt.Sprintf("state %v, paused %v, board %d, waiting %d, in hand %d, revisit marks pending %d, front busy %v, spilled %v",
		e.state, e.paused, e.lanes.Board.Len(), waiting, inHand, e.fr.Marks().Pending(), e.fr.Busy(), e.fr.Spilled())
}
