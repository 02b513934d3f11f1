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

// A master that answers a claim only after the worker stopped waiting still grants
// the egress: it counts it as the worker's until the worker dies or leaves. The
// worker keeps that late grant and its next claim takes it without asking again.
// Before, the reply went nowhere and the account sat unused in the master's table
// for the worker's whole life.
func TestAClaimGrantedPastTheWaitServesTheNextClaim(t *testing.T) {
	t.Parallel()
	_, connect := natstest.Start(t)
	conn, master := connect("w1"), connect("master")
	o := config.WorkerOptions{Conn: conn, Node: "w1", Prefix: "crawl"}
	sub := wire.Subjects(o.Prefix)
	asked := make(chan *nats.Msg, 4)
	if _, err := master.NC.Subscribe(sub.Claim(), func(m *nats.Msg) { asked <- m }); err != nil {
		t.Fatal(err)
	}
	if err := master.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	up := NewUpstream(context.Background(), make(chan struct{}), o, "i1")
	up.wait = 50 * time.Millisecond
	if sp, ok := up.Claim(); ok {
		t.Fatalf("a claim the master did not answer granted %+v", sp)
	}
	first := <-asked // answered only now, the claim given up
	data, _ := cluster.Encode(&wire.ClaimReply{Egress: &wire.Egress{Name: "spare", Kind: "bind", Address: "127.0.0.51"}})
	if err := first.Respond(data); err != nil {
		t.Fatal(err)
	}
	select {
	case sp := <-up.late: // the worker kept it
		up.late <- sp
	case <-time.After(30 * time.Second): // a bound for the failure only
		t.Fatal("the master's late grant never reached the worker")
	}
	up.wait = time.Hour // a claim sent to the master now would wait, unanswered
	sp, ok := up.Claim()
	if !ok || sp.Name != "spare" || sp.Address != "127.0.0.51" {
		t.Fatalf("the next claim = %+v, %v; want the late grant of spare (127.0.0.51)", sp, ok)
	}
	if len(asked) != 0 {
		t.Fatalf("the next claim asked the master again (%d requests) with a granted egress in hand", len(asked))
	}
}
