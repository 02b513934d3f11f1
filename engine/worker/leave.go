package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// ErrMasterUnreachable is a LeaveError's cause when the connection to the master's
// NATS server stayed down for the leave grace (WorkerOptions.LeaveGrace).
var ErrMasterUnreachable = errors.New("master unreachable")

// LeaveError is a leave's error when the worker stopped before the master had all it
// held. None of it is lost to the crawl: the master queues those URLs again when it
// restarts (every URL it had handed out) or declares the worker dead (silent past the
// heartbeat timeout), and they are fetched again.
type LeaveError struct {
	// Cause is why the leave ended early: ErrMasterUnreachable, ctx's error, or the
	// master not confirming the final leave.
	Cause error
	// Results are fetched results the master's server had not acknowledged.
	Results int
	// URLs are URLs neither reported nor handed back: unfetched ones the master did
	// not confirm taking back, and fetches cut short.
	URLs int
}

func (e *LeaveError) Error() string {
	if !e.Lost() {
		return fmt.Sprintf("%v; nothing is missing: every result it fetched reached the master, and it held no URL to hand back", e.Cause)
	}
	return fmt.Sprintf("%v: %d fetched results not delivered, %d URLs not handed back; "+
		"the master queues their URLs again when it restarts or declares this worker dead", e.Cause, e.Results, e.URLs)
}

// Unwrap is the cause.
func (e *LeaveError) Unwrap() error { return e.Cause }

// Lost reports whether the master lacks anything of what the worker held.
func (e *LeaveError) Lost() bool { return e.Results > 0 || e.URLs > 0 }

// LeaveContext is ctx, also ended (cause ErrMasterUnreachable) once nc has stayed
// disconnected from its server for grace; a reconnect starts the grace over. Call
// the returned func when the leave is over.
func LeaveContext(ctx context.Context, nc *nats.Conn, grace time.Duration) (context.Context, func()) {
	lctx, cancel := context.WithCancelCause(ctx)
	changed := nc.StatusChanged() // before reading the status: no change is missed
	go func() {
		defer nc.RemoveStatusListener(changed)
		var timer *time.Timer
		var expired <-chan time.Time
		defer func() {
			if timer != nil {
				timer.Stop()
			}
		}()
		for {
			switch up := connUp(nc.Status()); {
			case up && timer != nil:
				timer.Stop()
				timer, expired = nil, nil
			case !up && timer == nil:
				timer = time.NewTimer(grace)
				expired = timer.C
			}
			select {
			case <-lctx.Done():
				return
			case _, ok := <-changed: // a wake-up: the status is read again
				if !ok {
					changed = nil
				}
			case <-expired:
				cancel(ErrMasterUnreachable)
				return
			}
		}
	}()
	return lctx, func() { cancel(nil) }
}

// connUp reports whether a connection in status s reaches its server.
func connUp(s nats.Status) bool {
	return s == nats.CONNECTED || s == nats.DRAINING_SUBS || s == nats.DRAINING_PUBS
}
