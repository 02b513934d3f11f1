package worker

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// beatLanes are lanes that hold nothing, for the heartbeat's figures.
type beatLanes struct{ boardLanes }

func (l *beatLanes) Snapshot() view.Snapshot  { return view.Snapshot{} }
func (l *beatLanes) Holding() []frontier.Task { return nil }

// A master whose every heartbeat reply comes later than a heartbeat period (a busy
// master, a loaded box) still renews the worker's lease: it granted the lease, so
// the worker keeps starting requests. Before, a reply that missed the period was
// dropped, the lease ran out on the worker while the master held its hosts for
// it, and the worker stopped fetching until a reply came in time.
func TestLateHeartbeatRepliesRenewTheLease(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, err := cluster.StartServer(cluster.ServerOptions{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats"), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	conn, err := cluster.Connect(srv.ClientURL(), cluster.ClientOptions{Name: "w1", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	master, err := cluster.Connect(srv.ClientURL(), cluster.ClientOptions{Name: "master", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(master.Close)

	const every, late, lease = 50 * time.Millisecond, 400 * time.Millisecond, 2 * time.Second
	o := config.WorkerOptions{Conn: conn, Node: "w1", Prefix: "crawl"}
	sub := wire.Subjects(o.Prefix)
	var answered atomic.Int32
	// The master answers each heartbeat known, with the lease, 8 periods late.
	if _, err := master.NC.Subscribe(sub.Heartbeat("w1"), func(m *nats.Msg) {
		go func() {
			time.Sleep(late)
			data, _ := cluster.Encode(&wire.HeartbeatReply{Known: true, Lease: lease})
			m.Respond(data)
			answered.Add(1)
		}()
	}); err != nil {
		t.Fatal(err)
	}
	if err := master.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	quit := make(chan struct{})
	n := &Node{lanes: &beatLanes{}, o: o, inc: "i1", nc: conn.NC, sub: sub, hbEvery: every, quit: quit, ctx: ctx, cancel: cancel,
		lease: NewLease(nil), up: NewUpstream(ctx, quit, o, "i1"), box: NewOutbox(ctx, quit, conn, sub, "w1", "i1")}
	joined := time.Now()
	n.lease.Grant(joined, lease) // the join's
	first, _ := n.lease.Until()
	n.bg.Add(1)
	go n.heartbeat()
	defer func() {
		close(quit)
		cancel()
		n.bg.Wait()
	}()

	// Renewed once a late reply reached the worker: its end moves past the
	// join's. The deadline is a guard: a late reply comes within a second idle.
	deadline := time.Now().Add(30 * time.Second)
	for {
		until, on := n.lease.Until()
		if on && until.After(first) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the master answered %d heartbeats, each %v late with a %v lease, and the worker's lease still ends where the join put it: late replies dropped",
				answered.Load(), late, lease)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
