package master

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// leave sends worker name's leave request (incarnation inc) as a worker does: the
// hand-back of tasks, or the final one.
func (r *batchRig) leave(t *testing.T, name, inc string, tasks []frontier.Task, final bool) {
	t.Helper()
	data, err := cluster.Encode(&wire.Leave{Node: name, Incarnation: inc, Tasks: tasks, Final: final})
	if err != nil {
		t.Fatal(err)
	}
	r.m.link.OnLeave(&nats.Msg{Data: data})
}

// A worker declared dead in the middle of its graceful leave (its heartbeats late
// on a loaded box while its last fetches finish) is answered "unknown" and rejoins
// under the same incarnation, then sends its final leave. The operator reads one
// leave in the log, the worker is dealt no new URL between the two (it stopped
// taking tasks), and the Nodes pane shows it leaving, then left. Before, the rejoin
// made it active: a second "worker w1 leaving: 1 tasks handed back" at the final
// leave, and the URLs waiting on its site were dealt to it.
func TestWorkerDeclaredDeadDuringItsLeaveIsLoggedLeavingOnce(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	b := r.handOutOne(t) // w1 fetches www.a.test/1
	var mu sync.Mutex
	var leaving []string
	r.c.onLog = func(msg string) {
		if strings.Contains(msg, "worker w1 leaving") {
			mu.Lock()
			leaving = append(leaving, msg)
			mu.Unlock()
		}
	}
	state := func() view.NodeState {
		r.c.Lock()
		defer r.c.Unlock()
		nodes, _ := r.m.book.View()
		for _, n := range nodes {
			if n.Name == "w1" {
				return n.State
			}
		}
		return ""
	}

	r.leave(t, "w1", "a", nil, false) // nothing on its board: it fetches its one task
	r.c.now = r.c.now.Add(time.Hour)
	r.m.link.CheckNodes(r.c.now)
	if s := state(); s != view.NodeDead {
		t.Fatalf("w1 is %q after its silence; want dead", s)
	}
	// Its heartbeat answered "unknown", w1 rejoins claiming the task in its hand.
	data, err := cluster.Encode(&wire.Join{Node: "w1", Incarnation: "a", LanesMax: 4, Holding: b.Tasks})
	if err != nil {
		t.Fatal(err)
	}
	r.m.link.OnJoin(&nats.Msg{Data: data})
	if s := state(); s != view.NodeLeaving {
		t.Errorf("w1 is %q on the Nodes pane after its rejoin mid-leave; want leaving", s)
	}
	r.c.Lock()
	r.m.book.Add(frontier.Task{URL: "http://www.a.test/2", Host: "www.a.test"})
	r.c.Unlock()
	r.dispatch()
	if got := r.stored(t, "w1"); len(got) != 0 {
		t.Errorf("w1, leaving, was dealt batches %v after its rejoin; want none", leases(got))
	}
	r.leave(t, "w1", "a", nil, true)
	if s := state(); s != view.NodeLeft {
		t.Errorf("w1 is %q after its final leave; want left", s)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaving) != 1 {
		t.Fatalf("the master logged w1's leave %d times: %q; want once", len(leaving), leaving)
	}
}

// finalLeaveWhileDead hands w1 (incarnation a) a task, starts its leave, declares
// it dead an hour on, and then takes its final leave.
func (r *batchRig) finalLeaveWhileDead(t *testing.T) {
	t.Helper()
	r.handOutOne(t)
	r.leave(t, "w1", "a", nil, false)
	r.c.now = r.c.now.Add(time.Hour)
	r.m.link.CheckNodes(r.c.now)
	r.leave(t, "w1", "a", nil, true)
}

// A worker declared dead during its leave whose final leave comes before any rejoin
// (its heartbeat's "unknown" not yet answered) left all the same: the Nodes pane
// shows it left, as the operator who stopped it expects, not dead.
func TestWorkerDeclaredDeadBeforeItsFinalLeaveIsShownLeft(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.finalLeaveWhileDead(t)
	r.c.Lock()
	nodes, _ := r.m.book.View()
	r.c.Unlock()
	if len(nodes) != 1 || nodes[0].State != view.NodeLeft {
		t.Fatalf("nodes after w1's final leave: %+v; want w1 left", nodes)
	}
}

// A worker declared dead during its leave, its final leave taken while it was dead,
// may have a rejoin on its way (its heartbeat answered "unknown" just before): the
// rejoin, read after the final leave, is refused and the worker stays left. Before,
// it made the worker leaving again, shown so on the Nodes pane with no worker
// behind it until its silence buried it once more.
func TestARejoinAfterTheFinalLeaveIsRefused(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.finalLeaveWhileDead(t)
	data, err := cluster.Encode(&wire.Join{Node: "w1", Incarnation: "a", LanesMax: 4})
	if err != nil {
		t.Fatal(err)
	}
	r.m.link.OnJoin(&nats.Msg{Data: data})
	r.c.Lock()
	nodes, _ := r.m.book.View()
	r.c.Unlock()
	if len(nodes) != 1 || nodes[0].State != view.NodeLeft {
		t.Fatalf("nodes after a rejoin read after w1's final leave: %+v; want w1 left", nodes)
	}
}
