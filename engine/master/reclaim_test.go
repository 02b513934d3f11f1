package master

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A hand-out lost between master and worker (a batch dropped on its way, a task
// the worker let go of without a report) must not hang the crawl: once the worker's
// heartbeats have said for a whole lease (and at least a batch's redelivery wait)
// that it holds no task, with no report of its coming in meanwhile, the master
// queues again what it counts handed to it from before, and counts it. A task handed out during that stretch (its batch may still
// be on its way) stays the worker's, a report resets the stretch, and so does a
// heartbeat of a worker holding something.
// w1Beats sends w1's heartbeat at now+at, holding nothing (idle) or not, and
// returns what the table takes back from w1 then.
func w1Beats(t *testing.T, tb *Table, now time.Time) func(at time.Duration, idle bool) []frontier.Task {
	return func(at time.Duration, idle bool) []frontier.Task {
		t.Helper()
		if !tb.Heartbeat(wire.Heartbeat{Node: "w1", Incarnation: "i"}, now.Add(at)) {
			t.Fatalf("w1's heartbeat at %v not known", at)
		}
		return tb.idleFor("w1", idle, 0, now.Add(at))
	}
}

func TestHandOutsNobodyHoldsAreQueuedAgainAfterALease(t *testing.T) {
	t.Parallel()
	tb, now := leaseTable("1", "2", "3")
	lost := tb.Dispatch(2)[0].Tasks // the batch of a.test/1 and /2 never reaches w1
	beat := w1Beats(t, tb, now)
	urls := func(ts []frontier.Task) (out []string) {
		for _, t := range ts {
			out = append(out, t.URL)
		}
		return out
	}
	d := max(tb.LeaseFor, wire.TaskAckWait) // the stretch: a lease, and a batch's redelivery wait
	if back := beat(time.Second, true); len(back) != 0 {
		t.Fatalf("the first heartbeat holding nothing took back %v; want nothing before %v", urls(back), d)
	}
	third := tb.Dispatch(3)[0].Tasks[0] // handed out during the stretch: its batch may be on its way
	if back := beat(time.Second+d/2, true); len(back) != 0 {
		t.Fatalf("took back %v %v into the stretch; want nothing before %v", urls(back), d/2, d)
	}
	at := time.Second + d
	back := beat(at, true)
	if len(back) != 2 || back[0].URL != lost[1].URL || back[1].URL != lost[0].URL {
		t.Fatalf("after %v of heartbeats holding nothing, took back %v; want a.test/2 and /1 (not /3, handed out since)", d, urls(back))
	}
	if p, o := tb.Counts(); p != 2 || o != 1 {
		t.Fatalf("counts %d waiting, %d out; want a.test/1 and /2 queued again, /3 still out (2, 1)", p, o)
	}
	// /3 is lost too. A report of w1's coming in starts the stretch again, and so
	// does a heartbeat of it holding something.
	beat(at+time.Second, true)
	if tb.Settle("w1", frontier.Task{URL: "http://www.z.test/1", Lease: 1}, true) {
		t.Fatal("a report of a URL never handed out counted")
	}
	at += 2 * time.Second
	beat(at, true)
	if back := beat(at+d-time.Second, true); len(back) != 0 {
		t.Fatalf("took back %v less than %v after a report of w1's", urls(back), d)
	}
	at += d
	beat(at, false)
	at += time.Second
	beat(at, true)
	if back := beat(at+d-time.Second, true); len(back) != 0 {
		t.Fatalf("took back %v less than %v after a heartbeat holding something", urls(back), d)
	}
	if back := beat(at+d, true); len(back) != 1 || back[0].URL != third.URL {
		t.Fatalf("took back %v; want a.test/3", urls(back))
	}
	if s := tb.Stats(); s.Reclaimed != 3 {
		t.Fatalf("stats count %d hand-outs reclaimed, want 3", s.Reclaimed)
	}
}

// Until the master has read the results stream as far as a worker's last report
// (the heartbeat says where it is), a report of a task the master counts handed out
// may still be on its way: holding nothing, the worker has its tasks taken back only
// a lease after the master caught up.
func TestUnreadReportsHoldTheReclaimBack(t *testing.T) {
	t.Parallel()
	tb, now := leaseTable("1")
	tb.Dispatch(10)
	beat := func(at time.Duration) []frontier.Task {
		tb.Heartbeat(wire.Heartbeat{Node: "w1", Incarnation: "i"}, now.Add(at))
		return tb.idleFor("w1", true, 9, now.Add(at))
	}
	d := max(tb.LeaseFor, wire.TaskAckWait)
	for _, at := range []time.Duration{time.Second, 2*time.Second + d} {
		if back := beat(at); len(back) != 0 {
			t.Fatalf("took back %d tasks at %v with the worker's last report (9) unread", len(back), at)
		}
	}
	tb.readReport(9)
	at := 3*time.Second + d
	if back := beat(at); len(back) != 0 {
		t.Fatalf("took back %d tasks as the master caught up; want a stretch of %v first", len(back), d)
	}
	if back := beat(at + d); len(back) != 1 {
		t.Fatalf("took back %d tasks %v after the master caught up; want 1", len(back), d)
	}
}

// A batch whose publish is still tried (a server that does not answer, up to half
// a minute) may reach the worker once it is stored: its heartbeats saying it holds
// nothing meanwhile do not make its tasks held by nobody. They are not taken back
// while the publish is under way, however long; the stretch starts once it
// resolved. Before, a lease of idle heartbeats took them back while the publish
// went on, and a batch stored at its last try was fetched, then dealt again.
func TestABatchBeingPublishedIsNotReclaimed(t *testing.T) {
	t.Parallel()
	tb, now := leaseTable("1", "2")
	b := tb.Dispatch(2)[0]
	tb.Publishing(b)
	beat := w1Beats(t, tb, now)
	d := max(tb.LeaseFor, wire.TaskAckWait)
	beat(time.Second, true)
	if back := beat(time.Second+2*d, true); len(back) != 0 {
		t.Fatalf("took back %d tasks of a batch whose publish is under way", len(back))
	}
	tb.Sent(b, 1) // stored at last: the worker may get it now
	at := 3 * d
	beat(at, true)
	if back := beat(at+d-time.Second, true); len(back) != 0 {
		t.Fatalf("took back %d tasks less than %v after their publish resolved", len(back), d)
	}
	if back := beat(at+d, true); len(back) != 2 {
		t.Fatalf("took back %d tasks a stretch after their publish resolved, the worker holding nothing; want both", len(back))
	}
}

// A batch whose publish ended without an answer (the connection closed) stays
// handed out, the worker may have it; one that never reached it is reclaimed as any
// hand-out held by nobody, a stretch of idle heartbeats after the publish ended.
func TestAnUnansweredBatchTheWorkerNeverGotIsReclaimed(t *testing.T) {
	t.Parallel()
	tb, now := leaseTable("1", "2")
	b := tb.Dispatch(2)[0]
	tb.Publishing(b)
	tb.Unanswered(b)
	if p, o := tb.Counts(); p != 0 || o != 2 {
		t.Fatalf("after the unanswered publish %d tasks wait and %d are out; want both out", p, o)
	}
	beat := w1Beats(t, tb, now)
	d := max(tb.LeaseFor, wire.TaskAckWait)
	beat(time.Second, true)
	if back := beat(time.Second+d, true); len(back) != 2 {
		t.Fatalf("took back %d tasks a stretch after the unanswered publish, the worker holding nothing; want both", len(back))
	}
}
