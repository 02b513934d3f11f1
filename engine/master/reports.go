package master

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/master/internal/fate"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// Start sets up the streams and listens to the workers: their joins, heartbeats,
// claims and leaves, and the results they report. The crawl starts it.
func (m *Runtime) Start() error {
	// A minute for all of the setup: a JetStream file stream created on a box at
	// load 30 took longer than the 10 s this once had, and the master then failed
	// to start; a server that never answers is still reported, only later.
	ctx, cancel := context.WithTimeout(m.ctx, time.Minute)
	defer cancel()
	// Results are kept on file: what workers fetched while the master was down is
	// committed when it is back. Task batches need not be: a master that restarts
	// queues again, from its store, every URL it had handed out.
	var results jetstream.Stream
	for _, s := range []struct {
		name, subjects string
		storage        jetstream.StorageType
	}{{m.sub.TaskStream(), m.sub.Tasks(">"), jetstream.MemoryStorage}, {m.sub.ResultStream(), m.sub.Results(">"), jetstream.FileStorage}} {
		st, err := m.conn.EnsureStream(ctx, jetstream.StreamConfig{
			Name: s.name, Subjects: []string{s.subjects},
			Retention: jetstream.WorkQueuePolicy, Storage: s.storage,
		})
		if err != nil {
			return err
		}
		results = st // the last one: the results stream
		// Batches a last life sent that no worker took are dropped (a NATS server
		// that outlived the master keeps them): their URLs are in limbo until their
		// holders claim them, and a worker that took one now would fetch it
		// unclaimed while the master queues it again.
		if s.storage == jetstream.MemoryStorage {
			if err := st.Purge(ctx); err != nil {
				return fmt.Errorf("master: purge the last run's task batches: %w", err)
			}
		}
	}
	cons, err := m.resultsConsumer(ctx, results)
	if err != nil {
		return err
	}
	// Results are committed by as many goroutines as there are CPUs: on one box the
	// lanes record their pages in parallel, and a single handler would cap the master.
	m.results = make(chan jetstream.Msg, 256)
	for range runtime.GOMAXPROCS(0) {
		m.crawl.Go(func() {
			for {
				select {
				case msg := <-m.results:
					m.onResult(msg)
				case <-m.ctx.Done():
					return // what waits here is not acknowledged: redelivered to the next master
				}
			}
		})
	}
	if m.consume, err = cons.Consume(func(msg jetstream.Msg) {
		select {
		case m.results <- msg:
		case <-m.ctx.Done():
		}
	}, jetstream.PullMaxMessages(256)); err != nil {
		return fmt.Errorf("master: consume results: %w", err)
	}
	for subj, h := range map[string]nats.MsgHandler{
		m.sub.Join(): m.link.OnJoin, m.sub.Heartbeat("*"): m.link.OnHeartbeat, m.sub.Leave(): m.link.OnLeave,
		m.sub.Claim(): m.link.OnClaim,
	} {
		sub, err := m.conn.NC.Subscribe(subj, h)
		if err != nil {
			return fmt.Errorf("master: subscribe %s: %w", subj, err)
		}
		m.subs = append(m.subs, sub)
	}
	// Under the lock: the results consumed above take URLs out of limbo already.
	m.crawl.Lock()
	n := m.book.Limbo()
	m.crawl.Unlock()
	if n > 0 {
		m.crawl.Go(func() { m.grace(n) })
	}
	m.crawl.Go(m.dispatchLoop)
	m.crawl.Go(func() { m.every(m.o.BalanceEvery, m.link.BalanceDaily) })
	m.crawl.Go(func() { m.every(m.o.HeartbeatEvery/2, m.link.CheckNodes) })
	return nil
}

// every calls f every d until the crawl ends (on the caller's goroutine).
func (m *Runtime) every(d time.Duration, f func(now time.Time)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
			f(m.crawl.Now())
		}
	}
}

// grace waits for the workers to claim the n URLs the master's last life had
// handed out, for as long as a lease it granted may run (its timeout and margin,
// from this start), then queues again what nobody claimed.
func (m *Runtime) grace(n int) {
	d := m.o.Timeout + m.link.LeaseMargin()
	m.crawl.Logf(view.LevelInfo, "restarted with %d URLs handed out by the last run: waiting %v for the workers to claim them or report them done", n, d)
	m.crawl.Lock()
	rejoined := m.book.Rejoined()
	m.crawl.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-rejoined:
		m.crawl.Logf(view.LevelInfo, "every worker of the last run rejoined: the grace period ends before its %v", d)
	case <-m.ctx.Done():
		return
	}
	wait := d
	if m.backlogWait > 0 {
		wait = m.backlogWait
	}
	if !m.readBacklog(wait) {
		return
	}
	m.crawl.Lock()
	again := m.book.EndGrace()
	// The workers still awaited are awaited no more: their leases ran out.
	m.link.SaveNodes()
	m.crawl.CheckIdle()
	m.crawl.Unlock()
	m.crawl.Logf(view.LevelInfo, "grace period over: %d of the %d URLs handed out by the last run claimed or reported by no worker, queued again", again, n)
}

// readBacklog waits, at the grace period's end, until the master has read the
// results stream up to its last report: a result a worker published while the
// master was down, still unread behind a backlog of commits, takes its URL out of
// limbo. Queued again, that URL would be fetched twice and the result, read then,
// dropped as late. It gives up once a wait of d brings no progress (a stream it
// cannot read: the crawl goes on without it), and returns false when the crawl ends.
// A failed read of the stream's state is no answer (not an empty stream): it is
// tried again at the next tick, and until the stream's last report is known no
// wait counts as progress.
func (m *Runtime) readBacklog(d time.Duration) bool {
	var last uint64
	known, logged := false, false
	t := time.NewTicker(max(m.o.HeartbeatEvery/4, 10*time.Millisecond))
	defer t.Stop()
	var read uint64
	var readErr error
	progress := time.Now()
	for {
		if known {
			m.crawl.Lock()
			now := m.book.readSeq
			m.crawl.Unlock()
			if now >= last {
				return true
			}
			if now != read {
				read, progress = now, time.Now()
			}
		}
		st, err := m.resultsState()
		switch {
		case err != nil:
			readErr = err
		case st.Msgs == 0:
			return m.ctx.Err() == nil // empty, or read and acknowledged (or dropped) meanwhile
		case !known:
			last, known = st.LastSeq, true
			continue // compare it with what is read already
		case st.FirstSeq > last:
			return true // read and acknowledged (or dropped) meanwhile
		}
		if time.Since(progress) > d {
			if !known {
				m.crawl.Logf(view.LevelWarn, "grace period over: the results stream's state could not be read for %v (%v); queuing again what is unclaimed", d, readErr)
			} else {
				m.crawl.Logf(view.LevelWarn, "grace period over: the results stream is read no further than report %d of %d after %v; queuing again what is unclaimed", read, last, d)
			}
			return true
		}
		if known && !logged {
			logged = true
			m.crawl.Logf(view.LevelInfo, "grace period over: reading the results stream up to report %d before queuing again what no worker claimed or reported", last)
		}
		select {
		case <-m.ctx.Done():
			return false
		case <-t.C:
		}
	}
}

// resultsState is the results stream's state, read through m.streamState when set.
func (m *Runtime) resultsState() (jetstream.StreamState, error) {
	ctx, cancel := context.WithTimeout(m.ctx, 5*time.Second)
	defer cancel()
	if m.streamState != nil {
		return m.streamState(ctx)
	}
	s, err := m.conn.JS.Stream(ctx, m.sub.ResultStream())
	if err != nil {
		return jetstream.StreamState{}, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return jetstream.StreamState{}, err
	}
	return info.State, nil
}

// Stop ends listening; results not yet committed stay in the stream (redelivered
// to the next master). The node and cost tables are kept in the store.
func (m *Runtime) Stop() {
	if m.consume != nil {
		m.consume.Stop()
	}
	for _, s := range m.subs {
		s.Unsubscribe()
	}
	m.crawl.Lock()
	m.link.SaveNodes()
	m.link.SaveCosts()
	m.crawl.Unlock()
}

// dispatchLoop hands waiting tasks to their units' workers whenever something
// changed (a task queued, a result in, a worker joined), and twice a heartbeat.
func (m *Runtime) dispatchLoop() {
	t := time.NewTicker(m.o.HeartbeatEvery / 2)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-m.book.Kicked():
		case <-t.C:
		}
		m.dispatch()
	}
}

// dispatch sends each live, unpaused worker tasks of its units up to its window,
// marked in progress in the store (a refetch with its validators, M2).
func (m *Runtime) dispatch() {
	m.crawl.Lock()
	if !m.crawl.Dispatching() {
		m.crawl.Unlock()
		return
	}
	out := m.book.Dispatch(m.o.Window)
	for _, b := range out {
		m.book.Publishing(b)
	}
	// A budget may have held back every task left, with nothing in flight: no
	// report is to come, so the end is checked here or never.
	m.crawl.CheckIdle()
	m.crawl.Unlock()
	if len(out) == 0 {
		return
	}
	for _, b := range out {
		for i := range b.Tasks {
			m.crawl.Prepare(&b.Tasks[i])
		}
	}
	if !m.marksCommitted(out) {
		return
	}
	// Each batch goes out on its own, and the dispatch does not wait for it: a
	// publish retried for a worker (publishBatch, up to half a minute of a server
	// that does not answer) holds back neither another worker's batch of this
	// dispatch nor the next dispatches, which deal to every other worker
	// meanwhile. Its worker is dealt nothing more until it resolves
	// (Table.Publishing), so one worker's batches go out in their order.
	for _, b := range out {
		m.sends.Add(1)
		m.crawl.Go(func() {
			defer m.sends.Done()
			m.send(b)
		})
	}
}

// send publishes batch b, or takes it back when that failed.
func (m *Runtime) send(b Batch) {
	data, err := cluster.Encode(&wire.Tasks{Node: b.Node, Incarnation: b.Incarnation, Tasks: b.Tasks, LastRequest: b.LastRequest})
	var ack *jetstream.PubAck
	if err == nil {
		ack, err = m.publishBatch(b, data)
	}
	if err == nil {
		m.crawl.Lock()
		current := m.book.Sent(b, ack.Sequence)
		m.crawl.Unlock()
		if !current {
			m.link.unsend(b.Node, ack.Sequence)
		}
		return
	}
	if m.ctx.Err() != nil {
		return
	}
	if fate.MayBeStored(err) {
		// The server may hold the batch (the connection closed, or no answer came,
		// after it was sent): the worker may fetch it, so its tasks stay handed out.
		// Taken back, they were dealt again under new leases and fetched twice. A
		// batch that never reached the worker is reclaimed once its heartbeats say
		// it holds nothing (idleFor).
		m.crawl.Logf(view.LevelWarn, "tasks for %s may not have been sent: %v (kept as handed out until it reports them or says it holds nothing)", b.Node, err)
		m.crawl.Lock()
		m.book.Unanswered(b)
		m.crawl.Unlock()
		return
	}
	// Not handed out after all: the tasks wait for the next dispatch.
	m.crawl.Logf(view.LevelWarn, "tasks for %s not sent: %v", b.Node, err)
	m.crawl.Lock()
	m.book.Undo(b)
	m.crawl.Unlock()
}

// publishBatch publishes batch b (encoded as data) to its worker's subject, under a
// message ID of its first hand-out. A publish whose acknowledgement is lost (a
// timeout, the connection cut after the server stored it) may still have put the
// batch in the stream, where the worker takes it: undone then, its tasks were dealt
// again under new leases and fetched twice. So it is published again under the same
// ID, which the stream stores once, until it is acknowledged (the first copy's
// sequence when it was stored) or publishTries fail, the stream's duplicate window
// (2 min) being far longer than those tries. Only an error that leaves the
// batch's fate unknown and that a later try can clear is retried (see
// fate.Retry): a rejection is final, and the batch is undone at once. A fate
// still unknown after the last try leaves the batch handed out (send).
func (m *Runtime) publishBatch(b Batch, data []byte) (*jetstream.PubAck, error) {
	publish := m.conn.JS.Publish
	if m.publish != nil {
		publish = m.publish
	}
	var opts []jetstream.PublishOpt
	if len(b.Tasks) > 0 {
		opts = append(opts, jetstream.WithMsgID(fmt.Sprintf("%s.%s.%d", b.Node, b.Incarnation, b.Tasks[0].Lease)))
	}
	var err, unanswered error
	// fail is the publish's error, saying so when an earlier try may have stored the
	// batch (fate.MayBeStored): a later try's refusal (no responders) does not undo that.
	fail := func(err error) error {
		if unanswered != nil && !fate.MayBeStored(err) {
			return fmt.Errorf("%w (an earlier try may have stored it: %w)", err, unanswered)
		}
		return err
	}
	backoff := cmp.Or(m.publishBackoff, 100*time.Millisecond)
	for try := 1; ; try, backoff = try+1, min(2*backoff, 2*time.Second) {
		ctx, cancel := context.WithTimeout(m.ctx, 5*time.Second)
		var ack *jetstream.PubAck
		ack, err = publish(ctx, m.sub.Tasks(b.Node), data, opts...)
		cancel()
		if err != nil && fate.MayBeStored(err) {
			unanswered = err
		}
		if err == nil || try == publishTries || m.ctx.Err() != nil || !fate.Retry(err) {
			if err != nil {
				return ack, fail(err)
			}
			return ack, nil
		}
		select {
		case <-m.ctx.Done():
			return nil, fail(err)
		case <-time.After(backoff):
		}
	}
}

// publishTries bounds publishBatch's tries: about 30 s of a server that does not answer.
const publishTries = 6

// marksCommitted waits until the store has committed the in-progress marks of the
// batches' tasks (Prepare), before any batch is published. A batch is the worker's
// as soon as it is in the stream; a master killed after the publish and before the
// commit came back with those URLs queued, not in progress: no limbo held their
// units for their holder's claim, so the restarted master dealt them again (to
// another worker, while the holder fetched them), and a claim of a URL its queue
// had not paged in yet was refused, the holder dropping a task the store then had
// handed out to nobody. Killed after the commit and before the publish, the
// restarted master finds them in progress: they wait in limbo for a grace period
// that no worker's claim cuts short, and are queued again. The wait is the
// writer's next commit (its batch delay); the marks ride in the batch that is
// open. false: the store failed (the crawl stops; the tasks go back to the queue)
// or the master is stopping.
func (m *Runtime) marksCommitted(out []Batch) bool {
	done := make(chan error, 1)
	m.crawl.AfterCommit(func(err error) { done <- err })
	select {
	case err := <-done:
		if err == nil {
			return true
		}
		m.crawl.Lock()
		for _, b := range out {
			m.book.Undo(b)
		}
		m.crawl.Unlock()
		return false
	case <-m.ctx.Done():
		return false
	}
}

// onResult commits one worker's result, or its deferral, and acknowledges it once
// committed. A report that is not for its URL's current hand-out (a dead worker's
// late result, a redelivery after the master's restart) is acknowledged and dropped:
// each hand-out counts at most once, and only the current one.
func (m *Runtime) onResult(msg jetstream.Msg) {
	if m.sub.IsDeferral(msg.Subject()) {
		m.onDeferral(msg)
		return
	}
	var r wire.Result
	if err := wire.DecodeResult(msg.Data(), &r); err != nil {
		m.reject(msg, "result", err)
		return
	}
	m.addRefusals(r.Refusals)
	revisit, ok := m.settle(msg, r.Node, r.Task, true)
	if !ok {
		return
	}
	if r.Res != nil {
		// Seed 003's cost table: the time a lane spent on the page, its fetch and the
		// mean pause that follows it (politeness, not the fetch, is most of a site's
		// crawl time; fetch times alone on a fast network are mostly noise).
		m.book.AddCost(wire.UnitOf(r.Task), r.Res.Duration+m.pause)
		m.book.Ended(r.Task, r.At)        // the host's next holder counts its gap from here
		m.crawl.FetchCost(r.Res.Duration) // access time for the workers-needed estimate
	}
	m.crawl.Unlock()
	m.crawl.Commit(&r, revisit)
	m.committed(msg)
}

// onDeferral sets aside a URL a worker deferred (M3: its host disabled, its
// robots.txt unreachable) until the time it names: the store queues it again then.
// It is no result: the worker's results and the URL's fetch history stay as they were.
func (m *Runtime) onDeferral(msg jetstream.Msg) {
	var d wire.Deferral
	if err := cluster.Decode(msg.Data(), &d, wire.MaxMessage); err != nil {
		m.reject(msg, "deferral", err)
		return
	}
	m.addRefusals(d.Refusals)
	if _, ok := m.settle(msg, d.Node, d.Task, false); !ok {
		return
	}
	// Filed under the host it waits for: its own, or the held host its site's
	// robots.txt redirects to (Behind), whose enable brings it back too. A deferral
	// reported after the operator enabled that host again, of a hand-out from
	// before (in a worker's outbox, or here between the lock and the store, at the
	// enable), comes back at once as the others did.
	host := d.Task.Host
	if d.Behind != "" {
		host = d.Behind
	}
	enabled := func() bool { l, ok := m.enabled[host]; return ok && d.Task.Lease <= l }
	back := d.Kind == "" && enabled()
	if d.Kind == "" && !back {
		m.deferred.Add(host, d.Task.URL, d.Until, m.crawl.Now())
	}
	m.crawl.Unlock()
	m.crawl.Defer(d.Task.URL, d.Until, d.Kind, d.Behind)
	if !back && d.Kind == "" {
		m.crawl.Lock()
		back = enabled()
		m.crawl.Unlock()
	}
	if back {
		m.crawl.Undefer([]string{d.Task.URL})
	}
	m.committed(msg)
}

// reject counts and drops a report that cannot be read.
func (m *Runtime) reject(msg jetstream.Msg, what string, err error) {
	m.link.Rejects().Add(cluster.Reason(err))
	m.crawl.Logf(view.LevelWarn, "%s rejected: %v", what, err)
	msg.Term()
}

// addRefusals stores the refusals a report carries: facts about the site, whatever
// becomes of the report's hand-out.
func (m *Runtime) addRefusals(rs []store.Refusal) {
	if m.ctx.Err() != nil {
		return
	}
	for _, rf := range rs {
		m.crawl.Refused(rf)
	}
}

// settle ends the hand-out of t that node reported on (a result, or a deferral):
// with ok it returns holding the lock, and whether t was a revisit; without, the
// report was acknowledged (late) or refused (stopping), and the lock is not held.
// A deferred revisit keeps its mark (revisit false): the store queues the URL
// again, and it must be fetched then as the revisit it is. Ended here, the mark
// would bring the URL back as a first fetch, its revisit history started over.
func (m *Runtime) settle(msg jetstream.Msg, node string, t frontier.Task, result bool) (revisit, ok bool) {
	m.crawl.Lock()
	if m.ctx.Err() != nil {
		m.crawl.Unlock()
		msg.Nak() // stopping: the next master commits it
		return false, false
	}
	if md, err := msg.Metadata(); err == nil {
		m.book.readReport(md.Sequence.Stream)
	}
	if !m.book.Settle(node, t, result) {
		m.crawl.Unlock()
		msg.Ack() // late: each hand-out counts at most once, and only the current one
		return false, false
	}
	m.book.Committing(1) // in hand until committed
	if !result {
		m.crawl.RevisitDeferred(t.URL)
		return false, true
	}
	return m.crawl.RevisitEnded(t.URL), true
}

// committed acknowledges a report once the store committed what it wrote, and lets
// the crawl go on (idle check, dispatch). Its task, settled, counted as in hand
// until here: the lock is let go between the settle and the commit, and an idle
// check there saw no task anywhere while the store still held it in progress.
func (m *Runtime) committed(msg jetstream.Msg) {
	m.crawl.AfterCommit(func(err error) {
		if err != nil {
			msg.Nak() // not stored: redelivered (the store error stops the crawl)
			return
		}
		msg.Ack()
	})
	m.crawl.Lock()
	m.book.Committing(-1)
	m.crawl.CheckIdle()
	m.crawl.Unlock()
	m.book.Kick()
}
