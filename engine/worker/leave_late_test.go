package worker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
)

// A busy master (a loaded box) answers a worker's leave after the worker sent it
// again: the leave takes that late answer to its first send and succeeds, within
// the time its caller gave it, and the worker's graceful leave is confirmed. The
// master answers here once the second send is in, not after a time.
func TestALeaveTakesTheBusyMastersLateAnswer(t *testing.T) {
	t.Parallel()
	_, connect := natstest.Start(t)
	conn, master := connect("w1"), connect("master")
	o := config.WorkerOptions{Conn: conn, Node: "w1", Prefix: "crawl"}
	sends := make(chan *nats.Msg, 16)
	if _, err := master.NC.Subscribe(wire.Subjects(o.Prefix).Leave(), func(m *nats.Msg) { sends <- m }); err != nil {
		t.Fatal(err)
	}
	if err := master.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	go func() {
		first := <-sends
		<-sends // the worker stopped waiting for the first answer and sent the leave again
		data, _ := cluster.Encode(&wire.ControlReply{})
		_ = first.Respond(data)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quit := make(chan struct{})
	defer close(quit)
	up := NewUpstream(ctx, quit, o, "i1")
	if up.resend != leaveResend {
		t.Fatalf("a leave is sent again after %v; want leaveResend, %v", up.resend, leaveResend)
	}
	up.resend = 50 * time.Millisecond
	lctx, stop := context.WithTimeout(ctx, time.Minute) // a guard: the answer comes at the second send
	defer stop()
	if err := up.Leave(lctx, nil, true); err != nil {
		t.Fatalf("leave answered late by a busy master: %v; want it taken", err)
	}

	// No master listens on the prefix: the server says so at once, and the leave
	// fails at once rather than send again until its caller's time is out.
	alone := NewUpstream(ctx, quit, config.WorkerOptions{Conn: conn, Node: "w1", Prefix: "elsewhere"}, "i1")
	began := time.Now()
	if err := alone.Leave(lctx, nil, true); !errors.Is(err, nats.ErrNoResponders) {
		t.Fatalf("leave with no master listening: %v after %v; want nats.ErrNoResponders", err, time.Since(began))
	}
}
