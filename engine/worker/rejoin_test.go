package worker

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// boardLanes are lanes whose board is a list (Place, Drop, Carry, Paused and Logf
// only), never paused.
type boardLanes struct {
	Lanes
	mu    sync.Mutex
	board []frontier.Task
}

func (l *boardLanes) Place(tasks []frontier.Task) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.board = append(l.board, tasks...)
}

func (l *boardLanes) Drop(drop func(frontier.Task) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.board[:0]
	for _, t := range l.board {
		if !drop(t) {
			kept = append(kept, t)
		}
	}
	l.board = kept
}

func (l *boardLanes) Carry(string, time.Time)         {}
func (l *boardLanes) Paused() bool                    { return false }
func (l *boardLanes) Logf(view.Level, string, ...any) {}

func (l *boardLanes) urls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, t := range l.board {
		out = append(out, t.URL)
	}
	return out
}

// batchMsg is a task batch as the worker's consumer hands it over.
type batchMsg struct {
	jetstream.Msg
	data  []byte
	acked bool
}

func (m *batchMsg) Data() []byte { return m.data }
func (m *batchMsg) Ack() error   { m.acked = true; return nil }

// A worker the master declared dead while it was only slow rejoins; the master had
// queued again what it handed to the life it ended, and may have given it to
// another worker. A batch of that life the worker's client had pulled before the
// rejoin reaches it afterwards: its tasks are dropped unfetched (acknowledged,
// nothing handed back), and a lane holding one gives it up, while what the rejoin
// took back and what the new life is handed are fetched. Before, the late batch
// was fetched under its old leases: 7 to 37 of 444 URLs fetched twice under load.
func TestRejoinedWorkerDropsTheBatchesOfItsEndedLife(t *testing.T) {
	lanes := &boardLanes{}
	n := &Node{lanes: lanes, lease: NewLease(nil), o: config.WorkerOptions{Node: "w1"}, inc: "i1"}
	lanes.Place([]frontier.Task{{URL: "http://a.test/claimed-kept", Host: "a.test", Lease: 10}, {URL: "http://a.test/claimed-lost", Host: "a.test", Lease: 11}})
	claimed := map[uint64]bool{10: true, 11: true}
	// The master took back lease 10; its new life's hand-outs are numbered from 50.
	n.rejoined(time.Now(), &wire.JoinReply{Lease: time.Minute, Kept: []uint64{10}, Since: 50}, claimed)

	late, err := cluster.Encode(&wire.Tasks{Node: "w1", Incarnation: "i1", Tasks: []frontier.Task{
		{URL: "http://a.test/old-life-1", Host: "a.test", Lease: 12}, {URL: "http://a.test/old-life-2", Host: "a.test", Lease: 13},
	}})
	if err != nil {
		t.Fatal(err)
	}
	msg := &batchMsg{data: late}
	n.onTasks(msg)
	fresh, err := cluster.Encode(&wire.Tasks{Node: "w1", Incarnation: "i1", Tasks: []frontier.Task{{URL: "http://a.test/new-life", Host: "a.test", Lease: 50}}})
	if err != nil {
		t.Fatal(err)
	}
	n.onTasks(&batchMsg{data: fresh})

	got := lanes.urls()
	want := []string{"http://a.test/claimed-kept", "http://a.test/new-life"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("the worker's board after its rejoin and a batch of its ended life: %v; want %v", got, want)
	}
	if !msg.acked {
		t.Error("the late batch was not acknowledged: it would come again")
	}
	ctx := context.Background()
	for lease, wantLost := range map[uint64]bool{10: false, 11: true, 12: true, 50: false, 0: false} {
		err := n.LeaseWait(ctx, lease)
		if lost := errors.Is(err, ErrLeaseLost); lost != wantLost || err != nil && !lost {
			t.Errorf("a lane holding the hand-out numbered %d: %v; lost should be %v", lease, err, wantLost)
		}
	}
}
