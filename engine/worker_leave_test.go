package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/engine/worker"
)

// TestLeaveWithTheMasterGoneStopsWithinTheGrace: the master's NATS server goes away
// (a master killed with its embedded server), and a worker told to leave stops within
// the leave grace and a few seconds, not when its caller's minute for tasks in hand is
// over (71 s for `crawlconsole worker` before); its LeaveError says the master was
// unreachable and counts the results it could not deliver, at least the pages it
// fetched once the server was gone.
func TestLeaveWithTheMasterGoneStopsWithinTheGrace(t *testing.T) {
	t.Parallel()
	c := prepareCluster(t, enginetest.SandboxConfig(9, 12), 300*time.Millisecond, nil)
	// A lease (the master's timeout) that outlasts the test: w1 goes on fetching
	// with the master gone, as a worker does until its lease runs out.
	c.timeout = 10 * time.Minute
	c.startMaster()
	w := c.worker("w1", "127.0.0.2", "127.0.0.3")
	enginetest.WaitSnapshot(t, c.master, "w1 stores pages", func(s view.Snapshot) bool { return s.Totals.PagesStored >= 20 })
	// The server goes while w1 still holds tasks to fetch (else, under load, it may
	// have fetched all it had and never fetch again).
	enginetest.WaitSnapshot(t, w.Engine(), "w1 holding tasks", func(s view.Snapshot) bool { return s.QueueDepth > 0 })
	c.srv.Shutdown()
	// A page fetched from here has no server to take its result.
	before := w.Engine().Snapshot().Totals.PagesFetched
	enginetest.WaitSnapshot(t, w.Engine(), "w1 fetching with the master's server gone", func(s view.Snapshot) bool {
		return s.Totals.PagesFetched > before
	})
	const bound = 15 * time.Second // config.DefaultLeaveGrace is 5 s
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	began := time.Now()
	left := make(chan error, 1)
	go func() { left <- w.Leave(ctx) }()
	var err error
	select {
	case err = <-left:
	case <-time.After(bound):
		t.Fatalf("Leave still waiting %v after the master's server went away", bound)
	}
	took := time.Since(began)
	var le *worker.LeaveError
	if !errors.As(err, &le) || !errors.Is(err, worker.ErrMasterUnreachable) {
		t.Fatalf("Leave after %v: %v; want a LeaveError for an unreachable master", took, err)
	}
	if !le.Lost() || le.Results < 1 {
		t.Errorf("LeaveError counts %d results and %d URLs; w1 fetched %d pages after the server went away",
			le.Results, le.URLs, w.Engine().Snapshot().Totals.PagesFetched-before)
	}
	msg := err.Error()
	for _, want := range []string{
		"master unreachable",
		fmt.Sprintf("%d fetched results not delivered, %d URLs not handed back", le.Results, le.URLs),
		"the master queues their URLs again",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("Leave's error %q does not say %q", msg, want)
		}
	}
	t.Logf("Leave returned after %v: %v", took.Round(time.Millisecond), err)
}
