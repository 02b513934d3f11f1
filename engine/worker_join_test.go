package engine

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// TestWorkerAnswersControlsFromTheMomentItJoins: the master counts a worker joined
// when it answers its join, and may send it a control right then (the operator's
// pause on the Nodes pane, a release when another worker joins). The worker answers
// it, once its engine runs, instead of the request failing with "no responders"
// because its control subscription came only after the join (the cause of the
// intermittent failures of TestGlobalPauseAndResumeReachWorkersAtOnce and
// TestWorkerKeepsItsOwnEgressesBesideGrantedOnes under load).
func TestWorkerAnswersControlsFromTheMomentItJoins(t *testing.T) {
	t.Parallel()
	m, conn := startIdleCluster(t, 200*time.Millisecond)
	defer m.Close()
	// An operator who pauses the worker the moment the master hears its join: a
	// second subscriber of the join subject sees the request as the master does.
	op := conn("operator")
	answered := make(chan error, 1)
	sub, err := op.NC.Subscribe(config.DefaultClusterPrefix+".join", func(*nats.Msg) {
		go func() {
			data, err := cluster.Encode(&wire.Control{Op: "pause"})
			if err == nil {
				var msg *nats.Msg
				if msg, err = op.NC.Request(config.DefaultClusterPrefix+".ctl.w1", data, 10*time.Second); err == nil {
					var r wire.ControlReply
					if err = cluster.Decode(msg.Data, &r, 0); err == nil && r.Error != "" {
						err = errors.New(r.Error)
					}
				}
			}
			answered <- err
		}()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := op.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	w := startWorker(t, config.WorkerOptions{Conn: conn("w1"), Node: "w1", Egress: []string{"bind:127.0.0.60"},
		AllowPrivate: []string{"127.0.0.0/8"}})
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("a pause sent to the worker as it joined: %v", err)
		}
	case <-time.After(patience):
		t.Fatal("the pause sent to the worker as it joined got no answer")
	}
	if st := w.Engine().Snapshot().State; st != view.StatePaused {
		t.Errorf("worker state %v after the pause it answered; want paused", st)
	}
}

// startIdleCluster starts an embedded NATS server and a master with one seed that
// resolves nowhere and heartbeat period hb; conn connects a client to the server.
func startIdleCluster(t *testing.T, hb time.Duration) (*Engine, func(name string) *cluster.Conn) {
	t.Helper()
	dir, conn := natstest.Start(t)
	o := testDefaults()
	o.DB = filepath.Join(dir, "crawl.db")
	o.Seeds = []string{"http://example.test/"}
	o.DNSServers = []string{"127.0.0.1:1"}
	return startMaster(t, o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: hb}), conn
}

// startMaster builds a master of the crawl o and starts it; it is closed when the
// test ends, if the test has not closed it before.
func startMaster(t testing.TB, o config.Options, mo config.MasterOptions) *Engine {
	t.Helper()
	m, err := NewMaster(o, mo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	return m
}

// startWorker starts a worker with wo; it is closed when the test ends, if the
// test has not closed it before.
func startWorker(t testing.TB, wo config.WorkerOptions) *Worker {
	t.Helper()
	w, err := StartWorker(wo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}
