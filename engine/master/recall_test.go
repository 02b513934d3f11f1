package master

import (
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A budget's recall asks the worker for the queued tasks of the budget's hosts
// and names the last lease handed out: a batch of those hosts' tasks sent just
// before can reach the worker after the recall (the task stream and the request
// keep no order), and the worker hands back its tasks numbered up to that lease.
// With no lease named, the batch's tasks were placed and escaped the budget.
// What the worker hands back in its reply is queued again at the master.
func TestBudgetRecallNamesTheLastLeaseHandedOut(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.c.Lock()
	for _, task := range []frontier.Task{
		{URL: "http://www.a.test/1", Host: "www.a.test"},
		{URL: "http://www.a.test/2", Host: "www.a.test"},
		{URL: "http://www.b.test/1", Host: "www.b.test"},
	} {
		r.m.book.Add(task)
	}
	r.c.Unlock()
	r.dispatch()
	b := r.stored(t, "w1")
	if len(b) != 1 || len(b[0].Tasks) != 3 {
		t.Fatalf("w1's batches after the dispatch hold leases %v; want one of three tasks", leases(b))
	}
	var last uint64
	for _, task := range b[0].Tasks {
		last = max(last, task.Lease)
	}

	// The batch has not reached w1: it answers the recall with nothing from its
	// board, but the first task (as if placed since) of www.a.test.
	got := make(chan wire.Control, 1)
	sub, err := r.conn.NC.Subscribe(wire.Subjects("t").Control("w1"), func(msg *nats.Msg) {
		var c wire.Control
		if err := cluster.Decode(msg.Data, &c, 0); err != nil {
			t.Error(err)
		}
		got <- c
		data, _ := cluster.Encode(&wire.ControlReply{Tasks: []frontier.Task{b[0].Tasks[0]}})
		msg.Respond(data)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	back := r.m.link.Recall(func(task frontier.Task) bool { return task.Host == "www.a.test" })
	c := <-got
	if c.Op != wire.OpRelease || len(c.Units) != 0 || len(c.Hosts) != 1 || c.Hosts[0] != "www.a.test" {
		t.Fatalf("recall sent %+v; want a release of host www.a.test, no unit", c)
	}
	if c.Lease != last {
		t.Errorf("recall names lease %d; want %d, the last handed out (a late batch's tasks up to it go back)", c.Lease, last)
	}
	if back != 1 {
		t.Errorf("recall counts %d tasks back; want the 1 in the reply", back)
	}
	waiting, out := r.counts()
	if waiting != 1 || out != 2 {
		t.Errorf("after the recall %d tasks wait at the master and %d are out; want 1 and 2", waiting, out)
	}
}
