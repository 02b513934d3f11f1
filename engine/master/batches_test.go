package master

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// crawlStub is the crawl around a Runtime in these tests: a lock, a clock the test
// moves, and hooks on the log and on a task's preparation (the moments a test
// makes something happen at).
type crawlStub struct {
	sync.Mutex
	keepAll
	now       time.Time
	onLog     func(msg string)
	onPrepare func(t *frontier.Task)
	onHeld    func(url string)
	helds     int // Held calls: a rejoin's marks go in one store write
	onCommit  func(r *wire.Result)
	onMeta    func(key string, data []byte)
	// commits, when set, holds AfterCommit's callbacks for the test to run (the
	// store's commit); nil: each runs at once.
	commits *[]func(error)
	// commitAsked, when set, gets AfterCommit's callbacks, for a test that runs
	// them from another goroutine than the one asking.
	commitAsked chan func(error)
}

func (c *crawlStub) Logf(_ view.Level, format string, args ...any) {
	if c.onLog != nil {
		c.onLog(fmt.Sprintf(format, args...))
	}
}
func (c *crawlStub) Now() time.Time        { return c.now }
func (*crawlStub) Paused() bool            { return false }
func (*crawlStub) Settings() wire.Settings { return wire.Settings{} }
func (c *crawlStub) SetMeta(key string, data []byte) {
	if c.onMeta != nil {
		c.onMeta(key, data)
	}
}
func (*crawlStub) Go(f func())       { go f() }
func (*crawlStub) Dispatching() bool { return true }
func (*crawlStub) CheckIdle()        {}
func (c *crawlStub) Prepare(t *frontier.Task) {
	if c.onPrepare != nil {
		c.onPrepare(t)
	}
}
func (c *crawlStub) Held(urls []string) {
	c.helds++
	for _, u := range urls {
		if c.onHeld != nil {
			c.onHeld(u)
		}
	}
}
func (*crawlStub) RevisitEnded(string) bool { return false }
func (*crawlStub) RevisitDeferred(string)   {}
func (c *crawlStub) Commit(r *wire.Result, _ bool) {
	if c.onCommit != nil {
		c.onCommit(r)
	}
}
func (*crawlStub) Defer(string, time.Time, string, string) {}
func (*crawlStub) Undefer([]string)                        {}
func (*crawlStub) Refused(store.Refusal)                   {}
func (c *crawlStub) AfterCommit(f func(error)) {
	switch {
	case c.commitAsked != nil:
		c.commitAsked <- f
	case c.commits != nil:
		*c.commits = append(*c.commits, f)
	default:
		f(nil)
	}
}
func (*crawlStub) FetchCost(time.Duration)  {}
func (*crawlStub) CheckEgress(string) error { return nil }

// batchRig is a master's Runtime over an embedded NATS server, its task stream
// made, with no loop of its own running: the test dispatches, joins and checks
// the workers itself.
type batchRig struct {
	m     *Runtime
	c     *crawlStub
	conn  *cluster.Conn
	tasks jetstream.Stream
}

func newBatchRig(t *testing.T) *batchRig {
	t.Helper()
	c := &crawlStub{now: time.Unix(1700000000, 0)}
	return newBatchRigOver(t, c, c)
}

// newBatchRigOver is newBatchRig with crawl (c, or a crawl around it) as the
// Runtime's crawl.
func newBatchRigOver(t *testing.T, c *crawlStub, crawl Crawl) *batchRig {
	t.Helper()
	_, connect := natstest.Start(t)
	conn := connect("master")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	o := config.MasterOptions{Conn: conn, Prefix: "t", HeartbeatEvery: time.Second, Timeout: 3 * time.Second, Window: 8}
	m := NewRuntime(ctx, crawl, o, Setup{})
	sub := wire.Subjects(o.Prefix)
	st, err := conn.EnsureStream(ctx, jetstream.StreamConfig{Name: sub.TaskStream(), Subjects: []string{sub.Tasks(">")},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	return &batchRig{m: m, c: c, conn: conn, tasks: st}
}

// counts is the table's Counts under the crawl's lock: tasks waiting at the
// master, and handed out.
func (r *batchRig) counts() (waiting, out int) {
	r.c.Lock()
	defer r.c.Unlock()
	return r.m.book.Counts()
}

// dispatch runs a dispatch and waits until each batch it dealt is stored or taken
// back (the dispatch itself does not wait for its publishes).
func (r *batchRig) dispatch() {
	r.m.dispatch()
	r.m.sends.Wait()
}

// join has worker name (incarnation inc) join, or rejoin, the master.
func (r *batchRig) join(t *testing.T, name, inc string) {
	t.Helper()
	data, err := cluster.Encode(&wire.Join{Node: name, Incarnation: inc, LanesMax: 4})
	if err != nil {
		t.Fatal(err)
	}
	r.m.link.OnJoin(&nats.Msg{Data: data})
}

// handOutOne has worker w1 join (incarnation a) and hands it one task of
// www.a.test: the one batch it returns is in the stream.
func (r *batchRig) handOutOne(t *testing.T) wire.Tasks {
	t.Helper()
	r.join(t, "w1", "a")
	r.queueOne()
	r.dispatch()
	b := r.stored(t, "w1")
	if len(b) != 1 || len(b[0].Tasks) != 1 {
		t.Fatalf("w1's batches after the first dispatch hold leases %v; want one of one task", leases(b))
	}
	return b[0]
}

// stored are the task batches for worker name in the stream, oldest first.
func (r *batchRig) stored(t *testing.T, name string) []wire.Tasks {
	t.Helper()
	ctx := context.Background()
	info, err := r.tasks.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []wire.Tasks
	for seq := info.State.FirstSeq; seq != 0 && seq <= info.State.LastSeq; seq++ {
		msg, err := r.tasks.GetMsg(ctx, seq)
		if err != nil || msg.Subject != wire.Subjects("t").Tasks(name) {
			continue // purged or deleted, or another worker's
		}
		var b wire.Tasks
		if err := cluster.Decode(msg.Data, &b, 0); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// leases are the leases of the batches' tasks, batch by batch.
func leases(bs []wire.Tasks) [][]uint64 {
	out := [][]uint64{}
	for _, b := range bs {
		var l []uint64
		for _, t := range b.Tasks {
			l = append(l, t.Lease)
		}
		out = append(out, l)
	}
	return out
}

// A worker declared dead while it was only slow rejoins under the same incarnation
// and is dealt its task again, before the master got to purging the batches of its
// life that ended. The purge drops those, never the batch of its new life: dropped,
// that batch's task would be counted handed out to a worker that never gets it, and
// the crawl would wait for it for ever (stuck DRAINING, "queue 1").
func TestPurgeOfADeadLifeSparesTheRejoinedWorkersBatch(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.handOutOne(t)

	// w1 goes silent past its lease and is declared dead; its task goes back to the
	// queue. As the master logs the death, w1's heartbeat is answered "unknown" and
	// it rejoins, and a dispatch deals it the task again, before the purge.
	r.c.onLog = func(msg string) {
		if strings.Contains(msg, "worker w1 is dead") {
			r.join(t, "w1", "a")
			r.dispatch()
		}
	}
	r.c.now = r.c.now.Add(time.Hour)
	r.m.link.CheckNodes(r.c.now)
	r.c.onLog = nil

	r.c.Lock()
	_, out := r.m.book.Counts()
	lease := r.m.book.inflight["http://www.a.test/1"]
	r.c.Unlock()
	if out != 1 {
		t.Fatalf("%d tasks handed out after the rejoin; want 1", out)
	}
	b := r.stored(t, "w1")
	if len(b) != 1 || len(b[0].Tasks) != 1 || b[0].Tasks[0].Lease != lease {
		t.Fatalf("w1's batches in the stream after its death's purge hold leases %v; want the one of its new life, lease %d "+
			"(the master counts that hand-out out: purged, it is held by nobody and the crawl never ends)", leases(b), lease)
	}
}

// A batch the master was sending as its worker was declared dead is dropped once
// stored, not left for the worker: rejoining under the same incarnation, it would
// fetch a task that went back to the queue and was dealt again (twice the request,
// and with the task on another worker, two workers on one host).
func TestBatchSentAsItsWorkerDiedIsDropped(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.queueOne()
	// Between the deal and the send (the task's preparation), w1 is declared dead
	// and rejoins.
	var once sync.Once
	r.c.onPrepare = func(*frontier.Task) {
		once.Do(func() {
			r.c.now = r.c.now.Add(time.Hour)
			r.m.link.CheckNodes(r.c.now)
			r.join(t, "w1", "a")
		})
	}
	r.dispatch() // sends the dead life's batch
	r.dispatch() // deals the task to the new life
	r.c.Lock()
	lease := r.m.book.inflight["http://www.a.test/1"]
	r.c.Unlock()
	b := r.stored(t, "w1")
	if len(b) != 1 || len(b[0].Tasks) != 1 || b[0].Tasks[0].Lease != lease {
		t.Fatalf("w1's batches in the stream hold leases %v; want only its new life's, lease %d", leases(b), lease)
	}
}

// A hand-out its worker never got (whatever dropped it) is queued again once the
// worker has said for a lease that it holds nothing, and the operator is told which
// URLs: the crawl does not wait for it for ever.
func TestHandOutLostOnTheWayIsQueuedAgainWithAWarning(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.queueOne()
	r.dispatch()
	if err := r.tasks.Purge(context.Background()); err != nil { // the batch is lost
		t.Fatal(err)
	}
	var warned []string
	r.c.onLog = func(msg string) {
		if strings.Contains(msg, "holds no task") {
			warned = append(warned, msg)
		}
	}
	beat := func() {
		data, err := cluster.Encode(&wire.Heartbeat{Node: "w1", Incarnation: "a", Idle: true})
		if err != nil {
			t.Fatal(err)
		}
		r.m.link.OnHeartbeat(&nats.Msg{Data: data})
	}
	beat()
	r.c.now = r.c.now.Add(max(r.m.o.Timeout, wire.TaskAckWait))
	beat()
	if len(warned) != 1 || !strings.Contains(warned[0], "http://www.a.test/1") {
		t.Fatalf("warnings %q; want one naming http://www.a.test/1", warned)
	}
	p, o := r.counts()
	if p != 1 || o != 0 {
		t.Fatalf("counts %d waiting, %d out; want the lost task queued again (1, 0)", p, o)
	}
	if n := r.m.ClusterStats().Reclaimed; n != 1 {
		t.Fatalf("stats count %d hand-outs reclaimed, want 1", n)
	}
}

// reportMsg is a worker's report as the master's consumer hands it over: its
// subject and frame, acknowledged into acked.
type reportMsg struct {
	jetstream.Msg
	subject string
	data    []byte
	acked   chan<- string
}

func (m *reportMsg) Subject() string { return m.subject }
func (m *reportMsg) Data() []byte    { return m.data }
func (m *reportMsg) Metadata() (*jetstream.MsgMetadata, error) {
	return &jetstream.MsgMetadata{Sequence: jetstream.SequencePair{Stream: 1}}, nil
}
func (m *reportMsg) Ack() error  { m.acked <- "ack"; return nil }
func (m *reportMsg) Nak() error  { m.acked <- "nak"; return nil }
func (m *reportMsg) Term() error { m.acked <- "term"; return nil }

// A result's task counts as in hand from the moment it leaves the hand-outs until
// its commit is in the store's queue. The lock is let go between the two, and an
// idle check there found nothing queued and nothing handed out while the store still
// held the URL in progress: the crawl took it for lost on its way, queued it again
// and fetched it twice (under a host budget of two pages, its links were then all
// held back).
func TestAResultBeingCommittedIsStillInHand(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	b := r.handOutOne(t)
	data, err := wire.EncodeResult(&wire.Result{Node: "w1", Incarnation: "a", Task: b.Tasks[0], Kind: "timeout", At: r.c.now})
	if err != nil {
		t.Fatal(err)
	}
	inHand := -1
	r.c.onCommit = func(*wire.Result) {
		_, inHand = r.counts()
	}
	acked := make(chan string, 1)
	r.m.onResult(&reportMsg{subject: wire.Subjects("t").Results("w1"), data: data, acked: acked})
	if got := <-acked; got != "ack" {
		t.Fatalf("the result was answered %s; want ack", got)
	}
	if inHand != 1 {
		t.Fatalf("%d tasks in hand while the result was being committed; want 1", inHand)
	}
	_, out := r.counts()
	if out != 0 {
		t.Fatalf("%d tasks in hand once the result was committed; want 0", out)
	}
}

// A worker that joined is dealt nothing until the node table naming it is
// committed: a restarted master awaits the workers its saved table names and finds
// their hand-outs in progress in the store, so no hand-out may be committed before
// the table that names its worker, whatever order the store commits writes in.
// Before, the first dispatch after the join dealt w1 its task while the table
// naming it was only submitted.
func TestAJoinedWorkerIsDealtNothingBeforeItsNodeTableIsCommitted(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	var commits []func(error)
	var submitted, committed []byte // the node table last written, and last committed
	r.c.commits = &commits
	r.c.onMeta = func(key string, data []byte) {
		if key == NodesMetaKey {
			submitted = data
		}
	}
	commit := func() {
		committed = submitted
		for _, f := range commits {
			f(nil)
		}
		commits = nil
	}
	r.c.onPrepare = func(task *frontier.Task) {
		if !slices.Contains(LiveNodes(committed), "w1") {
			t.Errorf("%s prepared for w1 while the committed node table names %q", task.URL, LiveNodes(committed))
		}
	}
	r.join(t, "w1", "a")
	r.queueOne()
	r.dispatch()
	if b := r.stored(t, "w1"); len(b) != 0 {
		t.Fatalf("w1 was dealt leases %v before the node table naming it was committed", leases(b))
	}
	if !slices.Contains(LiveNodes(submitted), "w1") {
		t.Fatalf("the node table written at w1's join names %q", LiveNodes(submitted))
	}
	commit()
	r.c.commits = nil // the hand-out's marks commit at once
	r.dispatch()
	if b := r.stored(t, "w1"); len(b) != 1 || len(b[0].Tasks) != 1 {
		t.Fatalf("w1's batches once its node table is committed hold leases %v; want one of one task", leases(b))
	}
}

// queueOne puts one task for www.a.test in the master's queue.
func (r *batchRig) queueOne() {
	r.c.Lock()
	r.m.book.Add(frontier.Task{URL: "http://www.a.test/1", Host: "www.a.test"})
	r.c.Unlock()
}
