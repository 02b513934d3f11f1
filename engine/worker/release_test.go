package worker

import (
	"fmt"
	"slices"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// releaseLanes are boardLanes that hand back the board's tasks of released units
// on the hosts named (with no unit named, every task of those hosts).
type releaseLanes struct{ *boardLanes }

func (l releaseLanes) Release(hosts, units []string) []frontier.Task {
	moving := map[string]bool{}
	for _, u := range units {
		moving[u] = true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out, kept []frontier.Task
	for _, t := range l.board {
		if slices.Contains(hosts, t.Host) && (len(units) == 0 || moving[wire.UnitOf(t)]) {
			out = append(out, t)
		} else {
			kept = append(kept, t)
		}
	}
	l.board = kept
	return out
}

// The master moves a site to a worker that joined and asks the old holder to
// release it; a batch of the site's tasks it handed out just before reaches the
// old holder after the release (the batch and the release travel separately).
// Those tasks go back to the master with the heartbeats, so the site moves;
// placed, they waited for the old holder's busy lanes while the new holder had
// nothing of the site to fetch. The other sites' tasks, and the released site's
// tasks handed out after it was dealt back here, are placed.
func TestBatchArrivingAfterAReleaseIsHandedBack(t *testing.T) {
	lanes := releaseLanes{&boardLanes{}}
	n := &Node{lanes: lanes, lease: NewLease(nil), o: config.WorkerOptions{Node: "w1"}, inc: "i1", ready: make(chan struct{})}
	close(n.ready)
	task := func(host string, lease uint64) frontier.Task {
		return frontier.Task{URL: "http://" + host + "/p", Host: host, Site: host, Lease: lease}
	}
	lanes.Place([]frontier.Task{task("news.a.test", 3)})
	ctl, err := cluster.Encode(&wire.Control{Op: wire.OpRelease, Hosts: []string{"www.a.test"}, Units: []string{"www.a.test"}, Lease: 12})
	if err != nil {
		t.Fatal(err)
	}
	n.onControl(&nats.Msg{Data: ctl})

	late, err := cluster.Encode(&wire.Tasks{Node: "w1", Incarnation: "i1", Tasks: []frontier.Task{
		task("www.a.test", 11), task("blog.a.test", 12),
	}})
	if err != nil {
		t.Fatal(err)
	}
	msg := &batchMsg{data: late}
	n.onTasks(msg)
	if !msg.acked {
		t.Error("the late batch was not acknowledged: it would come again")
	}
	// Dealt back to this worker later: handed out under a later lease.
	again, err := cluster.Encode(&wire.Tasks{Node: "w1", Incarnation: "i1", Tasks: []frontier.Task{task("www.a.test", 20)}})
	if err != nil {
		t.Fatal(err)
	}
	n.onTasks(&batchMsg{data: again})

	var board []uint64
	for _, t := range lanes.board {
		board = append(board, t.Lease)
	}
	if len(board) != 3 || board[0] != 3 || board[1] != 12 || board[2] != 20 {
		t.Errorf("leases on the board after the release and the batches: %v; want [3 12 20] (the released site's task of lease 11 handed back)", board)
	}
	if hb := n.handedBack; len(hb) != 1 || hb[0].Lease != 11 || hb[0].Host != "www.a.test" {
		t.Errorf("handed back to the master: %v; want the released site's task of lease 11", hb)
	}
}

// An operator lowers a page budget: the master recalls the queued tasks of the
// budget's hosts from the worker holding them (a release naming hosts, no unit),
// to count them against the budget as it deals them again. A batch of those
// hosts' tasks it handed out just before reaches the worker after the recall:
// its tasks go back to the master with the heartbeats too; placed, they escaped
// the budget and were fetched. Another host's tasks, and the recalled host's
// tasks dealt after the recall (under a later lease), are placed.
func TestBatchArrivingAfterABudgetRecallIsHandedBack(t *testing.T) {
	lanes := releaseLanes{&boardLanes{}}
	n := &Node{lanes: lanes, lease: NewLease(nil), o: config.WorkerOptions{Node: "w1"}, inc: "i1", ready: make(chan struct{})}
	close(n.ready)
	task := func(host string, lease uint64) frontier.Task {
		return frontier.Task{URL: fmt.Sprintf("http://%s/p%d", host, lease), Host: host, Site: "a.test", Lease: lease}
	}
	lanes.Place([]frontier.Task{task("news.a.test", 3)})
	ctl, err := cluster.Encode(&wire.Control{Op: wire.OpRelease, Hosts: []string{"www.a.test"}, Lease: 12})
	if err != nil {
		t.Fatal(err)
	}
	n.onControl(&nats.Msg{Data: ctl})

	deliver := func(tasks ...frontier.Task) {
		t.Helper()
		data, err := cluster.Encode(&wire.Tasks{Node: "w1", Incarnation: "i1", Tasks: tasks})
		if err != nil {
			t.Fatal(err)
		}
		msg := &batchMsg{data: data}
		n.onTasks(msg)
		if !msg.acked {
			t.Error("a batch was not acknowledged: it would come again")
		}
	}
	deliver(task("www.a.test", 10), task("news.a.test", 11), task("www.a.test", 12)) // sent before the recall
	deliver(task("www.a.test", 20))                                                  // dealt again after it

	var board []uint64
	for _, t := range lanes.board {
		board = append(board, t.Lease)
	}
	if !slices.Equal(board, []uint64{3, 11, 20}) {
		t.Errorf("leases on the board after the recall and the batches: %v; want [3 11 20] (the recalled host's tasks of leases 10 and 12 handed back)", board)
	}
	var back []uint64
	for _, t := range n.handedBack {
		back = append(back, t.Lease)
	}
	if !slices.Equal(back, []uint64{10, 12}) {
		t.Errorf("handed back to the master: leases %v; want the recalled host's [10 12]", back)
	}
}
