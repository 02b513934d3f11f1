package master

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/balance"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// keepAll is a front that keeps every task handed back and notes hand-outs.
type keepAll struct{ out, back int }

func (f *keepAll) Admit(*frontier.Task) bool { return true }
func (f *keepAll) HandedOut(frontier.Task)   { f.out++ }
func (f *keepAll) Fetched(frontier.Task)     {}
func (f *keepAll) Dropped(frontier.Task)     {}
func (f *keepAll) HandedBack(frontier.Task) bool {
	f.back++
	return true
}

func (t *Table) addNode(name string) *node {
	n := &node{name: name, inc: "i", state: view.NodeActive, units: map[string]bool{}, held: map[string]frontier.Task{}}
	t.nodes[name] = n
	return n
}

// balanceOptions are the crawl's default balancing settings.
func balanceOptions() balance.Options {
	b := config.DefaultOptions().Balance
	return balance.Options{Threshold: b.Threshold, CounterThreshold: b.CounterThreshold,
		IterationThreshold: b.IterationThreshold, Seed: uint64(time.Now().UnixNano())}
}

// TestJoinsDealEachKindOfUnitEvenly: the assignment as workers join (news sites
// spread evenly; every social site goes to every worker, each with a disjoint share
// of its keywords). Whether the workers join at once or one after another while the
// master already deals to the first, each ends with 1-2 of the 4 news sites and 2-3
// of each social site's 8 keyword shards. Dealing by the total alone, the first
// worker kept only keyword shards after the others joined.
func TestJoinsDealEachKindOfUnitEvenly(t *testing.T) {
	t.Parallel()
	news := []string{"alpha.test", "bravo.test", "charlie.test", "delta.test"}
	social := []string{"social1.test", "social2.test"}
	for _, tc := range []struct {
		name  string
		joins [][]string // workers joining together, in turn
	}{
		{"all at once", [][]string{{"w1", "w2", "w3"}}},
		{"one after another", [][]string{{"w1"}, {"w2"}, {"w3"}}},
		{"two, then one", [][]string{{"w1", "w2"}, {"w3"}}},
		{"in reverse name order", [][]string{{"w3"}, {"w2"}, {"w1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := New(&keepAll{}, nil, 1)
			addUnit := func(site, keyword string) {
				host := "www." + site
				tb.Add(frontier.Task{URL: "http://" + host + "/" + keyword, Host: host, Site: site, Keyword: keyword})
			}
			for _, s := range news {
				addUnit(s, "")
			}
			for _, s := range social {
				for k := range 8 {
					addUnit(s, fmt.Sprintf("kw%d", k))
				}
			}
			for _, group := range tc.joins {
				for _, name := range group {
					tb.addNode(name)
				}
				tb.spread()
			}
			for _, name := range sortedKeys(tb.nodes) {
				held := map[string]int{}
				for u := range tb.nodes[name].units {
					if q := tb.units[u]; q.owner != name || q.next != "" {
						t.Errorf("%s counts %s, owned by %q (next %q)", name, u, q.owner, q.next)
					}
					held[unitKind(u)]++
				}
				if held[""] < 1 || held[""] > 2 {
					t.Errorf("%s holds %d of the 4 news sites; want 1 or 2 (holds %v)", name, held[""], held)
				}
				for _, s := range social {
					if held[s] < 2 || held[s] > 3 {
						t.Errorf("%s holds %d of the 8 keyword shards of %s; want 2 or 3 (holds %v)", name, held[s], s, held)
					}
				}
			}
		})
	}
}

// TestBalancePlanAndApply: balancing on a master's table. With costs skewed onto one
// worker, the plan moves units off it and lowers the variance of the workers'
// weight totals; applying moves units at once when their owner holds none of their
// tasks, and waits (refusing another rebalance meanwhile) when it does. One worker
// has nothing to balance.
func TestBalancePlanAndApply(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	for _, name := range []string{"w1", "w2", "w3"} {
		tb.addNode(name)
	}
	// w1 holds the four dear sites, w2 and w3 two cheap ones each.
	cost := map[string]float64{"a.test": 40, "b.test": 30, "c.test": 20, "d.test": 10, "e.test": 1, "f.test": 1, "g.test": 1, "h.test": 1}
	owner := map[string]string{"a.test": "w1", "b.test": "w1", "c.test": "w1", "d.test": "w1", "e.test": "w2", "f.test": "w2", "g.test": "w3", "h.test": "w3"}
	for u, w := range owner {
		tb.units[u] = &unit{owner: w, hosts: map[string]bool{"www." + u: true}}
		tb.nodes[w].units[u] = true
		tb.AddCost(u, time.Duration(cost[u]*float64(time.Second)))
	}
	for _, u := range []string{"a.test", "b.test", "c.test", "d.test"} { // w1 is fetching each of its sites
		tb.units[u].out = 1
		tb.nodes["w1"].held["http://www."+u+"/"] = frontier.Task{URL: "http://www." + u + "/", Host: "www." + u, Site: u, Lease: 1}
	}

	// A worker the operator paused gets no units: its lanes would hold them
	// paused (a walkthrough saw the plan move a site onto one). Its own go to
	// the active workers (TestARebalanceDealsAPausedWorkersSitesToTheActiveOnes).
	// Nor does the unit of a new site go there.
	tb.nodes["w3"].state = view.NodePaused
	if p, err := tb.PlanBalance(balanceOptions()); err != nil {
		t.Fatal(err)
	} else {
		off := 0
		for _, mv := range p.Units {
			if mv.To == "w3" {
				t.Errorf("plan moves %s from %s to %s while w3 is paused", mv.Unit, mv.From, mv.To)
			}
			if mv.From == "w3" {
				off++
			}
		}
		if off != 2 {
			t.Errorf("plan %+v moves %d of the paused w3's 2 sites off it; want both", p.Units, off)
		}
	}
	if got := tb.pick("new.test"); got == "w3" {
		t.Errorf("a new site went to the paused w3")
	}
	tb.nodes["w3"].state = view.NodeActive

	p, err := tb.PlanBalance(balanceOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !p.Workers || len(p.Units) == 0 || !(p.VarianceAfter < p.VarianceBefore) {
		t.Fatalf("plan %+v: want units to move and the variance to fall", p)
	}
	fromW1 := 0
	for _, mv := range p.Units {
		if mv.From == "w1" {
			fromW1++
		}
	}
	if fromW1 == 0 {
		t.Fatalf("plan %+v moves nothing off w1, which holds the dear sites", p.Units)
	}
	a, err := tb.ApplyBalance(p)
	moved, release := a.Moved, a.Release
	if err != nil || moved != len(p.Units) {
		t.Fatalf("apply: %d of %d moved, %v", moved, len(p.Units), err)
	}
	for _, mv := range p.Units {
		q := tb.units[mv.Unit]
		switch {
		case mv.From == "w1" && (q.owner != "w1" || q.next != mv.To):
			t.Errorf("%s: owner %s, next %q; want it on w1 until its task reports, then %s", mv.Unit, q.owner, q.next, mv.To)
		case mv.From == "w1" && !strings.Contains(strings.Join(release["w1"], " "), mv.Unit):
			t.Errorf("%s moves off w1, which holds a task of it, but w1 is not asked to release it (%v)", mv.Unit, release)
		case mv.From != "w1" && q.owner != mv.To:
			t.Errorf("%s: owner %s; nothing of it was in flight, want it on %s at once", mv.Unit, q.owner, mv.To)
		}
	}
	if _, err := tb.ApplyBalance(p); !errors.Is(err, ErrBalancing) {
		t.Errorf("a second rebalance while sites are moving: %v, want ErrBalancing", err)
	}
	w1 := tb.nodes["w1"]
	for _, task := range w1.held { // w1's fetches report: the sites move now
		tb.unhand(w1, task)
	}
	for _, mv := range p.Units {
		if q := tb.units[mv.Unit]; q.owner != mv.To {
			t.Errorf("%s on %s after its last task reported; want %s", mv.Unit, q.owner, mv.To)
		}
	}
	if _, err := tb.ApplyBalance(view.RebalancePlan{Workers: true}); err != nil {
		t.Errorf("a rebalance once the moves are done: %v", err)
	}
	// Balanced now: the plan says so first, as a status line cut at 80 columns keeps it.
	if p, _ := tb.PlanBalance(balanceOptions()); len(p.Units) != 0 || !strings.HasPrefix(p.Summary, "nothing to move: ") {
		t.Errorf("a plan right after the moves: %d units, summary %q; want none and \"nothing to move: …\"", len(p.Units), p.Summary)
	}
	for name := range tb.nodes {
		if name != "w1" {
			tb.nodes[name].state = view.NodeDead
		}
	}
	if p, _ := tb.PlanBalance(balanceOptions()); len(p.Units) != 0 || !strings.Contains(p.Summary, "nothing to balance") {
		t.Errorf("one live worker: %+v", p)
	}
}

// Workers joining one after another while the first is still fetching every site it
// holds: the second's sites wait for the first's fetches in hand, and the third's
// join deals from those too (a unit on its way has not started at its receiver), so
// nine sites end 3/3/3, where the third got 2 and the second kept 4. Once the first
// worker reports, every unit is with the worker that counts it.
func TestJoinsDealUnitsStillOnTheirWay(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	tb.addNode("w1")
	for i := range 9 {
		host := fmt.Sprintf("s%d.example.test", i)
		tb.Add(frontier.Task{URL: "http://" + host + "/1", Host: host, Site: host})
		tb.Add(frontier.Task{URL: "http://" + host + "/2", Host: host, Site: host})
	}
	batches := tb.Dispatch(9) // one task of each site in w1's hands
	for _, name := range []string{"w2", "w3"} {
		tb.addNode(name)
		tb.spread()
	}
	count := func() map[string]int {
		out := map[string]int{}
		for name, n := range tb.nodes {
			out[name] = len(n.units)
		}
		return out
	}
	if c := count(); c["w1"] != 3 || c["w2"] != 3 || c["w3"] != 3 {
		t.Errorf("sites per worker after w2 and w3 joined while w1 fetched all nine: %v, want 3 each", c)
	}
	for _, task := range batches[0].Tasks {
		tb.Settle("w1", task, true)
	}
	for name, u := range tb.units {
		if u.next != "" || !tb.nodes[u.owner].units[name] {
			t.Errorf("%s: owner %q, next %q after w1 reported; want it with the worker counting it", name, u.owner, u.next)
		}
	}
}

// A worker that leaves gracefully is shown as left (the Nodes pane, the stats), not
// as dead like one that went silent: the operator stopped it and nothing was lost.
func TestALeftWorkerIsShownAsLeft(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	now := time.Unix(1700000000, 0)
	tb.addNode("w1").heard = now
	tb.addNode("w2").heard = now
	tb.Leave(&wire.Leave{Node: "w1", Incarnation: "i", Final: true})
	tb.BuryDead(now.Add(time.Hour), time.Minute) // w2 went silent
	nodes, _ := tb.View()
	got := map[string]view.NodeState{}
	for _, n := range nodes {
		got[n.Name] = n.State
	}
	if got["w1"] != view.NodeLeft || got["w2"] != view.NodeDead {
		t.Errorf("states %v; want w1 left, w2 dead", got)
	}
	if s := tb.Stats().Nodes["w1"].State; s != view.NodeLeft {
		t.Errorf("stats state of the worker that left: %q, want left", s)
	}
}

// A worker declared dead while only slow rejoins under the same incarnation: the
// join tells it the first lease its new life can be handed, above every hand-out
// of the life that ended (queued again, and handed out anew above it), so the
// worker can drop a batch of that life that reaches it late.
func TestRejoinSaysWhereTheNewLifesLeasesStart(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1000)
	join := func() Joined {
		return tb.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4}, time.Now(), 0)
	}
	join()
	for i := range 3 {
		tb.Add(frontier.Task{URL: fmt.Sprintf("http://a.test/%d", i), Host: "a.test"})
	}
	var old []uint64
	for _, b := range tb.Dispatch(10) {
		for _, task := range b.Tasks {
			old = append(old, task.Lease)
		}
	}
	if len(old) != 3 {
		t.Fatalf("handed out %d tasks, want 3", len(old))
	}
	tb.BuryDead(time.Now().Add(time.Hour), time.Minute) // its tasks go back to the queue
	r := join()
	for _, l := range old {
		if l >= r.Since {
			t.Fatalf("the rejoin says the new life starts at lease %d; the ended life was handed %d", r.Since, l)
		}
	}
	again := 0
	for _, b := range tb.Dispatch(10) {
		for _, task := range b.Tasks {
			again++
			if task.Lease < r.Since {
				t.Fatalf("the new life was handed lease %d, below the %d its join said", task.Lease, r.Since)
			}
		}
	}
	if again != 3 {
		t.Fatalf("the new life was handed %d tasks, want the 3 queued again", again)
	}
}

// A worker's window, full but for the slot a report freed, is dealt its units in
// turn: each of its two sites keeps tasks handed out while both have work waiting.
// Started from the first unit at each dispatch, a.test took every freed slot and
// b.test, with eight tasks waiting, had none out after its first one reported.
func TestDispatchDealsFreedSlotsToEachUnitInTurn(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	tb.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4}, time.Now(), 0)
	for i := range 10 {
		tb.Add(frontier.Task{URL: fmt.Sprintf("http://a.test/%d", i), Host: "a.test"})
		tb.Add(frontier.Task{URL: fmt.Sprintf("http://b.test/%d", i), Host: "b.test"})
	}
	const window = 2
	var held []frontier.Task // in the order handed out: the worker reports the oldest first
	dealt := map[string]int{}
	deal := func() {
		for _, b := range tb.Dispatch(window) {
			for _, task := range b.Tasks {
				held = append(held, task)
				dealt[task.Host]++
			}
		}
	}
	deal()
	for range 8 {
		if !tb.Settle("w1", held[0], true) {
			t.Fatalf("the report of %s was refused", held[0].URL)
		}
		held = held[1:]
		deal()
		out := map[string]int{}
		for _, task := range held {
			out[task.Host]++
		}
		if out["a.test"] == 0 || out["b.test"] == 0 {
			t.Fatalf("after %d reports the worker holds %v of its two sites (dealt %v so far); want a task of each out while both have work waiting",
				dealt["a.test"]+dealt["b.test"]-window, out, dealt)
		}
	}
}
