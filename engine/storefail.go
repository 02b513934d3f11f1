package engine

import (
	"encoding/json"

	"github.com/crawlconsole/crawlconsole/engine/front"
)

// StoreError is why a crawl stopped itself: its store could not commit a write
// (front.StoreError).
type StoreError = front.StoreError

// StoreFailureMeta is the store meta key under which a crawl that stopped on a
// store failure leaves a StoreFailure (front.StoreFailureMeta).
const StoreFailureMeta = front.StoreFailureMeta

// StoreFailure is the record of the store failure that stopped the last crawl
// (front.StoreFailure).
type StoreFailure = front.StoreFailure

// Failed is closed when the crawl stopped itself because its store failed; Failure
// says why. A crawl that only ran dry or was stopped never closes it.
func (e *Engine) Failed() <-chan struct{} { return e.failed }

// Failure is the error that stopped the crawl (a *StoreError), nil while it is healthy.
func (e *Engine) Failure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failure
}

// watchStore waits for the store's first failed write and stops the crawl
// on it. Going on would fetch pages that cannot be stored, move counters for writes
// that never happened, and leave link callbacks that never come (the crawl would never
// run dry). Stopping, not pausing: after a lost batch the frontier in memory no longer
// matches the file (URLs marked seen whose insert was rolled back), and the file is the
// truth a restart resumes from — the same path as after kill -9.
func (e *Engine) watchStore() {
	defer e.wg.Done()
	select {
	case <-e.ctx.Done():
		return
	case <-e.st.Failed():
	}
	err := &StoreError{DB: e.st.Path(), Err: e.st.Err()}
	e.mu.Lock()
	if e.failure == nil {
		e.failure = err
		e.broadcast()
	}
	e.mu.Unlock()
	e.logf(LevelError, 0, "", "STORE FAILED: %v; %s", err.Err, err.Advice())
	close(e.failed)
	// Best effort, for `crawlconsole stats`: a one-row write often still fits (the
	// failed batch's frames left room at the end of the WAL); if not, the console,
	// the stats object and the exit status have said it.
	if b, jerr := json.Marshal(StoreFailure{At: e.now(), Error: err.Err.Error()}); jerr == nil {
		e.st.SetMeta(StoreFailureMeta, b)
	}
	// Lanes abandon their requests, the master stops dispatching and leaves its
	// workers' results unacknowledged in the stream (M4: the next master commits
	// them), the revisit and round schedulers stop.
	e.cancel()
}
