package worker

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
)

// A busy master that grants a claim 2.5 s after it was asked: the worker takes the
// egress. Before, the worker gave up at 2 s and the grant stayed the worker's in the
// master's table, unused, until the worker died.
func TestLateClaimReplyIsTaken(t *testing.T) {
	t.Parallel()
	_, connect := natstest.Start(t)
	conn, master := connect("w1"), connect("master")

	o := config.WorkerOptions{Conn: conn, Node: "w1", Prefix: "crawl"}
	sub := wire.Subjects(o.Prefix)
	if _, err := master.NC.Subscribe(sub.Claim(), func(m *nats.Msg) {
		time.Sleep(2500 * time.Millisecond) // the master is busy
		data, _ := cluster.Encode(&wire.ClaimReply{Egress: &wire.Egress{Name: "spare", Kind: "bind", Address: "127.0.0.51"}})
		_ = m.Respond(data)
	}); err != nil {
		t.Fatal(err)
	}
	if err := master.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	up := NewUpstream(context.Background(), make(chan struct{}), o, "i1")
	sp, ok := up.Claim()
	if !ok || sp.Name != "spare" || sp.Address != "127.0.0.51" {
		t.Fatalf("claim = %+v, %v; want the master's late grant of spare (127.0.0.51)", sp, ok)
	}
}
