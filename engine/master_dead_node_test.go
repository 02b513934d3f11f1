package engine

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// endlessSite serves /p/N linking to /p/8N+1 … /p/8N+8 on a loopback address, each
// page after delay: a crawl of it keeps its lanes busy and its queue growing as long
// as the test needs.
func endlessSite(t *testing.T, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		writeEndlessPage(w, n)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// writeEndlessPage writes page n of an endless site: /p/n links /p/8n+1 to /p/8n+8.
func writeEndlessPage(w http.ResponseWriter, n int) {
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><body><p>page %d</p>", n)
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(w, `<a href="/p/%d">%d</a> `, 8*n+i, i)
	}
	fmt.Fprint(w, "</body></html>")
}

// startEndlessCrawl starts an embedded NATS server and a master crawling an
// endless loopback site (pages served after delay), its egress table holding m3
// for a worker; conn connects a client to the server.
func startEndlessCrawl(t *testing.T, delay time.Duration) (*Engine, func(name string) *cluster.Conn) {
	t.Helper()
	return startCrawlOf(t, endlessSite(t, delay)+"/p/0")
}

// startCrawlOf is startEndlessCrawl for the site of seed.
// startNodeB2 starts worker b2 for the master m and returns it with a reading of
// its row on m's Nodes pane (empty while m has none).
func startNodeB2(t *testing.T, m *Engine, conn func(name string) *cluster.Conn) (*Worker, func() view.Node) {
	t.Helper()
	w := startWorker(t, config.WorkerOptions{Conn: conn("b2"), Node: "b2", AllowPrivate: []string{"127.0.0.0/8"}})
	return w, func() view.Node {
		for _, n := range m.Snapshot().Nodes {
			if n.Name == "b2" {
				return n
			}
		}
		return view.Node{}
	}
}

// logLines is the master m's log lines that hold sub, oldest first.
func logLines(m *Engine, sub string) []string {
	var lines []string
	for _, ev := range m.EventsSince(0, 100000) {
		if strings.Contains(ev.Msg, sub) {
			lines = append(lines, ev.Msg)
		}
	}
	return lines
}

func startCrawlOf(t *testing.T, seed string) (*Engine, func(name string) *cluster.Conn) {
	t.Helper()
	dir, conn := natstest.Start(t)
	o := testDefaults()
	o.DB = filepath.Join(dir, "crawl.db")
	o.Seeds = []string{seed}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Egress = []string{"m3=bind:127.0.0.72"} // the master's table: granted to the worker
	o.Rotation.PerNode = 1
	o.HostRate = 0
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.Revisit.Enabled = false
	m := startMaster(t, o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: 200 * time.Millisecond})
	return m, conn
}

// A worker killed mid-crawl (silent: no leave) is declared dead; its row on the
// master's Nodes pane then shows what is true: no egress held (its grant is back
// in the table, the Egress pane shows it free), no lane, no rate. Its results stay.
// Before, the row kept its last heartbeat's egresses, lanes and pages/s
// ("b2 dead 33s ago ! b2-e1, m3, m4  8/8  2.2").
func TestDeadWorkersRowHoldsNothing(t *testing.T) {
	t.Parallel()
	m, conn := startEndlessCrawl(t, 0)
	w, row := startNodeB2(t, m, conn)
	waitFor(t, "b2 fetching through m3 with a lane and a rate", func() bool {
		n := row()
		return n.State == view.NodeActive && n.Lanes > 0 && n.PagesPerSec > 0 && strings.Contains(strings.Join(n.Egresses, ","), "m3")
	})
	w.Close() // killed: no leave, no heartbeat from here
	waitFor(t, "b2 declared dead", func() bool { return row().State == view.NodeDead })
	n := row()
	if len(n.Egresses) != 0 || n.Lanes != 0 || n.PagesPerSec != 0 {
		t.Errorf("dead b2's row: egresses %v, lanes %d/%d, %.1f pages/s; want none, 0, 0", n.Egresses, n.Lanes, n.LanesMax, n.PagesPerSec)
	}
	if n.Results == 0 {
		t.Errorf("dead b2's row lost its results: %+v", n)
	}
	free := false
	if eg := m.Snapshot().Egress; eg != nil {
		for _, r := range eg.Egresses {
			free = free || r.Name == "m3" && r.State == "free"
		}
	}
	if !free {
		t.Errorf("m3 not free on the Egress pane after b2 died: %+v", m.Snapshot().Egress)
	}
}

// A worker's graceful leave is one line in the master's log, with the tasks it
// handed back. Its two requests (the hand-back, then the final leave once its
// fetches reported) each logged one: "worker b2 leaving: 330 tasks handed back",
// then "worker b2 leaving: 0 tasks handed back".
func TestWorkerLeaveIsLoggedOnce(t *testing.T) {
	t.Parallel()
	m, conn := startEndlessCrawl(t, 100*time.Millisecond) // slow pages: tasks wait on the worker's board
	w := startWorker(t, config.WorkerOptions{Conn: conn("b2"), Node: "b2", AllowPrivate: []string{"127.0.0.0/8"}})
	waitFor(t, "tasks queued on b2 beyond its two lanes", func() bool { return w.Engine().Snapshot().QueueDepth >= 4 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.Leave(ctx); err != nil {
		t.Fatalf("leave: %v", err)
	}
	lines := logLines(m, "worker b2 leaving")
	if len(lines) != 1 {
		t.Fatalf("the master logged b2's leave %d times: %q; want once", len(lines), lines)
	}
	var n int
	if _, err := fmt.Sscanf(lines[0], "worker b2 leaving: %d tasks handed back", &n); err != nil || n < 1 {
		t.Errorf("the leave line %q; want the tasks b2 handed back (it had some queued)", lines[0])
	}
}

// A worker whose heartbeats stop while it finishes its leave (a loaded box) is
// declared dead, answered "unknown" once they come again, and rejoins to report the
// fetches in its hand before its final leave. The master's log says it left once,
// and the Nodes pane shows it leaving after the rejoin, then left. Before, the
// rejoin made it active again and its final leave was logged a second time:
// "worker b2 leaving: 1 tasks handed back", then "worker b2 leaving: 2 tasks
// handed back".
func TestWorkerDeclaredDeadMidLeaveIsLoggedLeavingOnce(t *testing.T) {
	t.Parallel()
	// /p/0 links to eight pages, each answered only once the test lets them go:
	// b2's lane on the host hangs on one of them, the others wait on its board.
	// asked says a lane's request for one reached the site: a lane counted busy
	// may not have taken a task yet, and a worker with nothing in hand finishes
	// its leave at once, before any death (it is shown left, never dead).
	gate, asked := make(chan struct{}), make(chan struct{}, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/p/") {
			http.NotFound(w, r) // robots.txt among them
			return
		}
		if r.URL.Path != "/p/0" {
			select {
			case asked <- struct{}{}:
			default:
			}
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>")
		if r.URL.Path == "/p/0" {
			for i := 1; i <= 8; i++ {
				fmt.Fprintf(w, `<a href="/p/%d">%d</a> `, i, i)
			}
		}
		fmt.Fprint(w, "</body></html>")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(open)

	m, conn := startCrawlOf(t, "http://"+ln.Addr().String()+"/p/0")
	w, row := startNodeB2(t, m, conn)
	select {
	case <-asked:
	case <-time.After(patience):
		t.Fatal("timed out waiting for b2 to request a held page")
	}
	waitFor(t, "others queued on b2's board", func() bool { return w.Engine().Snapshot().QueueDepth > 0 })
	resume := w.SilenceHeartbeats()
	defer resume()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	left := make(chan error, 1)
	go func() { left <- w.Leave(ctx) }()
	waitFor(t, "b2 declared dead during its leave", func() bool { return row().State == view.NodeDead })
	resume()
	waitFor(t, "b2 rejoined", func() bool { return row().State != view.NodeDead })
	if s := row().State; s != view.NodeLeaving {
		t.Errorf("b2 is %q on the Nodes pane after its rejoin mid-leave; want leaving", s)
	}
	open() // its last fetches end and report: the final leave
	if err := <-left; err != nil {
		t.Fatalf("leave: %v", err)
	}
	lines := logLines(m, "worker b2 leaving")
	if len(lines) != 1 {
		t.Errorf("the master logged b2's leave %d times: %q; want once", len(lines), lines)
	}
	if s := row().State; s != view.NodeLeft {
		t.Errorf("b2 is %q after its final leave; want left", s)
	}
}
