package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/plural"
)

// The waits between tries to reach a master that is not there yet double from the
// first to the last: a master starting a moment later is joined at once, one down
// for long is not asked more than every few seconds.
const (
	joinRetryFirst = 250 * time.Millisecond
	joinRetryMost  = 10 * time.Second
	// joinTry bounds one try's wait for the join's answer once the master's server
	// accepts the connection (the master itself may still be starting).
	joinTry = 30 * time.Second
)

// errStoppedJoining: the worker was stopped while it waited for its master.
var errStoppedJoining = errors.New("stopped before the master answered")

// joinMaster connects to the master at url and joins it as wo says, retrying with
// backoff while the master cannot be reached (a worker started before its master,
// or while the master restarts) until wait has passed (0: until the master answers
// or ctx ends). It says once that the master is unreachable, and when it answered.
// A refused credential or an untrusted certificate is returned at once.
func joinMaster(ctx context.Context, url string, co cluster.ClientOptions, wo config.WorkerOptions, wait time.Duration,
	say func(format string, a ...any)) (*cluster.Conn, *engine.Worker, error) {
	start := time.Now()
	delay := joinRetryFirst
	for tries := 1; ; tries++ {
		wo.JoinTimeout = joinTry
		if wait > 0 {
			wo.JoinTimeout = max(min(joinTry, wait-time.Since(start)), time.Second)
		}
		conn, err := cluster.Connect(url, co)
		if err == nil {
			wo.Conn = conn
			var w *engine.Worker
			if w, err = engine.StartWorker(wo); err == nil {
				if tries > 1 {
					say("master answered after %v (%s)", time.Since(start).Round(100*time.Millisecond), plural.Count(tries, "try"))
				}
				return conn, w, nil
			}
			conn.Close()
		}
		if !cluster.Unreachable(err) {
			return nil, nil, err
		}
		if wait > 0 && time.Since(start)+delay > wait {
			return nil, nil, fmt.Errorf("%w; gave up after --join-wait %v", err, wait)
		}
		if tries == 1 {
			bound := "until it answers (--join-wait bounds the wait)"
			if wait > 0 {
				bound = fmt.Sprintf("for up to --join-wait %v", wait)
			}
			say("master unreachable: %v; retrying %s", err, bound)
		}
		select {
		case <-ctx.Done():
			return nil, nil, errStoppedJoining
		case <-time.After(delay):
		}
		delay = min(2*delay, joinRetryMost)
	}
}
