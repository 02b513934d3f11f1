package worker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// A busy master that grants a claim only after a while: the claim waits for the
// answer and the worker takes the egress. The master's answer is held until the
// claim is in, not for a time: the claim's wait here is an hour, and the default
// must outlast the more than 2 s a busy master took on a loaded box. Before, the
// worker gave up at 2 s and the grant stayed the worker's in the master's table,
// unused, until the worker died.
func TestLateClaimReplyIsTaken(t *testing.T) {
	t.Parallel()
	if claimWait <= 2*time.Second {
		t.Fatalf("a claim waits %v for the master; a busy master took more than 2 s on a loaded box", claimWait)
	}
	up, _, asked, _ := claimRig(t, false)
	if up.wait != claimWait {
		t.Fatalf("a claim waits %v for the master; want claimWait, %v", up.wait, claimWait)
	}
	up.wait = time.Hour
	go func() {
		m := <-asked // the master is busy: it answers once it has the claim, whenever that is
		data, _ := cluster.Encode(&wire.ClaimReply{Egress: &wire.Egress{Name: "spare", Kind: "bind", Address: "127.0.0.51"}})
		_ = m.Respond(data)
	}()
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
	up, _, asked, _ := claimRig(t, false)
	lateGrant(t, up, asked)
	up.wait = time.Hour // a claim sent to the master now would wait, unanswered
	sp, ok := up.Claim()
	if !ok || sp.Name != "spare" || sp.Address != "127.0.0.51" {
		t.Fatalf("the next claim = %+v, %v; want the late grant of spare (127.0.0.51)", sp, ok)
	}
	if len(asked) != 0 {
		t.Fatalf("the next claim asked the master again (%d requests) with a granted egress in hand", len(asked))
	}
}

// lateGrant makes a claim of up give up unanswered (the master's subscription puts
// it on asked), then answers it with spare (127.0.0.51) and waits until the worker
// kept that late grant.
func lateGrant(t *testing.T, up *Upstream, asked <-chan *nats.Msg) {
	t.Helper()
	up.wait = 50 * time.Millisecond
	if sp, ok := up.Claim(); ok {
		t.Fatalf("a claim the master did not answer granted %+v", sp)
	}
	data, _ := cluster.Encode(&wire.ClaimReply{Egress: &wire.Egress{Name: "spare", Kind: "bind", Address: "127.0.0.51"}})
	if err := (<-asked).Respond(data); err != nil { // answered only now, the claim given up
		t.Fatal(err)
	}
	select {
	case sp := <-up.late: // the worker kept it
		up.late <- sp
	case <-time.After(30 * time.Second): // a bound for the failure only
		t.Fatal("the master's late grant never reached the worker")
	}
}

// A late grant kept for the next claim is the worker's only while the master still
// counts it so: a rejoin means the master restarted or declared the worker dead,
// which released its egresses, maybe to another worker by now. After a rejoin the
// next claim asks the master again instead of using the grant from before.
func TestARejoinDropsTheLateGrants(t *testing.T) {
	t.Parallel()
	up, _, asked, _ := claimRig(t, true)
	lateGrant(t, up, asked)
	if _, err := up.Join(nil, false); err != nil { // the master declared w1 dead: it joins again
		t.Fatal(err)
	}
	claimAsksAgain(t, up, asked, "the rejoin", "granted before it")
}

// unknownEgressLanes have no egress in their rotation: removing one fails as the
// rotation's table does.
type unknownEgressLanes struct{ *boardLanes }

func (unknownEgressLanes) RemoveEgress(name string) error {
	return fmt.Errorf("egress %s: %w", name, egress.ErrUnknownEgress)
}

// The operator removes an egress the master granted w1 past a claim's wait: w1
// holds it as a late grant only, not in its rotation yet. The removal forgets the
// grant (the next claim asks the master instead of taking an egress the master no
// longer counts as w1's) and succeeds, though the rotation never had it.
func TestAnEgressRemovedDropsItsLateGrant(t *testing.T) {
	t.Parallel()
	_, connect := natstest.Start(t)
	conn, master := connect("w1"), connect("master")
	o := config.WorkerOptions{Conn: conn, Node: "w1", Prefix: "crawl"}
	up := NewUpstream(context.Background(), make(chan struct{}), o, "i1")
	up.late <- egress.Spec{Name: "spare", Kind: "bind", Address: "127.0.0.51"}
	up.late <- egress.Spec{Name: "other", Kind: "bind", Address: "127.0.0.52"}
	n := &Node{lanes: unknownEgressLanes{&boardLanes{}}, lease: NewLease(nil), o: o, inc: "i1", ready: make(chan struct{}), up: up}
	close(n.ready)
	if e := removeOn(t, n, master, "spare"); e != "" {
		t.Fatalf("the removal of an egress w1 held as a late grant failed: %s", e)
	}
	if sp, ok := up.Claim(); !ok || sp.Name != "other" {
		t.Fatalf("the next claim = %+v, %v; want the other late grant, kept", sp, ok)
	}
	if sp, ok := up.Claim(); ok {
		t.Fatalf("a claim after the removal took %+v; want none kept (the master not answering)", sp)
	}
}

// removeOn has the master (its connection) ask worker node n, listening on
// ctl.w1, to remove egress name, and returns the worker's answer's error.
func removeOn(t *testing.T, n *Node, master *cluster.Conn, name string) string {
	t.Helper()
	if _, err := n.o.Conn.NC.Subscribe("ctl.w1", n.onControl); err != nil {
		t.Fatal(err)
	}
	if err := n.o.Conn.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	data, _ := cluster.Encode(&wire.Control{Op: wire.OpRemoveEgress, Host: name})
	msg, err := master.NC.Request("ctl.w1", data, 30*time.Second) // a bound for the failure only
	if err != nil {
		t.Fatal(err)
	}
	var reply wire.ControlReply
	if err := cluster.Decode(msg.Data, &reply, wire.MaxMessage); err != nil {
		t.Fatal(err)
	}
	return reply.Error
}

// The master answers w1's claim with spare, then the operator removes spare: the
// master takes it off w1 and asks w1 to remove it, and w1 reads that request
// before the claim's reply (they come on two subscriptions). The claim, still
// waiting, must not take spare: the master no longer counts it as w1's. The
// removal succeeds, though the rotation never had spare. Before, the removal
// failed with no such egress and the claim's reply put spare in the rotation.
func TestAClaimRepliedBeforeARemovalTakesNotTheRemovedEgress(t *testing.T) {
	t.Parallel()
	up, master, asked, o := claimRig(t, false)
	up.wait = time.Hour // the claim waits for its reply
	n := &Node{lanes: unknownEgressLanes{&boardLanes{}}, lease: NewLease(nil), o: o, inc: "i1", ready: make(chan struct{}), up: up}
	close(n.ready)
	type grant struct {
		sp egress.Spec
		ok bool
	}
	claimed := make(chan grant, 1)
	go func() {
		sp, ok := up.Claim()
		claimed <- grant{sp, ok}
	}()
	removeThenGrant(t, n, master, <-asked)
	if g := <-claimed; g.ok {
		t.Fatalf("the claim took %+v, removed by the operator before its reply was read", g.sp)
	}
}

// As TestAClaimRepliedBeforeARemovalTakesNotTheRemovedEgress, for a claim that
// gave up waiting: its reply, read after the removal, is not kept for the next
// claim, which asks the master again. Before, the next claim used spare.
func TestALateGrantReadAfterItsRemovalIsNotKept(t *testing.T) {
	t.Parallel()
	up, master, asked, o := claimRig(t, false)
	n := &Node{lanes: unknownEgressLanes{&boardLanes{}}, lease: NewLease(nil), o: o, inc: "i1", ready: make(chan struct{}), up: up}
	close(n.ready)
	up.wait = 50 * time.Millisecond
	if sp, ok := up.Claim(); ok {
		t.Fatalf("a claim the master did not answer granted %+v", sp)
	}
	removeThenGrant(t, n, master, <-asked)
	up.replies.Wait() // the late reply was read
	claimAsksAgain(t, up, asked, "the removal", "removed by the operator")
}

// claimAsksAgain claims once more (waiting up to a minute) and fails unless the
// claim asks the master and takes its new grant: the egress kept from before
// event (a rejoin, a removal) is not used.
func claimAsksAgain(t *testing.T, up *Upstream, asked <-chan *nats.Msg, event, kept string) {
	t.Helper()
	up.wait = time.Minute
	claimed := make(chan egress.Spec, 1)
	go func() {
		sp, _ := up.Claim()
		claimed <- sp
	}()
	select {
	case m := <-asked:
		fresh, _ := cluster.Encode(&wire.ClaimReply{Egress: &wire.Egress{Name: "fresh", Kind: "bind", Address: "127.0.0.52"}})
		if err := m.Respond(fresh); err != nil {
			t.Fatal(err)
		}
		if sp := <-claimed; sp.Name != "fresh" {
			t.Fatalf("the claim after %s = %+v; want the master's new grant", event, sp)
		}
	case sp := <-claimed:
		t.Fatalf("the claim after %s used %+v, %s, without asking the master", event, sp, kept)
	}
}

// claimRig starts a NATS server with worker w1's upstream (incarnation i1) and
// the master's side of its claims: each claim w1 sends lands on asked,
// unanswered (the test answers). join: w1's joins are answered (an empty reply).
func claimRig(t *testing.T, join bool) (up *Upstream, master *cluster.Conn, asked chan *nats.Msg, o config.WorkerOptions) {
	t.Helper()
	_, connect := natstest.Start(t)
	conn, master := connect("w1"), connect("master")
	o = config.WorkerOptions{Conn: conn, Node: "w1", Prefix: "crawl", JoinTimeout: time.Minute}
	sub := wire.Subjects(o.Prefix)
	asked = make(chan *nats.Msg, 4)
	if _, err := master.NC.Subscribe(sub.Claim(), func(m *nats.Msg) { asked <- m }); err != nil {
		t.Fatal(err)
	}
	if join {
		if _, err := master.NC.Subscribe(sub.Join(), func(m *nats.Msg) {
			data, _ := cluster.Encode(&wire.JoinReply{})
			_ = m.Respond(data)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := master.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	return NewUpstream(context.Background(), make(chan struct{}), o, "i1"), master, asked, o
}

// removeThenGrant has the operator's removal of spare reach w1 (removeOn) before
// the master's answer to claim m, which grants spare: the master answered before
// the removal, and w1 reads the two on two subscriptions in the other order.
func removeThenGrant(t *testing.T, n *Node, master *cluster.Conn, m *nats.Msg) {
	t.Helper()
	if e := removeOn(t, n, master, "spare"); e != "" {
		t.Fatalf("the removal of spare, granted to w1's claim, failed: %s", e)
	}
	data, _ := cluster.Encode(&wire.ClaimReply{Egress: &wire.Egress{Name: "spare", Kind: "bind", Address: "127.0.0.51"}})
	if err := m.Respond(data); err != nil {
		t.Fatal(err)
	}
}
