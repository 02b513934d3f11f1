package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// StoreError is why a crawl stopped itself: its store could not commit a write (disk
// full, an I/O error). What was committed before it is kept, and the batch that failed
// was rolled back whole; the URLs whose pages were not committed are still queued or
// in progress in the file, so a resume fetches them again and nothing is lost.
type StoreError struct {
	DB  string // the database file
	Err error  // the store's first write error
}

// Error names the database and the store's error.
func (e *StoreError) Error() string { return fmt.Sprintf("store %s failed: %v", e.DB, e.Err) }

// Unwrap gives the store's error.
func (e *StoreError) Unwrap() error { return e.Err }

// Advice says what the operator should do about it, in one sentence.
func (e *StoreError) Advice() string {
	return fmt.Sprintf("fetching stopped; what was committed is kept. Free disk space (or fix the I/O error), "+
		"then run again with --db %s to resume: the pages that were not committed are fetched again", e.DB)
}

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

// storeErrorText is the snapshot's and stats' StoreError: the store's error alone.
func storeErrorText(err error) string {
	var se *StoreError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// onCommit returns the callback for a write that moves a counter once the store
// committed it (stored pages, URLs done: a full disk never inflates them).
// Until then the write counts as outstanding, like a link insert, so Done never
// closes before the counters are final. A write that fails never calls it: the store
// failure stops the crawl instead.
func (e *Engine) onCommit(count func()) func() {
	e.mu.Lock()
	e.outstanding++
	e.mu.Unlock()
	return func() {
		count()
		e.mu.Lock()
		e.outstanding--
		e.checkIdle()
		e.mu.Unlock()
	}
}

// StoreFailureMeta is the store meta key under which a crawl that stopped on a store
// failure leaves a StoreFailure (JSON) for `crawlconsole stats`; the next run that
// starts on the database clears it (an empty value).
const StoreFailureMeta = "store.failure.v1"

// StoreFailure is the record of the store failure that stopped the last crawl.
type StoreFailure struct {
	At    time.Time `json:"at"`
	Error string    `json:"error"`
}

// noteLastFailure tells the operator that this run resumes a crawl its store
// stopped, and clears the record.
func (e *Engine) noteLastFailure() {
	b, err := e.st.GetMeta(StoreFailureMeta)
	if err != nil || len(b) == 0 {
		return
	}
	var f StoreFailure
	if json.Unmarshal(b, &f) == nil {
		e.logf(LevelWarn, 0, "", "the last run stopped at %s because its store failed (%s); resumed",
			f.At.Format(time.RFC3339), f.Error)
	}
	e.st.SetMeta(StoreFailureMeta, []byte{})
}
