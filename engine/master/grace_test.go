package master

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A master restarted with two URLs its last life handed out finds, in the results
// stream, the result of one of them that a worker published while it was down, not
// read yet when the grace period ends (a backlog of results to commit, a slow
// store). That URL is no URL "claimed or reported by no worker": it is not queued
// again (the site would be asked for the page twice) and the page is stored, not
// dropped as a late report; only the other URL is queued again.
func TestGraceEndReadsTheResultsInTheStreamFirst(t *testing.T) {
	t.Parallel()
	graceReadsTheStream(t, 0)
}

// The grace period's end reads the results stream's state to know how far to read;
// a read that fails (a timeout, the server busy) is no empty stream: the next
// tick reads it again, and the result waiting in it is read before anything is
// queued again, as when the first read succeeds.
func TestGraceEndRetriesAStreamStateItCouldNotRead(t *testing.T) {
	t.Parallel()
	graceReadsTheStream(t, 3)
}

// graceReadsTheStream runs a restarted master's grace period over two URLs, the
// result of the first waiting in the stream, the first failedReads reads of the
// stream's state failing; it fails t unless only the second URL is queued again.
func graceReadsTheStream(t *testing.T, failedReads int) {
	_, connect := natstest.Start(t)
	conn := connect("master")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sub := wire.Subjects("t")
	results, err := conn.EnsureStream(ctx, jetstream.StreamConfig{Name: sub.ResultStream(), Subjects: []string{sub.Results(">")},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	held := []frontier.Task{
		{URL: "http://www.a.test/1", Host: "www.a.test", Lease: 7},
		{URL: "http://www.b.test/1", Host: "www.b.test", Lease: 8},
	}
	// The result of a.test/1, published by its worker while the master was down.
	data, err := wire.EncodeResult(&wire.Result{Node: "w1", Incarnation: "a", Task: held[0], At: time.Now(),
		Res: &fetch.Result{Status: 200, FinalURL: held[0].URL}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.JS.Publish(ctx, sub.Results("w1"), data); err != nil {
		t.Fatal(err)
	}

	c := &crawlStub{now: time.Unix(1700000000, 0)}
	var mu sync.Mutex
	var committed []string
	c.onCommit = func(r *wire.Result) {
		mu.Lock()
		committed = append(committed, r.Task.URL)
		mu.Unlock()
	}
	graceLog := make(chan string, 4)
	c.onLog = func(msg string) {
		if strings.Contains(msg, "grace period over") {
			graceLog <- msg
		}
	}
	o := config.MasterOptions{Conn: conn, Prefix: "t", HeartbeatEvery: 50 * time.Millisecond, Timeout: 150 * time.Millisecond, Window: 8}
	m := NewRuntime(ctx, c, o, Setup{Held: held, Restarted: true})
	// The grace period stays short, but the wait for the stream's reading is long:
	// the test reads the result when the master says it waits for it, however
	// slowly a loaded box creates the consumer.
	m.backlogWait = time.Minute
	var reads atomic.Int32
	m.streamState = func(ctx context.Context) (jetstream.StreamState, error) {
		if int(reads.Add(1)) <= failedReads {
			return jetstream.StreamState{}, context.DeadlineExceeded
		}
		info, err := results.Info(ctx)
		if err != nil {
			return jetstream.StreamState{}, err
		}
		return info.State, nil
	}
	c.Lock()
	for _, task := range held { // the queue pages them in from the store, in progress
		task.Lease = 0
		m.book.Add(task)
	}
	c.Unlock()
	done := make(chan struct{})
	go func() { defer close(done); m.grace(len(held)) }()

	// The grace period ends with the result still unread: either it queued the
	// URLs again and returned, or it says it reads the stream first.
	var first string
	select {
	case first = <-graceLog:
	case <-done:
	}
	// The result is read now, as the master's consumer would.
	cons, err := results.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "master", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for msg := range batch.Messages() {
		m.onResult(msg)
	}
	<-done
	var last string
	for len(graceLog) > 0 {
		last = <-graceLog
	}
	if last == "" {
		last = first
	}
	mu.Lock()
	defer mu.Unlock()
	if len(committed) != 1 || committed[0] != held[0].URL {
		t.Errorf("results committed: %v; want the page of %s, read from the stream after the grace period", committed, held[0].URL)
	}
	c.Lock()
	pending, _ := m.book.Counts()
	c.Unlock()
	if !strings.Contains(last, "1 of the 2 URLs") || pending != 1 {
		t.Errorf("the grace period's end: %q, %d URLs queued again; want 1 of the 2 (only b.test/1 went unreported)", last, pending)
	}
	if n := int(reads.Load()); n <= failedReads {
		t.Errorf("the stream's state was read %d times; the test fails the first %d", n, failedReads)
	}
}

// A results stream whose state cannot be read at all does not hold the grace
// period's end for ever: it gives up once the no-progress limit has passed (not at
// the first failed read), says why, and the crawl goes on.
func TestGraceEndGivesUpOnAStreamStateNeverRead(t *testing.T) {
	t.Parallel()
	c := &crawlStub{now: time.Unix(1700000000, 0)}
	var mu sync.Mutex
	var logs []string
	c.onLog = func(msg string) {
		mu.Lock()
		logs = append(logs, msg)
		mu.Unlock()
	}
	o := config.MasterOptions{Prefix: "t", HeartbeatEvery: 50 * time.Millisecond, Timeout: 150 * time.Millisecond, Window: 8}
	m := NewRuntime(t.Context(), c, o, Setup{Restarted: true})
	var reads atomic.Int32
	m.streamState = func(context.Context) (jetstream.StreamState, error) {
		reads.Add(1)
		return jetstream.StreamState{}, context.DeadlineExceeded
	}
	const limit = 200 * time.Millisecond
	start := time.Now()
	if !m.readBacklog(limit) {
		t.Fatal("readBacklog returned false: the crawl has not ended")
	}
	took := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	if took < limit || reads.Load() < 2 {
		t.Errorf("gave up after %v and %d reads of the stream's state; want the no-progress limit (%v) waited, the state read again each tick", took, reads.Load(), limit)
	}
	if len(logs) != 1 || !strings.Contains(logs[0], "could not be read") || !strings.Contains(logs[0], context.DeadlineExceeded.Error()) {
		t.Errorf("logged %q; want one warning that the stream's state could not be read, with the error", logs)
	}
}

// A restarted master whose last run's workers have all rejoined has every claim
// it waits for: the grace period ends then, not a lease later (with a lease of an
// hour here, the only way it can end within the test). What no worker claimed is
// queued again, and a worker of the last run that has not rejoined yet holds the
// grace period, as before.
func TestGraceEndsOnceEveryWorkerOfTheLastRunRejoined(t *testing.T) {
	t.Parallel()
	c := &crawlStub{now: time.Unix(1700000000, 0)}
	graceLog := make(chan string, 4)
	c.onLog = func(msg string) {
		if strings.Contains(msg, "grace period") {
			graceLog <- msg
		}
	}
	held := []frontier.Task{
		{URL: "http://www.a.test/1", Host: "www.a.test", Lease: 7},
		{URL: "http://www.b.test/1", Host: "www.b.test", Lease: 8},
	}
	o := config.MasterOptions{Prefix: "t", HeartbeatEvery: 50 * time.Millisecond, Timeout: time.Hour, Window: 8}
	m := NewRuntime(t.Context(), c, o, Setup{Held: held, Restarted: true, Nodes: []string{"w1", "w2"}})
	m.streamState = func(context.Context) (jetstream.StreamState, error) { return jetstream.StreamState{}, nil } // nothing unread
	c.Lock()
	for _, task := range held { // the queue pages them in from the store, in progress
		task.Lease = 0
		m.book.Add(task)
	}
	c.Unlock()
	done := make(chan struct{})
	go func() { defer close(done); m.grace(len(held)) }()

	c.Lock()
	m.book.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4, Holding: held[:1]}, c.now, 0)
	rejoined := m.book.Rejoined()
	c.Unlock()
	select {
	case <-rejoined:
		t.Fatal("the grace period may end with w2, a worker of the last run, not rejoined")
	default:
	}
	c.Lock()
	m.book.Join(&wire.Join{Node: "w2", Incarnation: "j", LanesMax: 4}, c.now, 0) // restarted: it holds nothing
	c.Unlock()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the grace period goes on after every worker of the last run rejoined")
	}
	var last string
	for len(graceLog) > 0 {
		last = <-graceLog
	}
	c.Lock()
	pending, _ := m.book.Counts()
	c.Unlock()
	if !strings.Contains(last, "1 of the 2 URLs") || pending != 1 {
		t.Errorf("the grace period's end: %q, %d URLs queued again; want 1 of the 2 (b.test/1, which no worker claimed)", last, pending)
	}
}

// The workers a restarted master waits for are those its saved node table shows
// neither dead nor left: a dead worker's URLs went back to the queue, and one that
// left handed back what it held.
func TestLiveNodesOfTheSavedNodeTable(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	now := time.Unix(1700000000, 0)
	for _, name := range []string{"w1", "w2", "w3", "w4"} {
		tb.addNode(name).heard = now
	}
	tb.nodes["w3"].heard, tb.nodes["w4"].heard = now.Add(time.Hour), now.Add(time.Hour)
	tb.Leave(&wire.Leave{Node: "w1", Incarnation: "i", Final: true})
	tb.Leave(&wire.Leave{Node: "w3", Incarnation: "i"}) // leaving, not gone yet
	tb.BuryDead(now.Add(time.Hour), time.Minute)        // w2 went silent
	data, err := tb.NodesJSON()
	if err != nil {
		t.Fatal(err)
	}
	if got := LiveNodes(data); !slices.Equal(got, []string{"w3", "w4"}) {
		t.Errorf("live nodes of %s: %v; want w3 (leaving) and w4", data, got)
	}
	if got := LiveNodes([]byte("null")); got != nil {
		t.Errorf("live nodes of no table: %v", got)
	}
}

// A worker the last life knew live that has not rejoined this one may still hold
// that life's URLs under its lease: the node table this life saves (at each join,
// at Stop) names it while the grace period waits for it, so a next life started
// before that grace period ended waits for it too, instead of ending its own
// grace period once the others rejoined and queuing again (dealing to another
// worker) what the slow one may still fetch. Once the grace period is over, that
// worker's lease has run out: the table no longer names it.
func TestAWorkerAwaitedStaysAwaitedAcrossASecondRestart(t *testing.T) {
	t.Parallel()
	now := time.Unix(1700000000, 0)
	held := []frontier.Task{
		{URL: "http://www.a.test/1", Host: "www.a.test", Lease: 7},
		{URL: "http://www.b.test/1", Host: "www.b.test", Lease: 8}, // w2's, from the first life
	}
	second := New(&keepAll{}, nil, 1)
	second.Recover(held)
	second.Await([]string{"w1", "w2"})
	second.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4}, now, 0)
	data, err := second.NodesJSON() // what SaveNodes writes at w1's join, or at Stop
	if err != nil {
		t.Fatal(err)
	}
	if got := LiveNodes(data); !slices.Equal(got, []string{"w1", "w2"}) {
		t.Fatalf("the next life would await %v (saved %s); want w1 and w2, awaited and not rejoined", got, data)
	}

	third := New(&keepAll{}, nil, 1)
	third.Recover(held)
	third.Await(LiveNodes(data))
	third.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4}, now, 0)
	select {
	case <-third.Rejoined():
		t.Fatal("the third life's grace period may end with w2, still awaited by the second, not rejoined")
	default:
	}
	third.Join(&wire.Join{Node: "w2", Incarnation: "j", LanesMax: 4}, now, 0)
	select {
	case <-third.Rejoined():
	default:
		t.Fatal("the third life's grace period goes on after w1 and w2 rejoined")
	}

	if again := second.EndGrace(); again != 2 {
		t.Fatalf("the second life's grace period queued %d URLs again; want 2", again)
	}
	if data, err = second.NodesJSON(); err != nil {
		t.Fatal(err)
	}
	if got := LiveNodes(data); !slices.Equal(got, []string{"w1"}) {
		t.Errorf("after the grace period, the next life would await %v (saved %s); want w1 alone", got, data)
	}
}

// At the grace period's end the node table is saved again without the workers it
// still awaited: their leases ran out, and a next life need not wait for them.
func TestGraceEndSavesTheNodeTableWithoutTheWorkersAwaited(t *testing.T) {
	t.Parallel()
	c := &crawlStub{now: time.Unix(1700000000, 0)}
	var saved []byte // under c's lock
	c.onMeta = func(key string, data []byte) {
		if key == NodesMetaKey {
			saved = data
		}
	}
	ended := make(chan struct{})
	c.onLog = func(msg string) {
		if strings.HasPrefix(msg, "grace period over") {
			close(ended)
		}
	}
	held := []frontier.Task{{URL: "http://www.a.test/1", Host: "www.a.test", Lease: 7}}
	o := config.MasterOptions{Prefix: "t", HeartbeatEvery: 10 * time.Millisecond, Timeout: 30 * time.Millisecond, Window: 8}
	m := NewRuntime(t.Context(), c, o, Setup{Held: held, Restarted: true, Nodes: []string{"w1", "w2"}})
	m.streamState = func(context.Context) (jetstream.StreamState, error) { return jetstream.StreamState{}, nil } // nothing unread
	c.Lock()
	m.book.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4}, c.now, 0)
	m.link.SaveNodes() // as the join's handler does
	during := LiveNodes(saved)
	c.Unlock()
	if !slices.Equal(during, []string{"w1", "w2"}) {
		t.Fatalf("during the grace period, saved table's live workers %v; want w1 and w2 (awaited)", during)
	}
	go m.grace(len(held))
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("the grace period never ended")
	}
	c.Lock()
	after := LiveNodes(saved)
	c.Unlock()
	if !slices.Equal(after, []string{"w1"}) {
		t.Errorf("after the grace period, saved table's live workers %v; want w1 alone", after)
	}
}
