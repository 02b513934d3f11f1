package worker

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// Outbox is a worker's reports to its master: results and deferrals go out in order
// through one publisher into the master's results stream, acknowledged by the
// master's server, published again when an acknowledgement does not come. The
// refusals the worker acted on travel with the next report.
type Outbox struct {
	conn      *cluster.Conn
	sub       wire.Subjects
	node, inc string
	ctx       context.Context // ends with the worker: publishes stop waiting
	quit      <-chan struct{} // closed with the worker: nothing more goes out

	out       chan report
	flush     chan struct{}
	flushOnce sync.Once
	done      chan struct{}
	// unacked counts the reports taken that the master's server has not
	// acknowledged yet (what a leave that gives up did not deliver).
	unacked atomic.Int64
	// lastSeq is the results stream's sequence of the last report stored (LastReport).
	lastSeq atomic.Uint64
	// unsettled are their tasks by lease: a rejoin claims them (Unsettled).
	unsettledMu sync.Mutex
	unsettled   map[uint64]frontier.Task

	refusalsMu sync.Mutex
	refusals   []model.Refusal // refusals not sent yet
}

// NewOutbox is the outbox of worker node (incarnation inc) over conn. ctx and quit
// end with the worker; Run publishes.
func NewOutbox(ctx context.Context, quit <-chan struct{}, conn *cluster.Conn, sub wire.Subjects, node, inc string) *Outbox {
	return &Outbox{conn: conn, sub: sub, node: node, inc: inc, ctx: ctx, quit: quit,
		out: make(chan report, 1024), flush: make(chan struct{}), done: make(chan struct{}), unsettled: map[uint64]frontier.Task{}}
}

// report is what a worker sends the master about one task: its result, or its
// deferral.
type report struct {
	result   wire.Result
	deferral *wire.Deferral // set: the task was set aside, not fetched
}

// Result sends a task's result (its node and incarnation are filled in); a lane
// waits here when 1024 reports are waiting.
func (o *Outbox) Result(r wire.Result) {
	r.Node, r.Incarnation = o.node, o.inc
	o.post(report{result: r})
}

// Defer tells the master the worker set d.Task aside until a time (M3: a disabled
// host, robots.txt unreachable), counted under d.Kind (empty: none), behind the
// held host d.Behind if its site waits for one.
func (o *Outbox) Defer(d lanes.Deferred) {
	o.post(report{deferral: &wire.Deferral{Node: o.node, Incarnation: o.inc, Task: d.Task, Until: d.Until, Kind: d.Kind, Behind: d.Behind}})
}

// Refused keeps a refusal for the master's store: it travels with the next report.
func (o *Outbox) Refused(r model.Refusal) {
	o.refusalsMu.Lock()
	if len(o.refusals) < wire.MaxRefusals {
		o.refusals = append(o.refusals, r)
	}
	o.refusalsMu.Unlock()
}

func (o *Outbox) post(r report) {
	o.refusalsMu.Lock()
	refusals := o.refusals
	o.refusals = nil
	o.refusalsMu.Unlock()
	if r.deferral != nil {
		r.deferral.Refusals = refusals
	} else {
		r.result.Refusals = refusals
	}
	// Closed without a leave: the master gives the task to others. A report taken
	// counts as unacknowledged until the master's server acknowledges it.
	select {
	case <-o.quit:
		return
	default:
	}
	lease := r.task().Lease
	o.unacked.Add(1)
	o.unsettledMu.Lock()
	o.unsettled[lease] = r.task()
	o.unsettledMu.Unlock()
	select {
	case o.out <- r:
	case <-o.quit:
		o.settle(lease)
	}
}

func (r report) task() frontier.Task {
	if r.deferral != nil {
		return r.deferral.Task
	}
	return r.result.Task
}

// settle records that the report on the hand-out lease is acknowledged (or given up).
func (o *Outbox) settle(lease uint64) {
	o.unacked.Add(-1)
	o.unsettledMu.Lock()
	delete(o.unsettled, lease)
	o.unsettledMu.Unlock()
}

// stored records the results stream's sequence of a report the server stored.
func (o *Outbox) stored(ack *jetstream.PubAck) {
	for ack != nil {
		last := o.lastSeq.Load()
		if ack.Sequence <= last || o.lastSeq.CompareAndSwap(last, ack.Sequence) {
			return
		}
	}
}

// LastReport is the results stream's sequence of the last report the server stored
// (0: none yet): the master has read every report of the worker's once it has read
// the stream that far (wire.Heartbeat.LastReport).
func (o *Outbox) LastReport() uint64 { return o.lastSeq.Load() }

// Unsettled are the tasks whose reports the master's server has not acknowledged:
// still the worker's, as far as a restarted master knows. A report published just
// before the master died may wait ackWait before it goes again, longer than a
// restarted master waits for claims (a lease and its margin); claimed at the
// rejoin, its task is not queued again and fetched twice.
func (o *Outbox) Unsettled() []frontier.Task {
	o.unsettledMu.Lock()
	defer o.unsettledMu.Unlock()
	out := make([]frontier.Task, 0, len(o.unsettled))
	for _, t := range o.unsettled {
		out = append(out, t)
	}
	return out
}

// Flush makes Run publish what waits and return.
func (o *Outbox) Flush() { o.flushOnce.Do(func() { close(o.flush) }) }

// Done is closed once Run returned and every publish it made was acknowledged or
// given up.
func (o *Outbox) Done() <-chan struct{} { return o.done }

// Unacked is how many reports the master's server has not acknowledged.
func (o *Outbox) Unacked() int { return int(o.unacked.Load()) }

// Run publishes reports to the master's stream, in order, retrying while the master
// is away, until Flush (what waits is published first) or the worker quits.
func (o *Outbox) Run() {
	pending := make(chan pendingReport, 256) // published, acknowledgement not seen yet
	acked := make(chan struct{})
	go o.awaitAcks(pending, acked)
	defer func() { close(pending); <-acked; close(o.done) }()
	for {
		select {
		case r := <-o.out:
			o.publishAsync(r, pending)
		case <-o.flush:
			for {
				select {
				case r := <-o.out:
					o.publishAsync(r, pending)
				default:
					return
				}
			}
		case <-o.quit:
			return
		}
	}
}

// pendingReport is a report published without waiting, with what it takes to send
// it again if the server does not acknowledge it.
type pendingReport struct {
	ack     jetstream.PubAckFuture
	subject string
	data    []byte
	id      string
	lease   uint64
}

// publishAsync publishes a report without waiting for the server's acknowledgement
// (at most 256 outstanding: awaitAcks checks them in order); when even that fails it
// publishes synchronously, retrying.
func (o *Outbox) publishAsync(r report, pending chan<- pendingReport) {
	lease := r.task().Lease
	subject, data, id, ok := o.frame(r)
	if !ok {
		o.settle(lease) // unencodable: never sent (the master gives the task to others)
		return
	}
	msg := &nats.Msg{Subject: subject, Data: data}
	f, err := o.conn.JS.PublishMsgAsync(msg, jetstream.WithMsgID(id))
	if err != nil {
		o.publishSync(subject, data, id, lease)
		return
	}
	select {
	case pending <- pendingReport{f, subject, data, id, lease}:
	case <-o.quit:
	}
}

// awaitAcks waits for each asynchronous publish; one the server did not take (the
// master is away, restarting) is published again synchronously, retrying until it is.
func (o *Outbox) awaitAcks(pending <-chan pendingReport, done chan<- struct{}) {
	defer close(done)
	for p := range pending {
		// An acknowledgement lost with a connection (the master restarting) never
		// comes: after ackWait the report is sent again; the message ID keeps
		// JetStream from storing it twice.
		t := time.NewTimer(ackWait)
		select {
		case ack := <-p.ack.Ok():
			o.stored(ack)
			o.settle(p.lease)
		case <-p.ack.Err():
			o.publishSync(p.subject, p.data, p.id, p.lease)
		case <-t.C:
			o.publishSync(p.subject, p.data, p.id, p.lease)
		case <-o.quit:
			t.Stop()
			return
		}
		t.Stop()
	}
}

// ackWait bounds the wait for one asynchronous publish's acknowledgement.
const ackWait = 10 * time.Second

// frame encodes a report with its subject and message ID; a result too big for the
// transport goes as a body too large.
func (o *Outbox) frame(rep report) (subject string, data []byte, id string, ok bool) {
	if d := rep.deferral; d != nil {
		data, err := cluster.Encode(d)
		if err != nil {
			return "", nil, "", false
		}
		return o.sub.Deferrals(o.node), data, fmt.Sprintf("%s.%s.%d.defer", d.Node, d.Incarnation, d.Task.Lease), true
	}
	r := rep.result
	data, err := wire.EncodeResult(&r)
	if err != nil {
		return "", nil, "", false
	}
	if max := o.conn.NC.MaxPayload(); max > 0 && int64(len(data)) > max-1024 && r.Res != nil && r.Res.Render != nil {
		// A render's captures give way before the page itself.
		FitRender(&r, 0)
		if data, err = wire.EncodeResult(&r); err != nil {
			return "", nil, "", false
		}
	}
	if max := o.conn.NC.MaxPayload(); max > 0 && int64(len(data)) > max-1024 {
		r.Res, r.Kind = nil, fetch.KindTooLarge
		if data, err = wire.EncodeResult(&r); err != nil {
			return "", nil, "", false
		}
	}
	return o.sub.Results(o.node), data, fmt.Sprintf("%s.%s.%d.%s", r.Node, r.Incarnation, r.Task.Lease, r.Kind), true
}

// publishSync publishes a framed report, retrying until the master's server takes
// it (the message ID lets JetStream drop a retry of one it already has) or the worker
// quits.
func (o *Outbox) publishSync(subject string, data []byte, id string, lease uint64) {
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, 2*time.Second) {
		ctx, cancel := context.WithTimeout(o.ctx, 5*time.Second)
		ack, err := o.conn.JS.Publish(ctx, subject, data, jetstream.WithMsgID(id))
		cancel()
		if err == nil {
			o.stored(ack)
			o.settle(lease)
			return
		}
		select {
		case <-o.quit:
			return
		case <-time.After(backoff):
		}
	}
}
