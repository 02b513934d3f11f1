package worker

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Leave ends the worker gracefully: it stops taking tasks, hands back those it has
// not fetched, finishes the ones in hand, publishes their results and tells the
// master it is gone. ctx bounds the whole wait; so does LeaveGrace while the
// connection to the master's server is down (the master killed with its embedded
// server, or out of reach). The worker is closed when Leave returns; a *LeaveError
// says what the master did not get.
func (n *Node) Leave(ctx context.Context) error {
	lctx, done := LeaveContext(ctx, n.nc, n.o.LeaveGrace)
	defer done()
	n.stopTasks()
	back := n.lanes.TakeAll()
	handErr := n.up.Leave(lctx, back, false)
	notBack := 0 // unfetched URLs the master did not confirm taking back
	if handErr != nil {
		notBack = len(back)
	}
	// Tasks in hand finish and report; lanes retire as the board is empty.
	for {
		busy := n.lanes.InHand()
		if busy == 0 {
			break
		}
		select {
		case <-lctx.Done():
			return n.gaveUp(lctx, fmt.Errorf("%d fetches still in hand", busy), notBack)
		case <-time.After(20 * time.Millisecond):
		}
	}
	n.box.Flush()
	select {
	case <-n.box.Done():
	case <-lctx.Done():
		return n.gaveUp(lctx, errors.New("results still unpublished"), notBack)
	}
	// The final leave buries the worker at the master, which queues again what it
	// still held: the unfetched URLs too, had the hand-back above failed.
	if err := n.up.Leave(lctx, nil, true); err != nil {
		return n.gaveUp(lctx, fmt.Errorf("the master did not confirm the leave: %w", err), notBack)
	}
	n.Close()
	return nil
}

// gaveUp closes a worker whose leave could not finish (what it was waiting for) and
// says what the master did not get; notBack are unfetched URLs it did not take back.
func (n *Node) gaveUp(lctx context.Context, what error, notBack int) error {
	cause := what
	if c := context.Cause(lctx); errors.Is(c, ErrMasterUnreachable) {
		cause = fmt.Errorf("%w (no connection to its NATS server for %v)", ErrMasterUnreachable, n.o.LeaveGrace)
	} else if c != nil {
		cause = fmt.Errorf("%v at leave: %w", what, c)
	}
	n.stop() // from here a fetch that ends drops its result: counted as in hand
	cut := n.lanes.InHand()
	n.Close() // the publisher has stopped once it returns
	return &LeaveError{Cause: cause, Results: n.box.Unacked(), URLs: notBack + cut}
}

// stop tells the worker's goroutines and lanes to stop waiting for the master.
func (n *Node) stop() {
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		close(n.quit)
		n.cancel()
	}
	n.mu.Unlock()
}

// Close stops the worker at once, without a leave: the master finds it silent and
// gives what it held to others.
func (n *Node) Close() {
	n.stop()
	n.stopTasks()
	if n.ctlSub != nil {
		n.ctlSub.Unsubscribe()
	}
	if n.lanes != nil {
		n.lanes.Close()
	}
	n.bg.Wait()
}
