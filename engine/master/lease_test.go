package master

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

func task(url, host string) frontier.Task { return frontier.Task{URL: url, Host: host} }

// leaseTable is a table with 15 s leases, a worker w1 heard at now and the URLs of
// www.a.test with the given paths queued; it returns the table and now.
func leaseTable(paths ...string) (*Table, time.Time) {
	tb := New(&keepAll{}, nil, 100)
	tb.LeaseFor = 15 * time.Second
	now := time.Unix(1700000000, 0)
	tb.addNode("w1").heard = now
	for _, p := range paths {
		tb.Add(task("http://www.a.test/"+p, "www.a.test"))
	}
	return tb, now
}

// A host that changes hands keeps its gap: the batch that gives it to the next
// worker says when the last request to it ended, the last result of the worker that
// held it or, for a worker declared dead, the end of its lease (it may have started
// a request until then). Before, the new holder's gate knew nothing of the host and
// sent its first request at once ("three hand-offs left gaps under 1.5 s").
func TestHandOffCarriesTheHostsLastRequest(t *testing.T) {
	t.Parallel()
	tb, now := leaseTable("1", "2", "3")
	b := tb.Dispatch(1)
	if len(b) != 1 || b[0].Node != "w1" || len(b[0].LastRequest) != 0 {
		t.Fatalf("first batch %+v: want w1's, with no last request known", b)
	}
	ended := now.Add(2 * time.Second)
	if !tb.Settle("w1", b[0].Tasks[0], true) {
		t.Fatal("w1's result was not taken")
	}
	tb.Ended(b[0].Tasks[0], ended)
	b = tb.Dispatch(1)
	if at := b[0].LastRequest["www.a.test"]; !at.Equal(ended) {
		t.Fatalf("the next batch says the host's last request ended at %v, want %v", at, ended)
	}
	// w1 falls silent right after a heartbeat; w2 gets the site once w1 is buried.
	tb.nodes["w1"].heard = now.Add(3 * time.Second)
	tb.addNode("w2").heard = now.Add(time.Hour)
	if dead := tb.BuryDead(now.Add(time.Hour), time.Minute); len(dead) != 1 {
		t.Fatalf("buried %v, want [w1]", dead)
	}
	b = tb.Dispatch(10)
	want := now.Add(3 * time.Second).Add(tb.LeaseFor)
	if len(b) != 1 || b[0].Node != "w2" || !b[0].LastRequest["www.a.test"].Equal(want) {
		t.Fatalf("w2's batch %+v: want the host's last request at the end of w1's lease, %v", b, want)
	}
}

// A restarted master finds what its last life handed out in progress (Recover). It
// deals none of those units' tasks until their holder claims them at its rejoin:
// the claim is taken back, the holder keeps the unit; a result of a URL in limbo
// counts once; what nobody claimed goes back to the queue when the grace period
// ends, and a claim after that is refused (the URL is queued or handed out again).
func TestRestartedMasterTakesBackWhatWorkersHold(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1000)
	tb.LeaseFor = 15 * time.Second
	now := time.Unix(1700000000, 0)
	held := []frontier.Task{task("http://www.a.test/1", "www.a.test"), task("http://www.a.test/2", "www.a.test"),
		task("http://www.b.test/1", "www.b.test"), task("http://www.c.test/1", "www.c.test")}
	tb.Recover(held)
	for _, h := range held { // the queue pages them in from the store, with one more of a.test
		tb.Add(h)
	}
	tb.Add(task("http://www.a.test/3", "www.a.test"))
	if p, o := tb.Counts(); p != 1 || o != 4 {
		t.Fatalf("counts %d waiting, %d out; want 1 (a.test/3), 4 (in limbo)", p, o)
	}
	// w1 rejoins first, claiming nothing: a.test is reserved for its holder.
	j := tb.Join(&wire.Join{Node: "w1", Incarnation: "i1"}, now, 0)
	if len(j.Kept) != 0 {
		t.Fatalf("w1 claimed nothing and kept %v", j.Kept)
	}
	if b := tb.Dispatch(10); len(b) != 0 {
		t.Fatalf("dispatched %+v while a.test waits for its holder's claim", b)
	}
	// w2 rejoins holding a.test/1 (lease 7), a.test/2 (lease 8) and a URL it
	// fetched already (no longer in progress): it keeps the first two and a.test.
	j = tb.Join(&wire.Join{Node: "w2", Incarnation: "i2", Holding: []frontier.Task{
		{URL: "http://www.a.test/1", Host: "www.a.test", Lease: 7},
		{URL: "http://www.a.test/2", Host: "www.a.test", Lease: 8},
		{URL: "http://www.z.test/1", Host: "www.z.test", Lease: 9}}}, now, 0)
	if len(j.Kept) != 2 || j.Kept[0] != 7 || j.Kept[1] != 8 {
		t.Fatalf("w2 kept %v, want [7 8]", j.Kept)
	}
	if u := tb.units["a.test"]; u.owner != "w2" || u.out != 2 {
		t.Fatalf("a.test: owner %q, %d out; want w2's with its 2 claimed tasks", u.owner, u.out)
	}
	if b := tb.Dispatch(10); len(b) != 1 || b[0].Node != "w2" || len(b[0].Tasks) != 1 || b[0].Tasks[0].URL != "http://www.a.test/3" {
		t.Fatalf("dispatch %+v: want a.test/3 to w2, b.test and c.test held back", b)
	}
	if !tb.Settle("w2", frontier.Task{URL: "http://www.a.test/1", Lease: 7}, true) {
		t.Fatal("w2's result for its claimed a.test/1 was refused")
	}
	// b.test/1's result arrives from a worker that has not rejoined yet.
	if !tb.Settle("w3", frontier.Task{URL: "http://www.b.test/1", Lease: 5}, true) {
		t.Fatal("the result of a URL in limbo was refused")
	}
	if tb.Settle("w3", frontier.Task{URL: "http://www.b.test/1", Lease: 5}, true) {
		t.Fatal("the same result counted twice")
	}
	if n := tb.EndGrace(); n != 1 {
		t.Fatalf("grace over: %d URLs queued again, want 1 (c.test/1)", n)
	}
	if p, o := tb.Counts(); p != 1 || o != 2 {
		t.Fatalf("counts %d waiting, %d out; want 1 (c.test/1), 2 (a.test/2, a.test/3)", p, o)
	}
	late := tb.Join(&wire.Join{Node: "w4", Incarnation: "i4", Holding: []frontier.Task{{URL: "http://www.c.test/1", Host: "www.c.test", Lease: 3}}}, now, 0)
	if len(late.Kept) != 1 {
		// c.test/1 waits in its unit's queue, c.test held by nobody with tasks out: taken back.
		t.Fatalf("a claim of a queued URL of an idle unit was refused: %v", late.Kept)
	}
	if p, _ := tb.Counts(); p != 0 {
		t.Fatalf("c.test/1 still queued after w4 took it back")
	}
}

// A worker declared dead while it was only slow had fetched its task and sent the
// result: the master, which had put the task back in the queue, takes that result
// as late. The worker, rejoining before its server's acknowledgement reached it,
// still claims the task among its unacknowledged reports. The claim is refused: its
// report came already and will not come again, so a task taken back on it would be
// counted handed out for ever with nobody to report it (the crawl stuck DRAINING
// with one URL "in progress"). The task stays queued and is dealt again.
func TestRejoinClaimOfAReportTakenLateIsRefused(t *testing.T) {
	t.Parallel()
	tb, now := leaseTable("1")
	b := tb.Dispatch(10)
	if len(b) != 1 || len(b[0].Tasks) != 1 {
		t.Fatalf("dispatch %+v: want a.test/1 to w1", b)
	}
	handed := b[0].Tasks[0]
	if dead := tb.BuryDead(now.Add(time.Hour), time.Minute); len(dead) != 1 {
		t.Fatalf("buried %v, want [w1]", dead)
	}
	if tb.Settle("w1", handed, true) {
		t.Fatal("the dead worker's result counted, its task back in the queue")
	}
	j := tb.Join(&wire.Join{Node: "w1", Incarnation: "i", Holding: []frontier.Task{handed}}, now.Add(time.Hour), 0)
	if len(j.Kept) != 0 {
		t.Fatalf("the claim of a task whose report came late was taken back (kept %v): nobody will report it again", j.Kept)
	}
	if p, o := tb.Counts(); p != 1 || o != 0 {
		t.Fatalf("counts %d waiting, %d out; want a.test/1 waiting to be dealt again (1, 0)", p, o)
	}
	if b := tb.Dispatch(10); len(b) != 1 || len(b[0].Tasks) != 1 || b[0].Tasks[0].Lease == handed.Lease {
		t.Fatalf("dispatch after the rejoin %+v: want a.test/1 dealt again under a new lease", b)
	}
}

// A restarted master whose every worker of the last life rejoined queues again, at
// the grace period's end, the URLs none of them claimed. None of those workers asks
// their hosts for them after its rejoin (it drops unfetched what the master did not
// take back), so the batch that deals one carries the host's last request at the
// last rejoin, not at the end of a lease counted from the restart: before, the
// worker's gate held each such host for the whole lease (a minute by default), its
// lanes idle and the crawl DRAINING with the URLs counted in its hand. While a
// worker of the last life has not rejoined, it may still ask until its lease ran
// out, and the batch says so.
func TestUnclaimedURLsAfterEveryRejoinWaitNoLease(t *testing.T) {
	t.Parallel()
	restart := time.Unix(1700000000, 0)
	rejoin := restart.Add(2 * time.Second)
	for _, c := range []struct {
		name    string
		awaited []string
		want    time.Time
	}{
		{"every worker rejoined", []string{"w1"}, rejoin},
		{"w2 never rejoined", []string{"w1", "w2"}, restart.Add(time.Hour)},
	} {
		tb := New(&keepAll{}, nil, 1000)
		tb.LeaseFor = time.Hour
		tb.Restarted(restart)
		held := task("http://www.a.test/1", "www.a.test")
		tb.Recover([]frontier.Task{held})
		tb.Add(held) // paged in from the store
		tb.Await(c.awaited)
		if j := tb.Join(&wire.Join{Node: "w1", Incarnation: "i1"}, rejoin, 0); len(j.Kept) != 0 {
			t.Fatalf("%s: w1 claimed nothing and kept %v", c.name, j.Kept)
		}
		if n := tb.EndGrace(); n != 1 {
			t.Fatalf("%s: grace over: %d URLs queued again, want 1 (a.test/1)", c.name, n)
		}
		b := tb.Dispatch(10)
		if len(b) != 1 || b[0].Node != "w1" || len(b[0].Tasks) != 1 {
			t.Fatalf("%s: dispatch %+v: want a.test/1 to w1", c.name, b)
		}
		if at := b[0].LastRequest["www.a.test"]; !at.Equal(c.want) {
			t.Errorf("%s: the batch says www.a.test's last request ended at %v (%v after the restart), want %v",
				c.name, at, at.Sub(restart), c.want.Sub(restart))
		}
	}
}
