package engine

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/store"
)

// A worker's reports to the master (M4): results and deferrals go out in order
// through one publisher, acknowledged by the master's server, published again when
// an acknowledgement does not come.

// publish sends results to the master's stream, in order, retrying while the master
// is away; a lane waits when 1024 results are waiting.
func (w *Worker) publish() {
	defer w.bg.Done()
	pending := make(chan pendingResult, 256) // published, acknowledgement not seen yet
	acked := make(chan struct{})
	go w.awaitAcks(pending, acked)
	defer func() { close(pending); <-acked; close(w.pubDone) }()
	for {
		select {
		case r := <-w.out:
			w.publishAsync(r, pending)
		case <-w.flush:
			for {
				select {
				case r := <-w.out:
					w.publishAsync(r, pending)
				default:
					return
				}
			}
		case <-w.quit:
			return
		}
	}
}

// report is what a worker sends the master about one task: its result, or its
// deferral.
type report struct {
	result   wire.Result
	deferral *wire.Deferral // set: the task was set aside, not fetched
}

// pendingResult is a report published without waiting, with what it takes to send
// it again if the server does not acknowledge it.
type pendingResult struct {
	ack     jetstream.PubAckFuture
	subject string
	data    []byte
	id      string
}

// publishAsync publishes a result without waiting for the server's acknowledgement
// (at most 256 outstanding: awaitAcks checks them in order); when even that fails it
// publishes synchronously, retrying.
func (w *Worker) publishAsync(r report, pending chan<- pendingResult) {
	subject, data, id, ok := w.frame(r)
	if !ok {
		return
	}
	msg := &nats.Msg{Subject: subject, Data: data}
	f, err := w.conn.JS.PublishMsgAsync(msg, jetstream.WithMsgID(id))
	if err != nil {
		w.publishSync(subject, data, id)
		return
	}
	select {
	case pending <- pendingResult{f, subject, data, id}:
	case <-w.quit:
	}
}

// awaitAcks waits for each asynchronous publish; one the server did not take (the
// master is away, restarting) is published again synchronously, retrying until it is.
func (w *Worker) awaitAcks(pending <-chan pendingResult, done chan<- struct{}) {
	defer close(done)
	for p := range pending {
		// An acknowledgement lost with a connection (the master restarting) never
		// comes: after ackWait the result is sent again; the message ID keeps
		// JetStream from storing it twice.
		t := time.NewTimer(ackWait)
		select {
		case <-p.ack.Ok():
			w.unacked.Add(-1)
		case <-p.ack.Err():
			w.publishSync(p.subject, p.data, p.id)
		case <-t.C:
			w.publishSync(p.subject, p.data, p.id)
		case <-w.quit:
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
func (w *Worker) frame(rep report) (subject string, data []byte, id string, ok bool) {
	if d := rep.deferral; d != nil {
		data, err := cluster.Encode(d)
		if err != nil {
			return "", nil, "", false
		}
		return w.sub.Deferrals(w.o.Node), data, fmt.Sprintf("%s.%s.%d.defer", d.Node, d.Incarnation, d.Task.Lease), true
	}
	r := rep.result
	data, err := wire.EncodeResult(&r)
	if err != nil {
		return "", nil, "", false
	}
	if max := w.nc.MaxPayload(); max > 0 && int64(len(data)) > max-1024 {
		r.Res, r.Kind = nil, fetch.KindTooLarge
		if data, err = wire.EncodeResult(&r); err != nil {
			return "", nil, "", false
		}
	}
	return w.sub.Results(w.o.Node), data, fmt.Sprintf("%s.%s.%d.%s", r.Node, r.Incarnation, r.Task.Lease, r.Kind), true
}

// publishSync publishes a framed report, retrying until the master's server takes
// it (the message ID lets JetStream drop a retry of one it already has) or the worker
// closes.
func (w *Worker) publishSync(subject string, data []byte, id string) {
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, 2*time.Second) {
		ctx, cancel := context.WithTimeout(w.ctx, 5*time.Second)
		_, err := w.conn.JS.Publish(ctx, subject, data, jetstream.WithMsgID(id))
		cancel()
		if err == nil {
			w.unacked.Add(-1)
			return
		}
		select {
		case <-w.quit:
			return
		case <-time.After(backoff):
		}
	}
}

// remoteFront is the frontier side as a worker sees it: the master, over NATS.
type remoteFront struct{ w *Worker }

func (f *remoteFront) prepare(*Outcome)               {} // the master set Refetch and validators
func (f *remoteFront) begin(frontier.Task, int)       {} // the master marked it in progress when it handed it out
func (f *remoteFront) abandon(t frontier.Task, _ int) {} // stopping: the master requeues what this worker held
func (f *remoteFront) deliver(o Outcome) {
	if o.Res != nil {
		f.w.e.c.response(o.Res.Status) // the worker's own rate, for its heartbeat
		f.w.e.c.bytesFetched.Add(int64(len(o.Res.Body)))
		res := *o.Res
		if res.Parsed != nil && res.Status/100 == 2 {
			// The signature from the parse that found the links (one tokenizer
			// pass): the master stores it and does not parse the body again.
			sig, _, ok := res.Parsed.Sign(res.Body, res.Header.Get("Content-Type"))
			res.Signed = &fetch.Signed{Sig: sig, OK: ok}
		}
		res.Parsed = nil
		res.Header = make(http.Header, len(recordHeaders))
		for _, k := range recordHeaders {
			if v := o.Res.Header.Values(k); len(v) > 0 {
				res.Header[k] = v
			}
		}
		if v := o.Res.Header.Get("Date"); v != "" && o.Res.DiscoveredKind != "" {
			res.Header.Set("Date", v) // a sitemap's dates are judged against it (readDocument)
		}
		o.Res = &res
	}
	f.send(wire.Result{Node: f.w.o.Node, Incarnation: f.w.inc, Task: o.Task, Lane: o.Lane, Egress: o.Egress,
		Kind: o.Kind, Res: o.Res, Hops: o.Hops, At: o.At})
}

func (f *remoteFront) deferURLs(list []deferredTask) {
	for _, d := range list {
		f.post(report{deferral: &wire.Deferral{Node: f.w.o.Node, Incarnation: f.w.inc, Task: d.task, Until: d.until}})
	}
}

// refused keeps a refusal for the master's store: it travels with the
// next result this worker sends.
func (f *remoteFront) refused(r store.Refusal) {
	f.w.refusalsMu.Lock()
	if len(f.w.refusals) < wire.MaxRefusals {
		f.w.refusals = append(f.w.refusals, r)
	}
	f.w.refusalsMu.Unlock()
}

func (f *remoteFront) send(r wire.Result) { f.post(report{result: r}) }

// post hands a report to the publisher, with the refusals kept since the last one.
func (f *remoteFront) post(r report) {
	f.w.refusalsMu.Lock()
	refusals := f.w.refusals
	f.w.refusals = nil
	f.w.refusalsMu.Unlock()
	if r.deferral != nil {
		r.deferral.Refusals = refusals
	} else {
		r.result.Refusals = refusals
	}
	// Closed without a leave: the master gives the task to others. A result taken
	// counts as unacknowledged until the master's server acknowledges it.
	select {
	case <-f.w.quit:
		return
	default:
	}
	f.w.unacked.Add(1)
	select {
	case f.w.out <- r:
	case <-f.w.quit:
		f.w.unacked.Add(-1)
	}
}
