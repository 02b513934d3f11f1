package worker

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/store"
)

// An outbox's reports reach the master's results stream in the order they were
// made: a result as a result frame, a deferral on its own subject as a Deferral (no
// fake result), each with the refusals kept since the report before. Once flushed,
// every report is acknowledged.
func TestOutboxSendsResultsAndDeferralsInOrder(t *testing.T) {
	t.Parallel()
	_, connect := natstest.Start(t)
	conn := connect("w1")
	sub := wire.Subjects("crawl")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.EnsureStream(ctx, jetstream.StreamConfig{Name: sub.ResultStream(), Subjects: []string{sub.Results(">")},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	quit := make(chan struct{})
	defer close(quit)
	box := NewOutbox(ctx, quit, conn, sub, "w1", "inc1")
	go box.Run()
	task := func(i int) frontier.Task {
		return frontier.Task{URL: "http://a.test/" + string(rune('a'+i)), Host: "a.test", Lease: uint64(10 + i)}
	}
	until := time.Unix(1700000000, 0).UTC()
	box.Refused(store.Refusal{URL: "http://a.test/x", At: until, Action: "rotated"})
	box.Result(wire.Result{Task: task(0), Kind: "timeout"})
	box.Defer(lanes.Deferred{Task: task(1), Until: until, Kind: "robots_unreachable"})
	box.Refused(store.Refusal{URL: "http://a.test/y", At: until, Action: "rotated"})
	box.Defer(lanes.Deferred{Task: task(2), Until: until})
	box.Result(wire.Result{Task: task(3), Kind: "timeout"})
	box.Flush()
	select {
	case <-box.Done():
	case <-ctx.Done():
		t.Fatal("the outbox did not finish after Flush")
	}
	if n := box.Unacked(); n != 0 {
		t.Fatalf("%d reports unacknowledged after Flush", n)
	}
	// The heartbeat tells the master how far to read the stream for all of them.
	if seq := box.LastReport(); seq != 4 {
		t.Fatalf("last report stored at sequence %d; want 4 (the fourth report)", seq)
	}
	cons, err := conn.EnsureConsumer(ctx, sub.ResultStream(), jetstream.ConsumerConfig{Durable: "check", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(4, jetstream.FetchMaxWait(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for msg := range batch.Messages() {
		deferral := sub.IsDeferral(msg.Subject())
		var url string
		var refusals int
		if deferral {
			var d wire.Deferral
			if err := cluster.Decode(msg.Data(), &d, wire.MaxMessage); err != nil {
				t.Fatalf("report %d on %s: %v", i, msg.Subject(), err)
			}
			if !d.Until.Equal(until) || d.Node != "w1" || d.Incarnation != "inc1" {
				t.Errorf("deferral %d: %+v", i, d)
			}
			// The reason travels: the master counts the URL under it.
			if want := map[int]string{1: "robots_unreachable"}[i]; d.Kind != want {
				t.Errorf("deferral %d's kind %q; want %q", i, d.Kind, want)
			}
			url, refusals = d.Task.URL, len(d.Refusals)
		} else {
			var r wire.Result
			if err := wire.DecodeResult(msg.Data(), &r); err != nil {
				t.Fatalf("report %d on %s: %v", i, msg.Subject(), err)
			}
			if r.Node != "w1" || r.Incarnation != "inc1" {
				t.Errorf("result %d from %s/%s, want w1/inc1", i, r.Node, r.Incarnation)
			}
			url, refusals = r.Task.URL, len(r.Refusals)
		}
		wantDeferral := i == 1 || i == 2
		wantRefusals := map[int]int{0: 1, 2: 1}[i]
		if url != task(i).URL || deferral != wantDeferral || refusals != wantRefusals {
			t.Errorf("report %d: %s, deferral %v, %d refusals; want %s, deferral %v, %d refusals",
				i, url, deferral, refusals, task(i).URL, wantDeferral, wantRefusals)
		}
		i++
	}
	if i != 4 {
		t.Fatalf("%d reports in the stream, want 4 (%v)", i, batch.Error())
	}
}

// A report the master's server has not acknowledged (the master is down, say) is
// still the worker's to claim at a rejoin: Unsettled lists its task until the
// server takes the report, then no more.
func TestOutboxUnsettledUntilAcknowledged(t *testing.T) {
	t.Parallel()
	_, connect := natstest.Start(t)
	conn := connect("w1")
	sub := wire.Subjects("crawl")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quit := make(chan struct{})
	defer close(quit)
	box := NewOutbox(ctx, quit, conn, sub, "w1", "inc1")
	go box.Run()
	task := frontier.Task{URL: "http://a.test/p", Host: "a.test", Lease: 42}
	// No results stream yet: no server takes the report.
	box.Result(wire.Result{Task: task, Kind: "timeout"})
	if got := box.Unsettled(); len(got) != 1 || got[0].URL != task.URL || got[0].Lease != task.Lease {
		t.Fatalf("unsettled %+v, want the task whose result no server acknowledged", got)
	}
	if _, err := conn.EnsureStream(ctx, jetstream.StreamConfig{Name: sub.ResultStream(), Subjects: []string{sub.Results(">")},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	for len(box.Unsettled()) > 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("the report was never acknowledged: %+v", box.Unsettled())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if n := box.Unacked(); n != 0 {
		t.Fatalf("%d reports unacknowledged once the server took the only one", n)
	}
}
