package worker

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// beatLanes are lanes that hold nothing, for the heartbeat's figures.
type beatLanes struct{ boardLanes }

func (l *beatLanes) Snapshot() view.Snapshot  { return view.Snapshot{} }
func (l *beatLanes) Holding() []frontier.Task { return nil }

// lateMaster is a worker's Node (lanes l, heartbeats every 50 ms, a 2 s lease
// granted by its join) over an embedded NATS server whose master answers each
// heartbeat late, 8 periods after it, with the reply reply makes; joins are
// counted in joins and refused. The heartbeat loop runs until the test ends.
func lateMaster(t *testing.T, l Lanes, reply func() wire.HeartbeatReply, joins *atomic.Int32) (n *Node, answered *atomic.Int32) {
	t.Helper()
	_, connect := natstest.Start(t)
	conn, master := connect("w1"), connect("master")

	o := config.WorkerOptions{Conn: conn, Node: "w1", Prefix: "crawl", JoinTimeout: time.Second}
	sub := wire.Subjects(o.Prefix)
	answered = &atomic.Int32{}
	if _, err := master.NC.Subscribe(sub.Heartbeat("w1"), func(m *nats.Msg) {
		r := reply()
		go func() {
			time.Sleep(lateBy)
			data, _ := cluster.Encode(&r)
			m.Respond(data)
			answered.Add(1)
		}()
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := master.NC.Subscribe(sub.Join(), func(m *nats.Msg) {
		if joins != nil {
			joins.Add(1)
		}
		data, _ := cluster.Encode(&wire.JoinReply{Error: "refused by the test"})
		m.Respond(data)
	}); err != nil {
		t.Fatal(err)
	}
	if err := master.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	quit := make(chan struct{})
	n = &Node{lanes: l, o: o, inc: "i1", nc: conn.NC, sub: sub, hbEvery: beatEvery, quit: quit, ctx: ctx, cancel: cancel,
		lease: NewLease(nil), up: NewUpstream(ctx, quit, o, "i1"), box: NewOutbox(ctx, quit, conn, sub, "w1", "i1")}
	n.lease.Grant(time.Now(), beatLease) // the join's
	t.Cleanup(func() {
		close(quit)
		cancel()
		n.bg.Wait()
	})
	return n, answered
}

const beatEvery, lateBy, beatLease = 50 * time.Millisecond, 400 * time.Millisecond, 2 * time.Second

// waitFor polls ok every 10 ms until it holds, or fails the test with why after
// 30 s (a guard: a late reply comes within a second idle).
func waitFor(t *testing.T, ok func() bool, why func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal(why())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A master whose every heartbeat reply comes later than a heartbeat period (a busy
// master, a loaded box) still renews the worker's lease: it granted the lease, so
// the worker keeps starting requests. Before, a reply that missed the period was
// dropped, the lease ran out on the worker while the master held its hosts for
// it, and the worker stopped fetching until a reply came in time.
func TestLateHeartbeatRepliesRenewTheLease(t *testing.T) {
	t.Parallel()
	n, answered := lateMaster(t, &beatLanes{}, func() wire.HeartbeatReply { return wire.HeartbeatReply{Known: true, Lease: beatLease} }, nil)
	first, _ := n.lease.Until()
	n.bg.Add(1)
	go n.heartbeat()
	// Renewed once a late reply reached the worker: its end moves past the join's.
	waitFor(t, func() bool {
		until, on := n.lease.Until()
		return on && until.After(first)
	}, func() string {
		return fmt.Sprintf("the master answered %d heartbeats, each %v late with a %v lease, and the worker's lease still ends where the join put it: late replies dropped",
			answered.Load(), lateBy, beatLease)
	})
}

// lateLanes are lanes that hold nothing and pause, for a worker's heartbeats.
type lateLanes struct{ pauseLanes }

func (l *lateLanes) Snapshot() view.Snapshot         { return view.Snapshot{} }
func (l *lateLanes) Holding() []frontier.Task        { return nil }
func (l *lateLanes) Logf(view.Level, string, ...any) {}

// Every reply of a busy master comes late, and what a reply carries besides the
// lease is acted on all the same. The crawl paused on the master, with the pause's
// control lost (a control given up on, a worker busy): the worker pauses on a late
// reply. Hand-backs a late reply confirms are not sent again. Before, all of it
// waited for a reply in time, which a busy master never gave: the worker fetched on
// through the operator's pause, and its hand-backs went with every heartbeat.
func TestALateHeartbeatReplyPausesAndConfirmsHandBacks(t *testing.T) {
	t.Parallel()
	l := &lateLanes{}
	n, answered := lateMaster(t, l, func() wire.HeartbeatReply {
		return wire.HeartbeatReply{Known: true, Lease: beatLease, Paused: true, PauseSeq: 7}
	}, nil)
	n.handBack([]frontier.Task{{URL: "http://a.test/1", Host: "a.test", Lease: 3}})
	n.bg.Add(1)
	go n.heartbeat()
	waitFor(t, func() bool {
		n.mu.Lock()
		back := len(n.handedBack)
		n.mu.Unlock()
		return l.Paused() && back == 0
	}, func() string {
		n.mu.Lock()
		defer n.mu.Unlock()
		return fmt.Sprintf("the master answered %d heartbeats late, each with the crawl paused and the hand-back confirmed: lanes paused %v, %d hand-backs still unconfirmed",
			answered.Load(), l.Paused(), len(n.handedBack))
	})
}

// A master that no longer knows the worker (it restarted, or declared it dead) and
// answers late: the worker joins again. Before, it went on heartbeating, unknown,
// until a reply came in time; its lease ran out meanwhile and it fetched nothing.
func TestALateUnknownReplyRejoins(t *testing.T) {
	t.Parallel()
	var joins atomic.Int32
	n, answered := lateMaster(t, &lateLanes{}, func() wire.HeartbeatReply { return wire.HeartbeatReply{} }, &joins)
	n.bg.Add(1)
	go n.heartbeat()
	waitFor(t, func() bool { return joins.Load() > 0 }, func() string {
		return fmt.Sprintf("the master answered %d heartbeats late, each not knowing the worker, and the worker did not join again", answered.Load())
	})
}
