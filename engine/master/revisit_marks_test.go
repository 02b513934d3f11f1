package master

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// marksCrawl is the tests' crawl with a front's revisit marks, moved as the
// master's crawl moves them (crawlPort), and the revisit flag of each commit.
type marksCrawl struct {
	*crawlStub
	marks    *front.Marks
	revisits []bool
}

func (c *marksCrawl) HandedOut(t frontier.Task)           { c.marks.Taken(t.URL) }
func (c *marksCrawl) RevisitEnded(url string) bool        { return c.marks.Ended(url) }
func (c *marksCrawl) RevisitDeferred(url string)          { c.marks.Deferred(url) }
func (c *marksCrawl) Commit(_ *wire.Result, revisit bool) { c.revisits = append(c.revisits, revisit) }

// A revisit a worker deferred (its host disabled, a long Retry-After) stays a
// queued revisit, neither waiting nor in hand, and when the store queues the URL
// again it is handed out and committed as a revisit: ended at the deferral, it was
// fetched later as a first fetch, its revisit history started over.
func TestARevisitDeferredByItsWorkerIsFetchedLaterAsARevisit(t *testing.T) {
	t.Parallel()
	c := &marksCrawl{crawlStub: &crawlStub{now: time.Unix(1700000000, 0)}, marks: &front.Marks{}}
	r := newBatchRigOver(t, c.crawlStub, c)
	r.join(t, "w1", "a")
	task := frontier.Task{URL: "http://www.a.test/1", Host: "www.a.test"}
	place := func() { // the front queues the revisit at the master (Requeue, then a deferral's return)
		r.c.Lock()
		c.marks.Placed(task.URL)
		r.m.book.Add(task)
		r.c.Unlock()
	}
	handOut := func() frontier.Task {
		t.Helper()
		place()
		r.dispatch()
		b := r.stored(t, "w1")
		if len(b) == 0 || len(b[len(b)-1].Tasks) != 1 {
			t.Fatalf("w1's batches: %v; want the revisit last", leases(b))
		}
		return b[len(b)-1].Tasks[0]
	}
	report := func(subject string, data []byte) {
		t.Helper()
		acked := make(chan string, 1)
		r.m.onResult(&reportMsg{subject: subject, data: data, acked: acked})
		if got := <-acked; got != "ack" {
			t.Fatalf("the report was answered %s; want ack", got)
		}
	}
	state := func() (queued bool, pending int) {
		r.c.Lock()
		defer r.c.Unlock()
		return c.marks.Queued(task.URL), c.marks.Pending()
	}

	r.c.Lock()
	c.marks.Mark(task.URL)
	r.c.Unlock()
	out := handOut()
	data, err := cluster.Encode(&wire.Deferral{Node: "w1", Incarnation: "a", Task: out, Until: r.c.now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	report(wire.Subjects("t").Deferrals("w1"), data)
	if queued, pending := state(); !queued || pending != 0 {
		t.Fatalf("after the deferral: queued as a revisit %v, %d waiting or in hand; want true and 0", queued, pending)
	}

	out = handOut() // the store queued it again
	if queued, pending := state(); !queued || pending != 1 {
		t.Fatalf("handed out again: queued as a revisit %v, %d waiting or in hand; want true and 1", queued, pending)
	}
	data, err = wire.EncodeResult(&wire.Result{Node: "w1", Incarnation: "a", Task: out, Kind: "timeout", At: r.c.now})
	if err != nil {
		t.Fatal(err)
	}
	report(wire.Subjects("t").Results("w1"), data)
	if len(c.revisits) != 1 || !c.revisits[0] {
		t.Errorf("commits' revisit flags %v; want one, a revisit", c.revisits)
	}
	if queued, pending := state(); queued || pending != 0 {
		t.Errorf("after its result: queued as a revisit %v, %d waiting or in hand; want false and 0", queued, pending)
	}
}
