package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A total host budget set live on a master holds over its workers: the pages the
// capped host serves end at the budget plus what the lanes had in hand when it was
// set, where the workers used to fetch every task they had queued before it (a host
// budget of 80 went to 279 pages). The host's links are all found and queued at the
// workers before the budget is set (its pages past the first wait at the server
// until then); the other hosts are crawled in full.
func TestHostBudgetHoldsOnAMaster(t *testing.T) {
	t.Parallel()
	const pages, budget, lanes = 120, 10, 4
	w := newHubWeb(t, 3, pages)
	w.hold, w.arrived = make(chan struct{}), make(chan string, 64)
	o := hubOptions(t, w)
	_, conn := natstest.Start(t)
	// No worker is declared dead here: on a loaded box a worker's heartbeats can be
	// late by seconds, and a worker buried then has its tasks handed to another and
	// fetched twice (an uncapped host served 122 of its 120 pages). Dead workers have
	// their own tests; this one counts pages against a budget.
	m := startMaster(t, o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: 500 * time.Millisecond, Timeout: crawlPatience})
	defer func() {
		if t.Failed() {
			for _, ev := range m.EventsSince(0, 1000) { // what was handed out twice, and why
				if ev.Level >= view.LevelWarn {
					t.Logf("master: %s", ev.Msg)
				}
			}
		}
	}()
	for i := range 3 {
		name := fmt.Sprintf("w%d", i+1)
		startWorker(t, config.WorkerOptions{Conn: conn(name), Node: name, Egress: []string{fmt.Sprintf("bind:127.0.0.%d", 71+i)},
			AllowPrivate: []string{"127.0.0.0/8"}, LanesMax: lanes})
	}
	capped := w.host(0)
	select {
	case <-waitHost(w.arrived, capped):
	case <-time.After(3 * crawlPatience):
		t.Fatalf("no request past the first page of %s", capped)
	}
	s, _ := steer.Parse(strings.Fields(fmt.Sprintf("budget host %s %d total", capped, budget)))
	msg, err := m.Steer(s)
	if err != nil || !strings.Contains(msg, fmt.Sprintf("%d pages in total", budget)) {
		t.Fatalf("%s: %q %v", s, msg, err)
	}
	close(w.hold)
	waitDone(t, m, 60*time.Second)
	t.Logf("%s served %d pages under a budget of %d", capped, w.count(0), budget)
	if got := w.count(0); got > budget+lanes {
		t.Errorf("%s served %d pages under a total budget of %d set live; want at most %d (the budget and %d lanes in flight)",
			capped, got, budget, budget+lanes, lanes)
	}
	for i := 1; i < 3; i++ {
		if got := w.count(i); got != pages {
			t.Errorf("uncapped host %s served %d of its %d pages", w.host(i), got, pages)
		}
	}
	if n := skippedAs(m, front.SkipBudgetHost); n < pages-budget-lanes {
		t.Errorf("%d URLs held back by the host budget, want at least %d", n, pages-budget-lanes)
	}
}

// waitHost closes its channel once arrived names host (other hosts' arrivals are
// dropped).
func waitHost(arrived <-chan string, host string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for h := range arrived {
			if h == host {
				close(done)
				return
			}
		}
	}()
	return done
}

// The same on one box: the tasks on the lanes' board when the budget is set are
// counted again, and those over it held back, where the board used to be fetched
// in full.
func TestHostBudgetSetLiveHoldsWhatTheBoardHolds(t *testing.T) {
	t.Parallel()
	const pages, budget, lanes = 120, 10, 4
	w := newHubWeb(t, 1, pages)
	w.hold, w.arrived = make(chan struct{}), make(chan string, 64)
	o := hubOptions(t, w)
	o.Lanes.Max = lanes
	e := startEngine(t, o)
	select {
	case <-w.arrived:
	case <-time.After(3 * crawlPatience):
		t.Fatal("no request past the first page")
	}
	waitFor(t, "the host's links on the board", func() bool { return e.Snapshot().QueueDepth >= pages/2 })
	s, _ := steer.Parse(strings.Fields(fmt.Sprintf("budget host %s %d total", w.host(0), budget)))
	if msg, err := e.Steer(s); err != nil || !strings.Contains(msg, "counted again") {
		t.Fatalf("%s: %q %v", s, msg, err)
	}
	close(w.hold)
	waitDone(t, e, 30*time.Second)
	if got := w.count(0); got > budget+lanes {
		t.Errorf("served %d pages under a total budget of %d set live; want at most %d", got, budget, budget+lanes)
	}
}

// A total host budget set live holds across a master's restart: the restarted
// master counts what its worker claims at the rejoin (handed out by its last life,
// still to be fetched) against the budget, not only what is stored. The worker
// holds a window of 20 of the host's tasks, its lanes hanging on 4 of them, when the
// master stops; the restarted one used to hand out the budget again on top of the
// 20 claimed (60 pages under a budget of 40).
func TestHostBudgetHoldsAcrossAMasterRestart(t *testing.T) {
	t.Parallel()
	r := budgetBeforeRestart(t, "127.0.0.75")
	m2 := r.master(t, "master2")
	if err := m2.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the worker rejoined", r.rejoined)
	r.check(t, m2, "")
}

// The same budget holds when the worker's rejoin is the first thing the restarted
// master takes: its start is held right after its crew began listening until the
// worker rejoined. Its claims must meet the budget the steering list replays and
// the counts read back from the store; before, the crew listened before either
// was back, and a rejoin taken then had its claims admitted with no budget at all.
func TestHostBudgetHoldsWhenTheRejoinComesFirst(t *testing.T) {
	r := budgetBeforeRestart(t, "127.0.0.76")
	m2 := r.master(t, "master2")
	crewStarted = func(e *Engine) {
		if e == m2 {
			waitFor(t, "the worker rejoined", r.rejoined)
		}
	}
	t.Cleanup(func() { crewStarted = nil })
	if err := m2.Start(); err != nil {
		t.Fatal(err)
	}
	r.check(t, m2, ", its worker's rejoin taken first")
}

// budgetRestart is a crawl of one host of 200 pages by a master and one worker of
// 4 lanes, with a total budget of 40 set live on the host and the master stopped
// while the worker holds a window of 20 of its tasks, its lanes hanging on 4.
type budgetRestart struct {
	w    *hubWeb
	o    config.Options
	conn func(name string) *cluster.Conn
	wk   *Worker
}

const budgetRestartPages, budgetRestartBudget, budgetRestartLanes, budgetRestartWindow = 200, 40, 4, 20

// budgetBeforeRestart runs the crawl up to the master's stop, its worker bound to bind.
func budgetBeforeRestart(t *testing.T, bind string) *budgetRestart {
	w := newHubWeb(t, 1, budgetRestartPages)
	w.hold, w.arrived = make(chan struct{}), make(chan string, 64)
	_, conn := natstest.Start(t)
	r := &budgetRestart{w: w, o: hubOptions(t, w), conn: conn}
	m1 := r.master(t, "master")
	if err := m1.Start(); err != nil {
		t.Fatal(err)
	}
	wk := startWorker(t, config.WorkerOptions{Conn: conn("w1"), Node: "w1", Egress: []string{"bind:" + bind},
		AllowPrivate: []string{"127.0.0.0/8"}, LanesMax: budgetRestartLanes})
	r.wk = wk
	select {
	case <-w.arrived:
	case <-time.After(3 * crawlPatience):
		t.Fatal("no request past the first page")
	}
	s, _ := steer.Parse(strings.Fields(fmt.Sprintf("budget host %s %d total", w.host(0), budgetRestartBudget)))
	if _, err := m1.Steer(s); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the worker holding its window", func() bool {
		return wk.Engine().Snapshot().QueueDepth >= budgetRestartWindow-budgetRestartLanes
	})
	m1.Close()
	r.o.Seeds = nil
	return r
}

// master builds (does not start) a master of the crawl named name.
func (r *budgetRestart) master(t *testing.T, name string) *Engine {
	// No worker is declared dead (Timeout is a guard): a loaded box stalled the
	// worker's heartbeats past the default 600 ms, and a buried worker's window
	// handed out again was fetched twice (45 and 49 pages under the budget of 40).
	m, err := NewMaster(r.o, config.MasterOptions{Conn: r.conn(name), HeartbeatEvery: 200 * time.Millisecond, Window: budgetRestartWindow,
		Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	t.Cleanup(func() { logWarnings(t, name, m) })
	return m
}

// rejoined says whether the worker joined the restarted master.
func (r *budgetRestart) rejoined() bool {
	for _, ev := range r.wk.Engine().EventsSince(0, 0) {
		if strings.Contains(ev.Msg, "joined again") {
			return true
		}
	}
	return false
}

// check lets the host's pages go, waits for the restarted master m2 to end the
// crawl and checks the budget held (how is how the restart went, for the message).
func (r *budgetRestart) check(t *testing.T, m2 *Engine, how string) {
	close(r.w.hold)
	waitDone(t, m2, 60*time.Second)
	budget, lanes := budgetRestartBudget, budgetRestartLanes
	t.Logf("%s served %d pages under a budget of %d", r.w.host(0), r.w.count(0), budget)
	if got := r.w.count(0); got > budget+lanes {
		t.Errorf("%s served %d pages under a total budget of %d set live before the master restarted%s; want at most %d (the budget and %d lanes in flight)",
			r.w.host(0), got, budget, how, budget+lanes, lanes)
	}
}

// A crawl capped by a total budget in its options ends on a master as it does on
// one box, however its last steps fall. Here the master hands out one task at a
// time and is paused while the budget's last page is fetched, so the URLs over
// the budget are held back by the hand-out that follows the resume, when the
// last result is stored and no report is to come. The master used to stay open
// then, its pages fetched and the rest held back and deferred, never done (and
// without the pause too, when the last page's store commit came before that
// hand-out).
func TestTotalBudgetInTheOptionsEndsOnAMaster(t *testing.T) {
	t.Parallel()
	for i, tc := range []struct {
		name string
		set  func(*config.BudgetOptions)
		kind string
	}{
		{"host", func(b *config.BudgetOptions) { b.HostTotal = 2 }, front.SkipBudgetHost},
		{"site", func(b *config.BudgetOptions) { b.SiteTotal = 2 }, front.SkipBudgetSite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const pages = 22
			w := newHubWeb(t, 1, pages)
			w.hold, w.arrived = make(chan struct{}), make(chan string, 64)
			o := hubOptions(t, w)
			tc.set(&o.Budgets)
			_, conn := natstest.Start(t)
			// No worker is declared dead (Timeout is a guard): a false death on a
			// loaded box hands a page out again, served twice.
			m := startMaster(t, o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: 200 * time.Millisecond, Window: 1, Timeout: time.Minute})
			startWorker(t, config.WorkerOptions{Conn: conn("w1"), Node: "w1", Egress: []string{fmt.Sprintf("bind:127.0.0.%d", 77+i)},
				AllowPrivate: []string{"127.0.0.0/8"}, LanesMax: 4})
			// The second page, the budget's last, waits at the server until the
			// links of the first are queued at the master and the master paused.
			select {
			case <-w.arrived:
			case <-time.After(3 * crawlPatience):
				t.Fatalf("no request past the first page; the master: %s", masterSays(m))
			}
			waitFor(t, "the first page's links queued at the master", func() bool {
				m.mu.Lock()
				defer m.mu.Unlock()
				return m.queuedLen() == pages-2
			})
			m.Pause()
			close(w.hold)
			waitFor(t, "the second page stored, every write committed", func() bool {
				m.mu.Lock()
				defer m.mu.Unlock()
				return m.c.PagesStored.Load() == 2 && !m.fr.Busy()
			})
			m.Resume()
			waitDone(t, m, time.Minute)
			if got := w.count(0); got != 2 {
				t.Errorf("%d pages served under a total budget of 2", got)
			}
			if n := skippedAs(m, tc.kind); n != pages-2 {
				t.Errorf("%d URLs held back as %s, want %d", n, tc.kind, pages-2)
			}
		})
	}
}

// masterSays is what a master shows an operator, for a test's failure message: its
// state, queue, totals, workers and its last events.
func masterSays(m *Engine) string {
	s := m.Snapshot()
	var b strings.Builder
	fmt.Fprintf(&b, "state %v, queue %d, fetched %d, stored %d, skipped %v", s.State, s.QueueDepth, s.Totals.PagesFetched, s.Totals.PagesStored, s.Totals.Skipped)
	for _, n := range s.Nodes {
		fmt.Fprintf(&b, "; worker %s %s (lanes %d/%d, queue %d, results %d, heartbeat %s)", n.Name, n.State, n.Lanes, n.LanesMax, n.Queue, n.Results, n.Heartbeat.Format("15:04:05.000"))
	}
	for _, ev := range m.EventsSince(0, 1<<20) {
		fmt.Fprintf(&b, "\n  %s %s %s", ev.At.Format("15:04:05.000"), ev.Host, ev.Msg)
	}
	return b.String()
}

// logWarnings logs, when t failed, the warnings and errors of e (a master: a worker
// declared dead, a batch dropped), what tells a crawl's own fault from a late box.
func logWarnings(t *testing.T, name string, e *Engine) {
	if !t.Failed() {
		return
	}
	for _, ev := range e.EventsSince(0, 1000) {
		if ev.Level >= view.LevelWarn {
			t.Logf("%s: %s %s", name, ev.At.Format("15:04:05.000"), ev.Msg)
		}
	}
}
