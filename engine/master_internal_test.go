package engine

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
)

// TestWorkerClaimsAnEgressFromTheMasterTable: a worker whose egresses were all
// refused asks the master's account table for another (seed 003 step 3-2-3): it gets
// a free one once, then none; a dead worker's grants go back to the table.
func TestWorkerClaimsAnEgressFromTheMasterTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, err := cluster.StartServer(cluster.ServerOptions{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats"), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	conn := func(name string) *cluster.Conn {
		c, err := cluster.Connect(srv.ClientURL(), cluster.ClientOptions{Name: name, Token: "tok"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	o := DefaultOptions()
	o.DB = filepath.Join(dir, "crawl.db")
	o.Seeds = []string{"http://example.test/"}
	o.Egress = []string{"bind:127.0.0.50", "bind:127.0.0.51"}
	o.Rotation.PerNode = 1
	o.DNSServers = []string{"127.0.0.1:1"}
	m, err := NewMaster(o, MasterOptions{Conn: conn("master"), HeartbeatEvery: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w, err := StartWorker(WorkerOptions{Conn: conn("w1"), Node: "w1", AllowPrivate: []string{"127.0.0.0/8"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(w.e.egress); got != 1 {
		t.Fatalf("worker joined with %d egresses, want per_node = 1", got)
	}
	sp, ok := w.claim()
	if !ok || sp.Address != "127.0.0.51" {
		t.Fatalf("claim = %+v, %v; want the table's free bind:127.0.0.51", sp, ok)
	}
	if _, ok := w.claim(); ok {
		t.Fatal("a second claim succeeded; the table has no free egress left")
	}
	w.Close() // silent from now on: dead after the timeout, its grants return
	deadline := time.Now().Add(10 * time.Second)
	for {
		free := 0
		for _, a := range m.cluster.table.Accounts() {
			if a.Node == "" || a.State != "assigned" {
				free++
			}
		}
		if free == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead worker's egresses did not return to the table: %+v", m.cluster.table.Accounts())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBalancePlanAndApply: seed 003's balancing on a master. With costs skewed onto
// one worker, the plan moves units off it and lowers the variance of the workers'
// weight totals; applying moves units at once when their owner holds none of their
// tasks, and waits (refusing another rebalance meanwhile) when it does. One worker
// has nothing to balance.
func TestBalancePlanAndApply(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, err := cluster.StartServer(cluster.ServerOptions{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats"), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	conn, err := cluster.Connect(srv.ClientURL(), cluster.ClientOptions{Name: "master", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	o := DefaultOptions()
	o.DB = filepath.Join(dir, "crawl.db")
	o.Seeds = []string{"http://example.test/"}
	o.DNSServers = []string{"127.0.0.1:1"}
	e, err := NewMaster(o, MasterOptions{Conn: conn})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m := e.cluster
	e.mu.Lock()
	for _, name := range []string{"w1", "w2", "w3"} {
		m.nodes[name] = &node{name: name, inc: "i", state: NodeActive, units: map[string]bool{}, held: map[string]frontier.Task{}}
	}
	// w1 holds the four dear sites, w2 and w3 two cheap ones each.
	cost := map[string]float64{"a.test": 40, "b.test": 30, "c.test": 20, "d.test": 10, "e.test": 1, "f.test": 1, "g.test": 1, "h.test": 1}
	owner := map[string]string{"a.test": "w1", "b.test": "w1", "c.test": "w1", "d.test": "w1", "e.test": "w2", "f.test": "w2", "g.test": "w3", "h.test": "w3"}
	for u, w := range owner {
		m.units[u] = &unitQueue{owner: w, hosts: map[string]bool{"www." + u: true}}
		m.nodes[w].units[u] = true
		m.addCost(u, time.Duration(cost[u]*float64(time.Second)))
	}
	for _, u := range []string{"a.test", "b.test", "c.test", "d.test"} { // w1 is fetching each of its sites
		m.units[u].out = 1
		m.nodes["w1"].held["http://www."+u+"/"] = frontier.Task{URL: "http://www." + u + "/", Host: "www." + u, Site: u, Lease: 1}
	}
	e.mu.Unlock()

	// A worker the operator paused gets no units: its lanes would hold them
	// paused (a walkthrough saw the plan move a site onto one). Nor does the
	// unit of a new site go there.
	e.mu.Lock()
	m.nodes["w3"].state = NodePaused
	e.mu.Unlock()
	if p, err := m.planBalance(); err != nil {
		t.Fatal(err)
	} else {
		for _, mv := range p.Units {
			if mv.To == "w3" || mv.From == "w3" {
				t.Errorf("plan moves %s from %s to %s while w3 is paused", mv.Unit, mv.From, mv.To)
			}
		}
	}
	e.mu.Lock()
	if got := m.pick("new.test"); got == "w3" {
		t.Errorf("a new site went to the paused w3")
	}
	m.nodes["w3"].state = NodeActive
	e.mu.Unlock()

	p, err := m.planBalance()
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
	if err := e.ApplyRebalance(p); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	for _, mv := range p.Units {
		q := m.units[mv.Unit]
		switch {
		case mv.From == "w1" && (q.owner != "w1" || q.next != mv.To):
			t.Errorf("%s: owner %s, next %q; want it on w1 until its task reports, then %s", mv.Unit, q.owner, q.next, mv.To)
		case mv.From != "w1" && q.owner != mv.To:
			t.Errorf("%s: owner %s; nothing of it was in flight, want it on %s at once", mv.Unit, q.owner, mv.To)
		}
	}
	e.mu.Unlock()
	if err := e.ApplyRebalance(p); !errors.Is(err, errBalancing) {
		t.Errorf("a second rebalance while sites are moving: %v, want errBalancing", err)
	}
	e.mu.Lock()
	w1 := m.nodes["w1"]
	for _, task := range w1.held { // w1's fetches report: the sites move now
		m.unhand(w1, task)
	}
	for _, mv := range p.Units {
		if q := m.units[mv.Unit]; q.owner != mv.To {
			t.Errorf("%s on %s after its last task reported; want %s", mv.Unit, q.owner, mv.To)
		}
	}
	e.mu.Unlock()
	if err := e.ApplyRebalance(RebalancePlan{Workers: true}); err != nil {
		t.Errorf("a rebalance once the moves are done: %v", err)
	}
	e.mu.Lock()
	for name := range m.nodes {
		if name != "w1" {
			m.nodes[name].state = NodeDead
		}
	}
	e.mu.Unlock()
	if p, _ := m.planBalance(); len(p.Units) != 0 || !strings.Contains(p.Summary, "nothing to balance") {
		t.Errorf("one live worker: %+v", p)
	}
}
