package master

import (
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// deferCrawl is the crawl around a Runtime with the store's deferred URLs: a URL
// deferred waits until its time, one undeferred is due at once. beforeDefer, when
// set, runs once as a deferral's write begins: the master has let its lock go and
// the store does not hold the deferral yet.
type deferCrawl struct {
	*crawlStub
	mu          sync.Mutex
	due         map[string]time.Time
	beforeDefer func()
}

func (c *deferCrawl) Defer(url string, until time.Time, _, _ string) {
	if f := c.beforeDefer; f != nil {
		c.beforeDefer = nil
		f()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.due[url] = until
}

func (c *deferCrawl) Undefer(urls []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range urls {
		c.due[u] = c.now
	}
}

// dueIn is how long the store holds url back from now.
func (c *deferCrawl) dueIn(url string) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.due[url].Sub(c.now)
}

// answerControls has worker name answer the master's control requests, as a live
// worker does (the operator's disable and enable of a host reach it).
func (r *batchRig) answerControls(t *testing.T, name string) {
	t.Helper()
	sub, err := r.conn.NC.Subscribe(wire.Subjects("t").Control(name), func(msg *nats.Msg) {
		if data, err := cluster.Encode(&wire.ControlReply{}); err == nil {
			msg.Respond(data)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })
	if err := r.conn.NC.Flush(); err != nil {
		t.Fatal(err)
	}
}

// newDeferRig is newBatchRig over a crawl that keeps the deferred URLs, with
// worker w1 answering the master's controls.
func newDeferRig(t *testing.T) (*batchRig, *deferCrawl) {
	t.Helper()
	c := &deferCrawl{crawlStub: &crawlStub{now: time.Unix(1700000000, 0)}, due: map[string]time.Time{}}
	r := newBatchRigOver(t, c.crawlStub, c)
	r.answerControls(t, "w1")
	return r, c
}

// setHost has the operator disable (or enable) host, failing t if a worker did not
// take it.
func (r *batchRig) setHost(t *testing.T, host string, disabled bool) {
	t.Helper()
	if err := r.m.SetHostDisabled(host, disabled); err != nil {
		t.Errorf("disable %s (%v): %v", host, disabled, err)
	}
}

// reportDeferred has the master read w1's report that it deferred task for its host's
// disable (2 hours), and waits for its acknowledgement.
func (r *batchRig) reportDeferred(t *testing.T, task frontier.Task) {
	t.Helper()
	data, err := cluster.Encode(&wire.Deferral{Node: "w1", Incarnation: "a", Task: task, Until: r.c.now.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	acked := make(chan string, 1)
	r.m.onResult(&reportMsg{subject: wire.Subjects("t").Deferrals("w1"), data: data, acked: acked})
	if got := <-acked; got != "ack" {
		t.Fatalf("the deferral was answered %s; want ack", got)
	}
}

// A worker that deferred a URL for its host's disable reports it through its
// outbox; the operator may enable the host again before that report is read, or
// while the master stores it (its lock let go, the write not in the store yet).
// Either way the URL comes back at once, as the URLs reported before the enable
// do. Before, it stayed deferred for the disable's 2 hours: the enable had
// brought back only the URLs recorded deferred by then (a crawl under load saw
// it: TestAHostEnabledOnTheMasterComesBackAtOnce in the engine).
func TestADeferralReportedAroundItsHostsEnableComesBackAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		during bool // enabled while the master stores the report, not before it reads it
	}{{"read after the enable", false}, {"enabled while the master stores it", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, c := newDeferRig(t)
			task := r.handOutOne(t).Tasks[0]
			r.setHost(t, task.Host, true) // w1 defers the task: its report is on its way
			enable := func() { r.setHost(t, task.Host, false) }
			if tc.during {
				c.beforeDefer = enable
			} else {
				enable()
			}
			r.reportDeferred(t, task)
			if c.beforeDefer != nil {
				t.Fatal("the deferral never reached the store")
			}
			if d := c.dueIn(task.URL); d > 0 {
				t.Fatalf("%s, enabled, is due again in %v; want at once", task.URL, d)
			}
		})
	}
}

// A URL handed out after its host's enable and deferred stays deferred: the
// enable ended nothing of it (a new disable, a Retry-After).
func TestADeferralOfAHandOutAfterTheEnableStays(t *testing.T) {
	t.Parallel()
	r, c := newDeferRig(t)
	r.join(t, "w1", "a")
	r.setHost(t, "www.a.test", true)
	r.setHost(t, "www.a.test", false)
	r.queueOne()
	r.dispatch()
	b := r.stored(t, "w1")
	if len(b) != 1 || len(b[0].Tasks) != 1 {
		t.Fatalf("w1's batches hold leases %v; want one of one task", leases(b))
	}
	task := b[0].Tasks[0]
	r.reportDeferred(t, task)
	if d := c.dueIn(task.URL); d != 2*time.Hour {
		t.Fatalf("%s, handed out after the enable and deferred for 2h, is due again in %v", task.URL, d)
	}
}

// TestTheMasterKeepsOnlyTheDeferralsStillWaiting: a URL a worker deferred for its
// host's disable is filed for the operator's enable to bring back at once. One
// whose disable ran out by itself (rotation.disable_for), no enable made, came
// back already: it is forgotten as more deferrals come in, so a long crawl's
// master keeps the deferrals still waiting, not every one it was told of.
func TestTheMasterKeepsOnlyTheDeferralsStillWaiting(t *testing.T) {
	t.Parallel()
	r, _ := newDeferRig(t)
	first := r.handOutOne(t).Tasks[0]
	r.reportDeferred(t, first)           // for the disable's 2 hours
	r.c.now = r.c.now.Add(3 * time.Hour) // the disable ran out: the URL is due by itself
	r.c.Lock()
	r.m.book.Add(frontier.Task{URL: "http://www.a.test/2", Host: "www.a.test"})
	r.c.Unlock()
	r.dispatch()
	var second frontier.Task
	for _, b := range r.stored(t, "w1") {
		for _, task := range b.Tasks {
			if task.URL == "http://www.a.test/2" {
				second = task
			}
		}
	}
	if second.URL == "" {
		t.Fatal("the second URL was not handed out")
	}
	r.reportDeferred(t, second) // the host disabled again
	r.c.Lock()
	n := r.m.deferred.Len()
	r.c.Unlock()
	if n != 1 {
		t.Fatalf("the master keeps %d URLs for www.a.test's enable, want 1: the one deferred 3 hours ago for 2 came back by itself", n)
	}
}
