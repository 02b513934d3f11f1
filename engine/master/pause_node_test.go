package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A worker the operator paused stays paused when it comes back: declared dead
// and rejoining under its incarnation, or restarted under a new one, it shows
// paused and is dealt nothing until resumed.
func TestAPausedWorkerComesBackPaused(t *testing.T) {
	t.Parallel()
	for _, inc := range []string{"i", "j"} { // a rejoin, a restart
		tb := New(&keepAll{}, nil, 1)
		tb.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4}, time.Now(), 0)
		tb.Add(frontier.Task{URL: "http://a.test/1", Host: "a.test"})
		tb.SetPaused("w1", true)
		tb.BuryDead(time.Now().Add(time.Hour), time.Minute)
		tb.Join(&wire.Join{Node: "w1", Incarnation: inc, LanesMax: 4}, time.Now(), 0)
		if b := tb.Dispatch(10); len(b) != 0 {
			t.Errorf("incarnation %s: the paused w1, back, was dealt %v", inc, b)
		}
		tb.Heartbeat(wire.Heartbeat{Node: "w1", Incarnation: inc}, time.Now()) // the worker knows no pause yet
		if nodes, _ := tb.View(); nodes[0].State != view.NodePaused {
			t.Errorf("incarnation %s: the paused w1, back, shows %v", inc, nodes[0].State)
		}
		tb.SetPaused("w1", false)
		if b := tb.Dispatch(10); len(b) != 1 {
			t.Errorf("incarnation %s: w1 resumed was dealt %d batches, want 1", inc, len(b))
		}
	}
}

// A worker paused while the crawl found its sites takes none of them (they go to
// the active workers); resumed, it gets its share, as a worker joining would,
// instead of idling while another worker has them all queued.
func TestAResumedWorkerGetsItsShareOfTheSites(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	for _, w := range []string{"w1", "w2"} {
		tb.Join(&wire.Join{Node: w, Incarnation: "i", LanesMax: 4}, time.Now(), 0)
	}
	tb.SetPaused("w1", true)
	for _, h := range []string{"a", "b", "c", "d", "e", "f"} {
		tb.Add(frontier.Task{URL: "http://" + h + ".test/1", Host: h + ".test"})
	}
	tb.SetPaused("w1", false)
	dealt := map[string]int{}
	for _, b := range tb.Dispatch(10) {
		dealt[b.Node] += len(b.Tasks)
	}
	if dealt["w1"] != 3 || dealt["w2"] != 3 {
		t.Errorf("after w1's resume the six sites' tasks were dealt %v; want 3 to each worker", dealt)
	}
}

// A worker joining while the operator pauses another takes its share from the
// active workers, and the paused one's sites too: the paused worker is dealt no
// unit (its lanes would hold it paused) and is not counted when the units are
// evened out. Its sites go to the active workers, those it holds tasks of once it
// handed back what its lanes had not taken and reported the rest (a resume deals
// it its share again: TestAResumedWorkerGetsItsShareOfTheSites). With no worker
// active, the paused ones are evened out among themselves. Before, the join
// evened the units over the paused worker too: it was dealt a share, or kept its
// sites while the active workers held fewer, and that work sat paused.
func TestAJoinLeavesAPausedWorkerOutOfTheDeal(t *testing.T) {
	t.Parallel()
	sites := []string{"a", "b", "c", "d", "e", "f"}
	for _, tc := range []struct {
		name string
		// before builds the crawl up to the join: workers joined, tasks of the six
		// sites queued, a pause.
		before  func(tb *Table)
		join    string         // the worker that joins then
		holds   map[string]int // the units each worker holds after the join
		release map[string]int // the units the join asks each worker to release
		dealt   map[string]int // the tasks a dispatch then deals each
	}{
		{"paused before the sites were found", func(tb *Table) {
			join(tb, "w1", "w2")
			tb.SetPaused("w2", true)
			queue(tb, sites, 1)
		}, "w3", map[string]int{"w1": 3, "w2": 0, "w3": 3}, map[string]int{}, map[string]int{"w1": 3, "w3": 3}},
		{"paused with its sites' tasks waiting at the master", func(tb *Table) {
			join(tb, "w1", "w2")
			queue(tb, sites, 1)
			tb.SetPaused("w1", true)
		}, "w3", map[string]int{"w1": 0, "w2": 3, "w3": 3}, map[string]int{}, map[string]int{"w2": 3, "w3": 3}},
		{"paused with its sites' tasks in hand", func(tb *Table) {
			join(tb, "w1", "w2")
			queue(tb, sites, 2)
			tb.Dispatch(3) // one task of each site in each worker's hands
			tb.SetPaused("w1", true)
		}, "w3", map[string]int{"w1": 0, "w2": 3, "w3": 3}, map[string]int{"w1": 3}, map[string]int{"w2": 3}},
		{"every worker paused", func(tb *Table) {
			join(tb, "w1")
			queue(tb, sites, 1)
			tb.SetPaused("w1", true)
			tb.SetPaused("w2", true) // held for w2 by name: it joins paused
		}, "w2", map[string]int{"w1": 3, "w2": 3}, map[string]int{}, map[string]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := New(&keepAll{}, nil, 1)
			tc.before(tb)
			r := tb.Join(&wire.Join{Node: tc.join, Incarnation: "i", LanesMax: 4}, time.Now(), 0)
			holds := map[string]int{}
			for name, n := range tb.Stats().Nodes {
				holds[name] = n.Hosts
			}
			if fmt.Sprint(holds) != fmt.Sprint(tc.holds) {
				t.Errorf("after %s's join the workers hold %v sites; want %v", tc.join, holds, tc.holds)
			}
			release := map[string]int{}
			for name, units := range r.Release {
				release[name] = len(units)
			}
			if fmt.Sprint(release) != fmt.Sprint(tc.release) {
				t.Errorf("%s's join asked the workers to release %v units; want %v", tc.join, release, tc.release)
			}
			dealt := map[string]int{}
			for _, b := range tb.Dispatch(10) {
				dealt[b.Node] += len(b.Tasks)
			}
			if fmt.Sprint(dealt) != fmt.Sprint(tc.dealt) {
				t.Errorf("after %s's join a dispatch dealt %v tasks; want %v", tc.join, dealt, tc.dealt)
			}
			// What a worker released moves once it reported its tasks in hand.
			for name := range r.Release {
				for _, task := range heldBack(tb.nodes[name]) {
					tb.Settle(name, task, true)
				}
			}
			if len(r.Release) > 0 {
				dealt := map[string]int{}
				for _, b := range tb.Dispatch(10) {
					dealt[b.Node] += len(b.Tasks)
				}
				if fmt.Sprint(dealt) != "map[w3:3]" {
					t.Errorf("once the released sites' tasks in hand reported a dispatch dealt %v; want their 3 waiting tasks to w3", dealt)
				}
			}
		})
	}
}

// join has workers join the table, in turn.
func join(tb *Table, names ...string) {
	for _, name := range names {
		tb.Join(&wire.Join{Node: name, Incarnation: "i", LanesMax: 4}, time.Now(), 0)
	}
}

// queue queues n tasks of each of sites (www.SITE.test).
func queue(tb *Table, sites []string, n int) {
	for _, s := range sites {
		for i := range n {
			h := "www." + s + ".test"
			tb.Add(frontier.Task{URL: fmt.Sprintf("http://%s/%d", h, i), Host: h})
		}
	}
}

// The operator's rebalance (r) deals a paused worker's sites to the active workers,
// as a join does (TestAJoinLeavesAPausedWorkerOutOfTheDeal): the plan moves each of
// them off the paused worker, to the active one holding the least, and moves nothing
// onto it; applied, the sites it holds tasks of move once it handed back what its
// lanes had not taken and reported the rest. With no worker active there is nothing
// to balance. Before, the plan left the paused worker out with its sites, and their
// work sat in its paused lanes until its resume.
func TestARebalanceDealsAPausedWorkersSitesToTheActiveOnes(t *testing.T) {
	t.Parallel()
	sites := []string{"a", "b", "c", "d", "e", "f"}
	for _, tc := range []struct {
		name    string
		before  func(tb *Table) // workers joined, tasks of the six sites queued, pauses
		holds   map[string]int  // the sites each worker holds once the plan is applied
		release map[string]int  // the sites the rebalance asks each worker to release
		dealt   map[string]int  // the tasks a dispatch then deals each
	}{
		{"its sites' tasks waiting at the master", func(tb *Table) {
			join(tb, "w1", "w2", "w3")
			queue(tb, sites, 1)
			tb.SetPaused("w3", true)
		}, map[string]int{"w1": 3, "w2": 3, "w3": 0}, map[string]int{}, map[string]int{"w1": 3, "w2": 3}},
		{"its sites' tasks in hand", func(tb *Table) {
			join(tb, "w1", "w2", "w3")
			queue(tb, sites, 2)
			tb.Dispatch(2) // one task of each site in each worker's hands
			tb.SetPaused("w3", true)
		}, map[string]int{"w1": 3, "w2": 3, "w3": 0}, map[string]int{"w3": 2}, map[string]int{"w1": 3, "w2": 3}},
		{"one worker active", func(tb *Table) {
			join(tb, "w1", "w2")
			queue(tb, sites, 1)
			tb.SetPaused("w2", true)
		}, map[string]int{"w1": 6, "w2": 0}, map[string]int{}, map[string]int{"w1": 6}},
		{"every worker paused", func(tb *Table) {
			join(tb, "w1", "w2")
			queue(tb, sites, 1)
			tb.SetPaused("w1", true)
			tb.SetPaused("w2", true)
		}, map[string]int{"w1": 3, "w2": 3}, map[string]int{}, map[string]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := New(&keepAll{}, nil, 1)
			tc.before(tb)
			p, err := tb.PlanBalance(balanceOptions())
			if err != nil {
				t.Fatal(err)
			}
			for _, mv := range p.Units {
				if tb.nodes[mv.To].state != view.NodeActive {
					t.Errorf("the plan moves %s onto the paused %s", mv.Unit, mv.To)
				}
			}
			a, err := tb.ApplyBalance(p)
			release := a.Release
			if err != nil {
				t.Fatal(err)
			}
			holds := map[string]int{}
			for name, n := range tb.Stats().Nodes {
				holds[name] = n.Hosts
			}
			if fmt.Sprint(holds) != fmt.Sprint(tc.holds) {
				t.Errorf("after the rebalance (%s) the workers hold %v sites; want %v", p.Summary, holds, tc.holds)
			}
			released := map[string]int{}
			for name, units := range release {
				released[name] = len(units)
			}
			if fmt.Sprint(released) != fmt.Sprint(tc.release) {
				t.Errorf("the rebalance asked the workers to release %v sites; want %v", released, tc.release)
			}
			// What a worker released moves once it reported its tasks in hand.
			for name := range release {
				for _, task := range heldBack(tb.nodes[name]) {
					tb.Settle(name, task, true)
				}
			}
			dealt := map[string]int{}
			for _, b := range tb.Dispatch(10) {
				dealt[b.Node] += len(b.Tasks)
			}
			if fmt.Sprint(dealt) != fmt.Sprint(tc.dealt) {
				t.Errorf("after the rebalance a dispatch dealt %v tasks; want %v", dealt, tc.dealt)
			}
		})
	}
}
