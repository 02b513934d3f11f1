package engine

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/master"
)

// TestWorkerClaimsAnEgressFromTheMasterTable: a worker whose egresses were all
// refused asks the master's account table for another (seed 003 step 3-2-3): it gets
// a free one once, then none; a dead worker's grants go back to the table.
func TestWorkerClaimsAnEgressFromTheMasterTable(t *testing.T) {
	t.Parallel()
	dir, conn := natstest.Start(t)
	o := testDefaults()
	o.DB = filepath.Join(dir, "crawl.db")
	o.Seeds = []string{"http://example.test/"}
	o.Egress = []string{"bind:127.0.0.50", "bind:127.0.0.51"}
	o.Rotation.PerNode = 1
	o.DNSServers = []string{"127.0.0.1:1"}
	// The claims are a live worker's: with the default timeout (600 ms and its
	// margin) a loaded box that left its heartbeats unanswered for a second or two
	// had it buried before it claimed, and the claim refused. Its death after Close
	// comes as the master's clock is moved past this timeout, not after it.
	var ahead atomic.Int64
	o.Now = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	m, err := NewMaster(o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: 200 * time.Millisecond, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	t.Cleanup(func() { logWarnings(t, "master", m) })
	w, err := StartWorker(config.WorkerOptions{Conn: conn("w1"), Node: "w1", AllowPrivate: []string{"127.0.0.0/8"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(w.e.lanes.Run.Links); got != 1 {
		t.Fatalf("worker joined with %d egresses, want per_node = 1", got)
	}
	sp, ok := w.Claim()
	if !ok || sp.Address != "127.0.0.51" {
		t.Fatalf("claim = %+v, %v; want the table's free bind:127.0.0.51", sp, ok)
	}
	if _, ok := w.Claim(); ok {
		t.Fatal("a second claim succeeded; the table has no free egress left")
	}
	w.Close() // silent from now on: dead after the timeout, its grants return
	deadline := time.Now().Add(patience)
	for {
		// Each look moves the master's clock a timeout on: a heartbeat sent before
		// the close and read after a move is past all the same at the next.
		ahead.Add(int64(time.Minute))
		free := 0
		for _, a := range m.crew.(*master.Crew).Accounts().Accounts() {
			if a.Node == "" || a.State != "assigned" {
				free++
			}
		}
		if free == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead worker's egresses did not return to the table: %+v", m.crew.(*master.Crew).Accounts().Accounts())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
