package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/worker"
)

// Leave ends the worker gracefully: it stops taking tasks, hands back those it has
// not fetched, finishes the ones in hand, publishes their results and tells the
// master it is gone. ctx bounds the whole wait; so does LeaveGrace while the
// connection to the master's server is down (the master killed with its embedded
// server, or out of reach). The worker is closed when Leave returns; a *LeaveError
// says what the master did not get.
func (w *Worker) Leave(ctx context.Context) error {
	lctx, done := worker.LeaveContext(ctx, w.nc, w.o.LeaveGrace)
	defer done()
	w.stopTasks()
	e := w.e
	e.mu.Lock()
	back := e.offBoard(e.board.TakeAll())
	e.mu.Unlock()
	handErr := w.up.Leave(lctx, back, false)
	notBack := 0 // unfetched URLs the master did not confirm taking back
	if handErr != nil {
		notBack = len(back)
	}
	// Tasks in hand finish and report; lanes retire as the board is empty.
	for {
		e.mu.Lock()
		busy := e.inHand
		e.mu.Unlock()
		if busy == 0 {
			break
		}
		select {
		case <-lctx.Done():
			return w.gaveUp(lctx, fmt.Errorf("%d fetches still in hand", busy), notBack)
		case <-time.After(20 * time.Millisecond):
		}
	}
	w.box.Flush()
	select {
	case <-w.box.Done():
	case <-lctx.Done():
		return w.gaveUp(lctx, errors.New("results still unpublished"), notBack)
	}
	// The final leave buries the worker at the master, which queues again what it
	// still held: the unfetched URLs too, had the hand-back above failed.
	if err := w.up.Leave(lctx, nil, true); err != nil {
		return w.gaveUp(lctx, fmt.Errorf("the master did not confirm the leave: %w", err), notBack)
	}
	w.Close()
	return nil
}

// ErrMasterUnreachable is a LeaveError's cause when the connection to the master's
// NATS server stayed down for the leave grace (WorkerOptions.LeaveGrace).
var ErrMasterUnreachable = worker.ErrMasterUnreachable

// LeaveError is Leave's error when the worker stopped before the master had all it
// held (worker.LeaveError).
type LeaveError = worker.LeaveError

// gaveUp closes a worker whose leave could not finish (what it was waiting for) and
// says what the master did not get; notBack are unfetched URLs it did not take back.
func (w *Worker) gaveUp(lctx context.Context, what error, notBack int) error {
	cause := what
	if c := context.Cause(lctx); errors.Is(c, ErrMasterUnreachable) {
		cause = fmt.Errorf("%w (no connection to its NATS server for %v)", ErrMasterUnreachable, w.o.LeaveGrace)
	} else if c != nil {
		cause = fmt.Errorf("%v at leave: %w", what, c)
	}
	w.stop() // from here a fetch that ends drops its result: counted as in hand
	w.e.mu.Lock()
	cut := w.e.inHand
	w.e.mu.Unlock()
	w.Close() // the publisher has stopped once it returns
	return &LeaveError{Cause: cause, Results: w.box.Unacked(), URLs: notBack + cut}
}

// stop tells the worker's goroutines and lanes to stop waiting for the master.
func (w *Worker) stop() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.quit)
		w.cancel()
	}
	w.mu.Unlock()
}

// Close stops the worker at once, without a leave: the master finds it silent and
// gives what it held to others.
func (w *Worker) Close() {
	w.stop()
	w.stopTasks()
	if w.ctlSub != nil {
		w.ctlSub.Unsubscribe()
	}
	if w.e != nil {
		w.e.Close()
	}
	w.bg.Wait()
}
