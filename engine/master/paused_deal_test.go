package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// held counts the sites each worker holds, as the Nodes pane shows them.
func held(tb *Table) map[string]int {
	holds := map[string]int{}
	for name, n := range tb.Stats().Nodes {
		holds[name] = n.Hosts
	}
	return holds
}

// dealt counts the tasks a dispatch deals each worker.
func dealt(tb *Table) map[string]int {
	out := map[string]int{}
	for _, b := range tb.Dispatch(10) {
		out[b.Node] += len(b.Tasks)
	}
	return out
}

// A worker the operator paused rejoins a restarted master (which holds no pause of
// it) saying so in its join: it is paused from the join on, dealt no site while
// another worker is active, and the sites it claims go to the active workers once
// it handed back what its lanes had not taken; the join's line says they move from
// it. A worker of an older version omits the pause and joins active (its first
// heartbeat pauses it). A rejoin without the pause is active until that heartbeat,
// and the join deals the paused worker its share: work that then sits in its
// paused lanes.
func TestAPausedWorkerRejoiningARestartedMasterComesBackPaused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		paused  bool           // what w1's join says
		holds   map[string]int // the sites each worker holds after w1's rejoin
		release map[string]int // the sites the rejoin asks each worker to release
		dealt   map[string]int // the tasks a dispatch then deals each
		said    string         // the join line's moves
	}{
		{"its join says it is paused", true, map[string]int{"w1": 0, "w2": 6}, map[string]int{"w1": 3}, map[string]int{"w2": 3},
			"3 sites or keyword shards move from it to w2"},
		{"an older worker's join omits it", false, map[string]int{"w1": 3, "w2": 3}, map[string]int{}, map[string]int{"w1": 3, "w2": 3},
			"no site or keyword shard moves"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := New(&keepAll{}, nil, 1000) // the restarted master
			now := time.Now()
			// w1 held a task of each of a, b and c when the master went down;
			// each of the six sites has one more task waiting.
			var claims []frontier.Task
			for i, s := range []string{"a", "b", "c"} {
				h := "www." + s + ".test"
				claims = append(claims, frontier.Task{URL: "http://" + h + "/held", Host: h, Lease: uint64(10 + i)})
			}
			tb.Recover(claims)
			for _, c := range claims {
				c.Lease = 0
				tb.Add(c) // the queue pages them in from the store
			}
			queue(tb, []string{"a", "b", "c", "d", "e", "f"}, 1)
			join(tb, "w2")
			r := tb.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4, Holding: claims, Paused: tc.paused}, now, 0)
			if len(r.Kept) != 3 {
				t.Fatalf("w1's rejoin kept %v of its 3 claims", r.Kept)
			}
			if r.Paused != tc.paused {
				t.Errorf("w1's join says paused %v; want %v", r.Paused, tc.paused)
			}
			if got := held(tb); fmt.Sprint(got) != fmt.Sprint(tc.holds) {
				t.Errorf("after w1's rejoin the workers hold %v sites; want %v", got, tc.holds)
			}
			release := map[string]int{}
			for name, units := range r.Release {
				release[name] = len(units)
			}
			if fmt.Sprint(release) != fmt.Sprint(tc.release) {
				t.Errorf("w1's rejoin asked the workers to release %v sites; want %v", release, tc.release)
			}
			if got := dealt(tb); fmt.Sprint(got) != fmt.Sprint(tc.dealt) {
				t.Errorf("after w1's rejoin a dispatch dealt %v tasks; want %v", got, tc.dealt)
			}
			if got := r.Moves.Said("w1"); got != tc.said {
				t.Errorf("w1's join line says %q; want %q", got, tc.said)
			}
		})
	}
	// The master's own record wins: a worker resumed on this master whose join
	// still says paused (the resume had not reached it) joins active.
	tb := New(&keepAll{}, nil, 1)
	join(tb, "w2")
	tb.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4, Paused: true}, time.Now(), 0)
	tb.SetPaused("w1", false)
	tb.BuryDead(time.Now().Add(time.Hour), time.Minute)
	join(tb, "w2")
	if r := tb.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4, Paused: true}, time.Now(), 0); r.Paused {
		t.Errorf("w1, resumed on this master, rejoined paused on its join's word")
	}
}

// A rebalance plan (r) made before the operator paused one of its receivers, and
// applied after, moves nothing onto the paused worker (its lanes would hold the
// sites paused): those moves are left out and counted by worker, the others made.
// Made all the same, those moves would leave the sites in paused lanes.
func TestARebalanceAppliedAfterItsReceiverPausedLeavesItOut(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	join(tb, "w1", "w2", "w3")
	queue(tb, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}, 1) // three sites each
	for name, u := range tb.units {                                     // w1's sites are the dear ones
		tb.AddCost(name, map[bool]time.Duration{true: 30 * time.Second, false: time.Second}[u.owner == "w1"])
	}
	p, err := tb.PlanBalance(balanceOptions())
	if err != nil || len(p.Units) == 0 {
		t.Fatalf("plan %+v, %v: want sites to move off w1", p, err)
	}
	paused := p.Units[0].To
	onto := 0
	for _, mv := range p.Units {
		if mv.To == paused {
			onto++
		}
	}
	tb.SetPaused(paused, true)
	a, err := tb.ApplyBalance(p)
	if err != nil {
		t.Fatal(err)
	}
	if a.Paused[paused] != onto || a.Moved != len(p.Units)-onto {
		t.Errorf("applied: %d moved, %v left out for a paused receiver; want %d moved and %d left out for %s",
			a.Moved, a.Paused, len(p.Units)-onto, onto, paused)
	}
	for _, mv := range p.Units {
		q := tb.units[mv.Unit]
		if mv.To == paused && (q.owner != mv.From || q.next != "") {
			t.Errorf("%s: owner %s, next %q; the plan moved it onto %s, paused since: want it left on %s", mv.Unit, q.owner, q.next, paused, mv.From)
		}
		if mv.To != paused && q.owner != mv.To {
			t.Errorf("%s: owner %s; want the plan's %s", mv.Unit, q.owner, mv.To)
		}
	}
}

// The line a join or a resume writes says what moved where: those to the worker
// that joined or resumed, and apart from them those that went between the others
// (a paused worker's sites to the active ones), not all of them as moving to the
// worker.
func TestAResumeSaysWhichSitesMoveToIt(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	join(tb, "w1", "w2", "w3")
	queue(tb, []string{"a", "b", "c", "d", "e", "f"}, 1) // two sites each
	tb.SetPaused("w1", true)
	tb.SetPaused("w3", true)
	moved, _ := tb.SetPaused("w1", false) // w3's two sites go to w1 and w2, one each
	if got, want := moved.Said("w1"), "1 site or keyword shard moves to it, 1 from w3 to w2"; got != want {
		t.Errorf("w1's resume line says %q; want %q", got, want)
	}
	if got := held(tb); fmt.Sprint(got) != "map[w1:3 w2:3 w3:0]" {
		t.Errorf("after w1's resume the workers hold %v sites; want w3's shared by w1 and w2", got)
	}
}

// New work for a site of a worker the operator paused goes to an active worker
// then, dealt as a new site is (the active worker holding the fewest sites), with
// the site's tasks waiting at the master: it does not wait for the pause's end, or
// for a join, a resume or r to deal it. A site the paused worker holds tasks of in
// its lanes stays with it (it moves when a deal asks the worker to release it),
// and with no worker active, a paused one keeps its sites. Left with it, a site's
// new work would wait for the resume.
func TestNewWorkForAPausedWorkersSiteGoesToAnActiveWorker(t *testing.T) {
	t.Parallel()
	settle := func(tb *Table) { // the workers fetch what they were dealt
		for _, name := range sortedKeys(tb.nodes) {
			for _, task := range heldBack(tb.nodes[name]) {
				tb.Settle(name, task, true)
			}
		}
	}
	for _, tc := range []struct {
		name   string
		before func(tb *Table) // after w1, w2, w3 joined and a..f were queued (a, d on w1)
		owner  string          // who holds a.test once new work for it came
		dealt  map[string]int  // what a dispatch then deals
	}{
		{"the site has no work", func(tb *Table) {
			tb.Dispatch(10)
			settle(tb)
			tb.SetPaused("w1", true)
		}, "w2", map[string]int{"w2": 1}},
		{"an active worker holds more sites", func(tb *Table) {
			tb.Dispatch(10)
			settle(tb)
			tb.SetPaused("w1", true)
			queue(tb, []string{"g"}, 1) // a new site: to w2, which then holds three
			tb.Dispatch(10)
			settle(tb)
		}, "w3", map[string]int{"w3": 1}},
		{"its tasks wait at the master", func(tb *Table) {
			tb.SetPaused("w1", true)
		}, "w2", map[string]int{"w2": 4, "w3": 2}}, // a's two, b and e; c and f
		{"its tasks are in the paused worker's lanes", func(tb *Table) {
			tb.Dispatch(10)
			tb.SetPaused("w1", true)
		}, "w1", map[string]int{}},
		{"no worker is active", func(tb *Table) {
			tb.Dispatch(10)
			settle(tb)
			for _, w := range []string{"w1", "w2", "w3"} {
				tb.SetPaused(w, true)
			}
		}, "w1", map[string]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := New(&keepAll{}, nil, 1)
			join(tb, "w1", "w2", "w3")
			queue(tb, []string{"a", "b", "c", "d", "e", "f"}, 1)
			if o := tb.units["a.test"].owner; o != "w1" {
				t.Fatalf("a.test dealt to %s; the test wants it on w1", o)
			}
			tc.before(tb)
			tb.Add(frontier.Task{URL: "http://img.a.test/new", Host: "img.a.test"}) // a link found for a.test
			if o := tb.units["a.test"].owner; o != tc.owner {
				t.Errorf("a.test is %s's once new work came for it; want %s's", o, tc.owner)
			}
			if got := dealt(tb); fmt.Sprint(got) != fmt.Sprint(tc.dealt) {
				t.Errorf("a dispatch dealt %v tasks; want %v", got, tc.dealt)
			}
			if n := tb.nodes[tc.owner]; tc.owner != "w1" && (n.state != view.NodeActive || !n.units["a.test"] || tb.nodes["w1"].units["a.test"]) {
				t.Errorf("a.test moved to %s but the workers' counts do not say so", tc.owner)
			}
		})
	}
}
