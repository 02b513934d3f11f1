package engine

import "sync"

// StallWorker holds w's engine lock as a process stalled on a loaded box would: the
// worker answers no control request, and sends no heartbeat, until resume is
// called (more than once is harmless).
func StallWorker(w *Worker) (resume func()) {
	w.e.mu.Lock()
	var once sync.Once
	return func() { once.Do(w.e.mu.Unlock) }
}
