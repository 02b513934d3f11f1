package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/store/internal/latency"
)

// writeOp is one queued write. apply runs inside the writer's open transaction and
// may return a func to run after that transaction commits (LinkResult callbacks).
// apply must be replayable: when a later op in the same batch fails, the transaction
// is rolled back and the surviving ops are applied again from the start.
type writeOp struct {
	apply   func(w *writer) (after func(), err error)
	barrier chan struct{} // non-nil: a Flush; closed once everything before it committed
	what    string        // for errors: "save page", "set state", ...
	key     string        // for errors: the URL, lane or key concerned
}

// writer is the single goroutine that owns the write connection. Grouping many small
// operations into one transaction is what makes the store fast: a commit costs a WAL
// append and a lock round-trip, a statement inside a transaction costs microseconds.
type writer struct {
	ctx   context.Context
	conn  *sql.Conn   // the write connection; run holds its driver connection (rawconn.go)
	dc    rawConn     // the driver connection, set while run holds it
	st    *statements // prepared on dc
	args  []driver.NamedValue
	ops   chan *writeOp
	done  chan struct{} // closed when run returns
	size  int
	delay time.Duration

	maxEvents   int
	eventsAdded int // in the open batch (over-counted after a replay; harmless)

	inTx    bool
	pageID  int64                // the highest pages.id in the open transaction; 0: not read yet (pageids.go)
	pending []*writeOp           // applied in the open transaction, in submission order
	afters  []func()             // their post-commit callbacks
	starts  map[string]startMark // InProgress marks held back in the open transaction (starts.go)
	urlRows map[string]int64     // row ids of URLs inserted without a page (urlrows.go)

	errMu  sync.Mutex
	err    error         // first write error; sticky
	failed chan struct{} // closed at the first write error (Store.Failed); nil on a read-only store

	closeErr error // closing the statements when run ended

	busy    atomic.Int64 // ns spent applying and committing, not waiting for ops
	commits latency.Hist // duration of each batch's COMMIT (CommitLatency)
}

// setErr records the first error. A write that failed (not one refused because the
// store is closed or read-only) also closes failed: the engine stops fetching on it.
func (w *writer) setErr(err error) {
	w.errMu.Lock()
	if w.err == nil {
		w.err = err
		if w.failed != nil && !errors.Is(err, ErrClosed) && !errors.Is(err, ErrReadOnly) {
			close(w.failed)
		}
	}
	w.errMu.Unlock()
}

// firstErr is the first write error, if any.
func (w *writer) firstErr() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// run holds the write connection's driver connection until the queue is closed,
// runs the writer loop on it, and closes the statements.
func (w *writer) run() {
	defer close(w.done)
	err := w.conn.Raw(func(dc any) error {
		rc, err := asRawConn(dc)
		if err != nil {
			return err
		}
		w.dc = rc
		defer func() { w.dc = nil }()
		w.loop()
		w.closeErr = w.st.close()
		return nil
	})
	if err != nil {
		w.setErr(fmt.Errorf("store: writer: %w", err))
		w.drain()
	}
}

// drain refuses every queued op once the writer cannot write, releasing Flush.
func (w *writer) drain() {
	for op := range w.ops {
		if op.barrier != nil {
			close(op.barrier)
		}
	}
}

// loop is the writer loop: take the first queued op, keep the transaction open for up
// to delay or size ops, commit, run the callbacks, repeat. A barrier (Flush) or the
// closed queue (Close) commits at once.
func (w *writer) loop() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		op, ok := <-w.ops
		if !ok {
			return
		}
		var barrier *writeOp
		if op.barrier != nil {
			barrier = op
		} else {
			w.add(op)
			timer.Reset(w.delay)
		gather:
			for len(w.pending) < w.size {
				select {
				case op, ok = <-w.ops:
					if !ok {
						break gather
					}
					if op.barrier != nil {
						barrier = op
						break gather
					}
					w.add(op)
				case <-timer.C:
					break gather
				}
			}
			timer.Stop() // since Go 1.23 Stop also discards a pending tick
		}
		w.commit()
		if barrier != nil {
			close(barrier.barrier)
		}
		if !ok {
			return
		}
	}
}

// add applies op in the open transaction, opening one if needed.
func (w *writer) add(op *writeOp) {
	start := time.Now()
	w.pending = append(w.pending, op)
	w.applyFrom(len(w.pending) - 1)
	w.busy.Add(int64(time.Since(start)))
}

// applyFrom applies pending[i:]. When an op fails, its error is recorded, the
// transaction rolled back, the op dropped, and the others replayed from the start, so
// one bad op never takes its batch-mates down with it.
func (w *writer) applyFrom(i int) {
	for i < len(w.pending) {
		if !w.inTx {
			if _, err := w.execSQL("BEGIN IMMEDIATE"); err != nil {
				w.setErr(fmt.Errorf("store: begin batch: %w", err))
				w.pending, w.afters = w.pending[:0], w.afters[:0]
				return
			}
			w.inTx = true
			w.pageID = 0
		}
		op := w.pending[i]
		after, err := op.apply(w)
		if err != nil {
			w.setErr(fmt.Errorf("store: %s %s: %w", op.what, op.key, err))
			w.rollback()
			w.pending = slices.Delete(w.pending, i, i+1)
			w.afters = w.afters[:0]
			i = 0
			continue
		}
		if after != nil {
			w.afters = append(w.afters, after)
		}
		i++
	}
}

// rollback abandons the open transaction.
func (w *writer) rollback() {
	if w.inTx {
		_, _ = w.execSQL("ROLLBACK")
		w.inTx = false
	}
	clear(w.starts)  // the replay holds them again
	clear(w.urlRows) // row ids the rolled-back transaction gave are given again
}

// commit ends the open transaction and, only once it is durable in the WAL, runs the
// callbacks: a LinkResult never reports a URL that a crash could still take back.
func (w *writer) commit() {
	start := time.Now()
	defer func() {
		w.busy.Add(int64(time.Since(start)))
		w.pending = w.pending[:0]
		clear(w.afters)
		w.afters = w.afters[:0]
	}()
	if !w.inTx {
		return
	}
	if err := w.writeStarts(); err != nil {
		w.setErr(fmt.Errorf("store: commit batch of %d operations: mark URLs in progress: %w", len(w.pending), err))
		w.rollback()
		return
	}
	w.pruneEvents()
	commitStart := time.Now()
	_, err := w.execSQL("COMMIT")
	w.commits.Observe(time.Since(commitStart))
	w.inTx = false
	if err != nil {
		w.setErr(fmt.Errorf("store: commit batch of %d operations: %w", len(w.pending), err))
		_, _ = w.execSQL("ROLLBACK")
		clear(w.urlRows)
		return
	}
	for _, f := range w.afters {
		f()
	}
}

// pruneEvents keeps the event log at maxEvents rows. It runs inside the open
// transaction of a batch that added events: one indexed delete per batch.
func (w *writer) pruneEvents() {
	if w.eventsAdded == 0 {
		return
	}
	w.eventsAdded = 0
	if _, err := w.exec(w.st.pruneEvents, w.maxEvents); err != nil {
		w.setErr(fmt.Errorf("store: prune events: %w", err))
	}
}
