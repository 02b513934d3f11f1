package master

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A batch is the worker's once it is in the stream, and the store must hold its
// tasks in progress by then: a master killed between the publish and the commit of
// the marks restarts with those URLs queued, holds no limbo for the worker's claim,
// and deals them again (two workers on one page) or refuses the claim of one its
// queue has not paged in (the worker drops a task the store handed to nobody).
// The kill is at the moment the test holds the commit back: the stream must hold
// nothing for the worker then, and the batch once the commit is in. Before, the
// dispatch published without waiting for any commit.
func TestABatchIsPublishedOnlyOnceItsTasksAreCommittedInProgress(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.c.commitAsked = make(chan func(error))
	var prepared []string
	r.c.onPrepare = func(task *frontier.Task) { prepared = append(prepared, task.URL) }
	r.queueOne()
	done := r.dispatchAside()
	select {
	case commit := <-r.c.commitAsked:
		if len(prepared) != 1 {
			t.Fatalf("the commit was awaited with %q marked in progress; want the batch's one task", prepared)
		}
		if b := r.stored(t, "w1"); len(b) != 0 {
			t.Fatalf("w1's batch (leases %v) is in the stream before its in-progress marks are committed: a master killed now restarts with them queued", leases(b))
		}
		commit(nil)
		<-done
	case <-done:
		t.Fatalf("the dispatch published leases %v without waiting for its in-progress marks' commit (%q marked): a master killed after the publish restarts with them queued",
			leases(r.stored(t, "w1")), prepared)
	}
	if b := r.stored(t, "w1"); len(b) != 1 || len(b[0].Tasks) != 1 {
		t.Fatalf("w1's batches once the marks are committed hold leases %v; want one of one task", leases(b))
	}
}

// Marks the store failed to commit are not the worker's: the batch is not sent and
// its tasks go back to the queue (the store's failure stops the crawl).
func TestABatchWhoseMarksFailedIsNotSent(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.c.commitAsked = make(chan func(error))
	r.queueOne()
	done := r.dispatchAside()
	select {
	case commit := <-r.c.commitAsked:
		commit(errors.New("disk full"))
		<-done
	case <-done:
	}
	if b := r.stored(t, "w1"); len(b) != 0 {
		t.Fatalf("w1 was sent leases %v whose in-progress marks the store failed to commit", leases(b))
	}
	pending, out := r.counts()
	if pending != 1 || out != 0 {
		t.Fatalf("after the failed commit %d tasks wait and %d are out; want 1 waiting, none out", pending, out)
	}
}

// A restarted master's store reads the URLs its last life handed out as queued
// (the store's open puts them back in the queue; the master keeps them in limbo,
// in memory alone). A rejoining worker's claims the master takes back must be
// marked in progress again, and committed before the join is answered: a master
// killed while the worker fetches them restarted with them queued, no limbo held
// their unit, and another worker was dealt them. Before, the claim taken back was
// never marked in the store.
func TestAClaimTakenBackIsCommittedInProgressBeforeTheJoinIsAnswered(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	held := frontier.Task{URL: "http://www.a.test/1", Host: "www.a.test", Lease: 42}
	held2 := frontier.Task{URL: "http://www.b.test/1", Host: "www.b.test", Lease: 43}
	r.c.Lock()
	r.m.book.Recover([]frontier.Task{held, held2})
	r.c.Unlock()
	r.c.commitAsked = make(chan func(error))
	var prepared []string
	r.c.onHeld = func(url string) { prepared = append(prepared, url) }
	data, err := cluster.Encode(&wire.Join{Node: "w1", Incarnation: "a", LanesMax: 4, Holding: []frontier.Task{held, held2}})
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan struct{})
	go func() {
		r.m.link.OnJoin(&nats.Msg{Data: data})
		close(answered)
	}()
	committedAfterMark := false // a commit asked once the claim was marked has run
	for answer := false; !answer; {
		select {
		case commit := <-r.c.commitAsked:
			after := slices.Contains(prepared, held.URL)
			commit(nil)
			committedAfterMark = committedAfterMark || after
		case <-answered:
			answer = true
		}
	}
	if !slices.Contains(prepared, held.URL) || !slices.Contains(prepared, held2.URL) {
		t.Fatalf("the join was answered with %q marked in progress; want the claims taken back (%s, %s) marked", prepared, held.URL, held2.URL)
	}
	// One store write for all of them: the join holds the engine's lock, and a
	// write a claim (up to wire.MaxHolding) could fill the store's queue while
	// the writer's callbacks wait for that lock.
	if r.c.helds != 1 {
		t.Fatalf("the rejoin's marks took %d store writes; want 1", r.c.helds)
	}
	if !committedAfterMark {
		t.Fatal("the join was answered before the claim's in-progress mark was committed")
	}
	_, out := r.counts()
	if out != 2 {
		t.Fatalf("%d tasks in hand after the rejoin; want the two claims taken back", out)
	}
}

// dispatchAside runs a dispatch in its own goroutine (it waits on the commit the
// test holds back); the channel closes when it returns.
func (r *batchRig) dispatchAside() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		r.dispatch()
		close(done)
	}()
	return done
}

// dealtOnceAfter queues one task for w1 (joined), publishes its batch through
// publish (which may store it and answer with an error), dispatches twice and
// fails unless w1's stream holds one batch of the one task and the task is out
// once, to w1: an answer that leaves the batch's fate open must not deal it again.
func (r *batchRig) dealtOnceAfter(t *testing.T, what string, publish func(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error)) {
	t.Helper()
	r.m.publish = publish
	r.queueOne()
	r.dispatch()
	r.dispatch() // a second round: nothing is left to deal
	if b := r.stored(t, "w1"); len(b) != 1 || len(b[0].Tasks) != 1 {
		t.Fatalf("after %s w1's batches hold leases %v; want one batch of the one task", what, leases(b))
	}
	if pending, out := r.counts(); pending != 0 || out != 1 {
		t.Fatalf("after %s %d tasks wait and %d are out; want none waiting, 1 out (w1's)", what, pending, out)
	}
}

// A publish whose acknowledgement is lost may have put the batch in the stream all
// the same, where the worker takes it. Before, the master undid the hand-out on the
// error and dealt the task again under a new lease: two batches of one URL, fetched
// twice. The batch is published again under the same message ID: the stream holds
// it once, and the task stays handed out to w1.
func TestABatchWhoseAckIsLostIsNotDealtTwice(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	lost := 1
	r.dealtOnceAfter(t, "the lost acknowledgement", func(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		ack, err := r.conn.JS.Publish(ctx, subject, data, opts...)
		if err == nil && lost > 0 {
			lost--
			return nil, nats.ErrTimeout // stored, the acknowledgement lost on its way
		}
		return ack, err
	})
}

// A publish cut off by the connection's close after the server stored the batch
// (a master shutting down) says nothing of the batch's fate: the worker may fetch
// it. The task stays handed out to w1, and the next dispatch deals it to nobody.
// Before, the error undid the hand-out and the task was dealt again under a new
// lease: two batches of one URL in the stream, fetched twice.
func TestABatchCutOffByTheConnectionsCloseIsNotDealtTwice(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	closed := 1
	r.dealtOnceAfter(t, "the connection's close", func(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		ack, err := r.conn.JS.Publish(ctx, subject, data, opts...)
		if err == nil && closed > 0 {
			closed--
			return nil, nats.ErrConnectionClosed // stored, the connection closed before the acknowledgement
		}
		return ack, err
	})
}

// A worker buried while its batch's publish is tried has what it held requeued by
// the burial; the publish then failing, the batch's undo must not requeue the
// tasks again (two copies waiting, the URL dealt twice).
func TestAnUndoAfterTheWorkersBurialRequeuesOnce(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.queueOne()
	r.m.publish = func(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		r.c.Lock()
		r.m.book.BuryDead(time.Now().Add(time.Hour), time.Second)
		r.c.Unlock()
		return nil, errors.New("nats: maximum messages per subject exceeded")
	}
	r.dispatch()
	pending, out := r.counts()
	if pending != 1 || out != 0 {
		t.Fatalf("after the burial and the failed publish %d tasks wait and %d are out; want the one task waiting once", pending, out)
	}
}

// One worker's publish that gets no answer is retried for up to half a minute:
// every other worker's batch of the dispatch goes out meanwhile, not after it.
// w1's publish is held by the test until w2's batch is in the stream; before,
// the batches went out one after another and w2's waited behind w1's tries.
func TestOneWorkersHeldPublishHoldsNoOtherWorkersBatch(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.join(t, "w2", "b")
	r.c.Lock()
	for i := range 8 {
		h := fmt.Sprintf("www.h%d.test", i)
		r.m.book.Add(frontier.Task{URL: "http://" + h + "/1", Host: h})
	}
	r.c.Unlock()
	w1 := wire.Subjects("t").Tasks("w1")
	w1Held, release := make(chan struct{}, 1), make(chan struct{})
	w2Sent := make(chan struct{}, 1)
	r.m.publish = func(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		if subject == w1 {
			select {
			case w1Held <- struct{}{}:
			default:
			}
			<-release
			return nil, errors.New("nats: maximum messages per subject exceeded")
		}
		ack, err := r.conn.JS.Publish(ctx, subject, data, opts...)
		select {
		case w2Sent <- struct{}{}:
		default:
		}
		return ack, err
	}
	done := r.dispatchAside()
	<-w1Held
	// A guard, not a measure: the batch is due as soon as its publish can run.
	guard := time.NewTimer(30 * time.Second)
	defer guard.Stop()
	select {
	case <-w2Sent:
	case <-guard.C:
		close(release)
		<-done
		t.Fatal("w2's batch was not published while w1's publish was held")
	}
	close(release)
	<-done
	if b := r.stored(t, "w2"); len(b) != 1 {
		t.Fatalf("w2's batches hold leases %v; want one batch", leases(b))
	}
	if b := r.stored(t, "w1"); len(b) != 0 {
		t.Fatalf("w1's rejected batch is in the stream with leases %v", leases(b))
	}
}

// A publish the server rejects gets the same answer on another try: the batch is
// undone at once, its tasks waiting for the next dispatch, not after half a
// minute of tries. A lost acknowledgement is still tried again
// (TestABatchWhoseAckIsLostIsNotDealtTwice).
func TestARejectedPublishIsNotTriedAgain(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.queueOne()
	tries := 0
	r.m.publish = func(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		tries++
		return nil, errors.New("nats: maximum messages per subject exceeded")
	}
	r.dispatch()
	if tries != 1 {
		t.Fatalf("a rejected publish was tried %d times; want 1", tries)
	}
	pending, out := r.counts()
	if pending != 1 || out != 0 {
		t.Fatalf("after the rejection %d tasks wait and %d are out; want the task waiting", pending, out)
	}
}

// heldPublish holds the publishes of worker name's batches until the test answers
// them: each is put on asked once the batch is in the stream (the server stored
// it), and returns what the test sends back on answer (nil: the acknowledgement).
// Other workers' batches are published at once, and put on others once stored.
func (r *batchRig) heldPublish(name string) (asked, others <-chan struct{}, answer chan<- error) {
	subject := wire.Subjects("t").Tasks(name)
	a, o, ans := make(chan struct{}, 8), make(chan struct{}, 8), make(chan error)
	r.m.publish = func(ctx context.Context, subj string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		ack, err := r.conn.JS.Publish(ctx, subj, data, opts...)
		if err != nil {
			return ack, err
		}
		if subj != subject {
			o <- struct{}{}
			return ack, nil
		}
		a <- struct{}{}
		if err := <-ans; err != nil {
			return nil, err
		}
		return ack, nil
	}
	return a, o, ans
}

// hostOf is a host of a unit worker name holds.
func (r *batchRig) hostOf(t *testing.T, name string) string {
	t.Helper()
	r.c.Lock()
	defer r.c.Unlock()
	for _, unit := range sortedKeys(r.m.book.nodes[name].units) {
		for h := range r.m.book.units[unit].hosts {
			return h
		}
	}
	t.Fatalf("%s holds no unit", name)
	return ""
}

// within waits for ch, failing with what when it does not come: a guard against a
// stall, not a measure (what it waits for is due at once).
func within[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	guard := time.NewTimer(30 * time.Second)
	defer guard.Stop()
	select {
	case <-ch:
	case <-guard.C:
		t.Fatal(what)
	}
}

// A worker whose publish gets no answer has it tried for half a minute. The
// dispatches after it deal to every other worker meanwhile: before, each
// dispatch waited for all its publishes, and w2's next batch (a task queued after
// the first deal) waited behind w1's tries. w1 is dealt nothing more until its
// publish resolves, its batch counted in hand meanwhile, and gets what waits for
// it then.
func TestAHeldPublishHoldsNoLaterDispatch(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.join(t, "w2", "b")
	asked, others, answer := r.heldPublish("w1")
	r.c.Lock()
	for i := range 4 {
		h := fmt.Sprintf("www.h%d.test", i)
		r.m.book.Add(frontier.Task{URL: "http://" + h + "/1", Host: h})
	}
	r.c.Unlock()
	go r.m.dispatchLoop()
	<-asked
	within(t, others, "w2's first batch was not published while w1's publish was held")

	// One more task for each worker, while w1's publish is held.
	h1, h2 := r.hostOf(t, "w1"), r.hostOf(t, "w2")
	r.c.Lock()
	r.m.book.Add(frontier.Task{URL: "http://" + h1 + "/2", Host: h1})
	r.m.book.Add(frontier.Task{URL: "http://" + h2 + "/2", Host: h2})
	r.c.Unlock()
	within(t, others, "w2's second batch was not published while w1's publish was held")
	pending, out := r.counts()
	if pending != 1 || out != 5 {
		t.Fatalf("while w1's publish is held %d tasks wait and %d are out; want w1's new task waiting, its batch of 2 and w2's 3 tasks out", pending, out)
	}

	answer <- nil // w1's publish is acknowledged at last: it is dealt its new task
	within(t, asked, "w1 was not dealt its new task once its publish resolved")
	answer <- nil
	r.m.sends.Wait()
	if b := r.stored(t, "w1"); len(b) != 2 || len(b[1].Tasks) != 1 || b[1].Tasks[0].URL != "http://"+h1+"/2" {
		t.Fatalf("w1's batches once its publish resolved hold leases %v; want a second one of its new task", leases(b))
	}
}

// A worker declared dead while its batch's publish is tried has its tasks queued
// again by the burial, and they go to another worker while the publish goes on.
// The publish then rejected, the batch's undo takes back nothing more: each task
// is out once (w2's), none waits.
func TestAWorkerBuriedWhileItsPublishIsTriedHasItsBatchUndoneOnce(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	asked, others, answer := r.heldPublish("w1")
	r.queueOne()
	go r.m.dispatchLoop()
	<-asked
	r.join(t, "w2", "b")
	r.c.Lock()
	r.m.book.nodes["w1"].heard = time.Time{} // silent since long ago
	buried := r.m.book.BuryDead(r.c.now, time.Second)
	r.c.Unlock()
	if len(buried) != 1 || buried[0].Name != "w1" {
		t.Fatalf("buried %v; want w1", buried)
	}
	within(t, others, "w1's task was not dealt to w2 while w1's publish was held")
	answer <- errors.New("nats: maximum messages per subject exceeded")
	r.m.sends.Wait()
	pending, out := r.counts()
	if pending != 0 || out != 1 {
		t.Fatalf("after w1's burial and its rejected publish %d tasks wait and %d are out; want none waiting, w2's one out", pending, out)
	}
	if b := r.stored(t, "w2"); len(b) != 1 || len(b[0].Tasks) != 1 {
		t.Fatalf("w2's batches hold leases %v; want one of the task", leases(b))
	}
}

// A worker declared dead while its batch's publish is tried, the batch stored all
// the same, rejoins under the same incarnation before the publish returns: it got
// the batch, and its join claims the task, which the master takes back under the
// batch's lease. The publish then fails (the server stored the batch, and the
// connection failed before its acknowledgement came back: no answer that a retry
// could change). The undo must not take the task back from the worker fetching it:
// before, the task was queued again and dealt a second time (a double fetch).
// What the worker had not claimed, it drops if the batch reaches it later (its
// lease is below the rejoin's first, and not kept: worker.Lease.Stale).
func TestAFailedPublishLeavesARejoinedWorkersClaim(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	asked, _, answer := r.heldPublish("w1")
	r.queueOne()
	done := make(chan struct{})
	go func() {
		r.m.dispatch()
		r.m.sends.Wait()
		close(done)
	}()
	<-asked
	b := r.stored(t, "w1")
	if len(b) != 1 || len(b[0].Tasks) != 1 {
		t.Fatalf("w1's batches hold leases %v; want the one being published", leases(b))
	}
	r.c.Lock()
	r.m.book.nodes["w1"].heard = time.Time{}
	r.m.book.BuryDead(r.c.now, time.Second)
	r.c.Unlock()
	data, err := cluster.Encode(&wire.Join{Node: "w1", Incarnation: "a", LanesMax: 4, Holding: b[0].Tasks})
	if err != nil {
		t.Fatal(err)
	}
	r.m.link.OnJoin(&nats.Msg{Data: data})
	r.c.Lock()
	_, held := r.m.book.nodes["w1"].held[b[0].Tasks[0].URL]
	r.c.Unlock()
	if !held {
		t.Fatal("the rejoin's claim of the batch's task was not taken back")
	}
	answer <- nats.ErrConnectionClosed
	<-done
	pending, out := r.counts()
	if pending != 0 || out != 1 {
		t.Fatalf("after the rejoin's claim and the failed publish %d tasks wait and %d are out; want none waiting, the claim out", pending, out)
	}
}

// A worker restarted (a new incarnation) while its last incarnation's batch is
// being published is dealt at once: that batch, should it be stored, is dropped
// by the new incarnation, and its tasks went back to the queue when the old one
// was buried. Before, the new incarnation was dealt nothing until the old
// incarnation's publish resolved, up to half a minute.
func TestARestartedWorkerIsDealtWhileItsLastIncarnationsPublishIsTried(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	held, release := make(chan struct{}, 1), make(chan struct{})
	stored := make(chan wire.Tasks, 4)
	r.m.publish = func(ctx context.Context, subj string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		var b wire.Tasks
		if err := cluster.Decode(data, &b, 0); err != nil {
			return nil, err
		}
		if b.Incarnation == "a" {
			held <- struct{}{}
			<-release
			return nil, errors.New("nats: maximum messages per subject exceeded")
		}
		ack, err := r.conn.JS.Publish(ctx, subj, data, opts...)
		if err == nil {
			stored <- b
		}
		return ack, err
	}
	defer close(release)
	r.queueOne()
	go r.m.dispatchLoop()
	<-held
	r.join(t, "w1", "b") // restarted: incarnation a is buried, its task queued again
	within(t, stored, "w1's new incarnation was dealt nothing while its last incarnation's publish was held")
	pending, out := r.counts()
	if pending != 0 || out != 1 {
		t.Fatalf("with the new incarnation's batch out %d tasks wait and %d are out; want the task out once", pending, out)
	}
}

// A publish whose first try stored the batch without an answer (a timeout) and
// whose later tries found no responders (the stream briefly unavailable) may have
// put the batch in the stream: the task stays handed out to w1. Judged by the last
// try's error alone, it was undone and dealt again: two batches of one URL.
func TestABatchStoredThenRefusedIsNotDealtTwice(t *testing.T) {
	t.Parallel()
	r := newBatchRig(t)
	r.join(t, "w1", "a")
	r.m.publishBackoff = time.Millisecond // every try but the last fails: no need to wait seconds between them
	tries := 0
	r.dealtOnceAfter(t, "a lost acknowledgement and refusals", func(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		tries++
		switch {
		case tries == 1:
			if _, err := r.conn.JS.Publish(ctx, subject, data, opts...); err != nil {
				t.Errorf("store: %v", err)
			}
			return nil, nats.ErrTimeout // stored, the acknowledgement lost
		case tries <= publishTries:
			return nil, nats.ErrNoResponders // the stream unavailable for the other tries
		}
		return r.conn.JS.Publish(ctx, subject, data, opts...)
	})
}
