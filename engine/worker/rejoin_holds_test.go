package worker

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// disableLanes are boardLanes holding nothing that keep the hosts the master has
// them hold disabled, and defer (list in deferred) each task placed for one, as a
// worker's lanes send it back to the master until the disable's end.
type disableLanes struct {
	boardLanes
	dmu      sync.Mutex
	disabled map[string]bool
	deferred []string
}

func (l *disableLanes) Holding() []frontier.Task { return nil }

func (l *disableLanes) SetHostDisabled(host string, disabled bool) error {
	l.dmu.Lock()
	defer l.dmu.Unlock()
	l.disabled[host] = disabled
	return nil
}

func (l *disableLanes) DisableHostFor(host string, _ time.Duration) error {
	return l.SetHostDisabled(host, true)
}

func (l *disableLanes) Place(tasks []frontier.Task) {
	l.dmu.Lock()
	defer l.dmu.Unlock()
	for _, t := range tasks {
		if l.disabled[t.Host] {
			l.deferred = append(l.deferred, t.URL)
		} else {
			l.boardLanes.Place([]frontier.Task{t})
		}
	}
}

// The operator disabled a host, the master restarted, and the operator enabled the
// host on it before the worker rejoined: the rejoin's reply lists the host no
// longer, and the master deals the worker the host's URLs at once. The first batch
// reaches the worker (its consumer of the last life runs on) before the reply is
// applied, here forced: the master's join handler delivers it before answering.
// The batch waits for the reply, and its tasks are fetched: placed under the last
// life's disable, they would be deferred back to the master, which keeps them
// deferred until the old disable's end, and the operator's enable would bring
// nothing back.
func TestABatchDealtAsARejoinIsAnsweredMeetsTheRepliesHolds(t *testing.T) {
	t.Parallel()
	_, connect := natstest.Start(t)
	conn, master := connect("w1"), connect("master")
	o := config.WorkerOptions{Conn: conn, Node: "w1", Prefix: "crawl", JoinTimeout: 5 * time.Second}
	sub := wire.Subjects(o.Prefix)
	lanes := &disableLanes{disabled: map[string]bool{"d.test": true}}
	ctx, cancel := context.WithCancel(context.Background())
	quit := make(chan struct{})
	n := &Node{lanes: lanes, o: o, inc: "i1", nc: conn.NC, conn: conn, sub: sub, quit: quit, ctx: ctx, cancel: cancel,
		lease: NewLease(nil), up: NewUpstream(ctx, quit, o, "i1"), box: NewOutbox(ctx, quit, conn, sub, "w1", "i1"),
		hostMarks: map[hostKey]hostMark{{wire.OpDisableHost, "d.test"}: {seq: 5, on: true}}} // the last life's master disabled it
	t.Cleanup(func() {
		close(quit)
		cancel()
	})

	data, err := cluster.Encode(&wire.Tasks{Node: "w1", Incarnation: "i1", Tasks: []frontier.Task{
		{URL: "http://d.test/1", Host: "d.test", Lease: 60}, {URL: "http://d.test/2", Host: "d.test", Lease: 61},
	}})
	if err != nil {
		t.Fatal(err)
	}
	batch := &batchMsg{data: data}
	if _, err := master.NC.Subscribe(sub.Join(), func(m *nats.Msg) {
		n.onTasks(batch)                                                                        // dealt as the join is answered, taken by the last life's consumer
		reply, _ := cluster.Encode(&wire.JoinReply{Lease: time.Minute, Since: 50, HostsSeq: 9}) // d.test enabled (9 > 5)
		m.Respond(reply)
	}); err != nil {
		t.Fatal(err)
	}
	if err := master.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	n.rejoin()

	lanes.dmu.Lock()
	deferred, disabled := lanes.deferred, lanes.disabled["d.test"]
	lanes.dmu.Unlock()
	if len(deferred) > 0 || disabled {
		t.Fatalf("after a rejoin whose reply enables d.test, the batch dealt as it was answered: %q deferred (the disable of the last life), d.test disabled %v; want none deferred, enabled", deferred, disabled)
	}
	if got := lanes.urls(); len(got) != 2 {
		t.Fatalf("the worker's board after the rejoin: %q; want the batch's 2 URLs", got)
	}
	if !batch.acked {
		t.Error("the batch that waited for the rejoin's reply was not acknowledged: it would come again")
	}
}
