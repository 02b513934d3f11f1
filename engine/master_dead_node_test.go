package engine

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
)

// endlessSite serves /p/N linking to /p/N+1 and /p/N+2 on a loopback address: a
// crawl of it keeps its lanes busy as long as the test needs.
func endlessSite(t *testing.T) string {
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
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><p>page %d</p><a href="/p/%d">a</a> <a href="/p/%d">b</a></body></html>`, n, n+1, n+2)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// A worker killed mid-crawl (silent: no leave) is declared dead; its row on the
// master's Nodes pane then shows what is true: no egress held (its grant is back
// in the table, the Egress pane shows it free), no lane, no rate. Its results stay.
// Before, the row kept its last heartbeat's egresses, lanes and pages/s
// ("b2 dead 33s ago ! b2-e1, m3, m4  8/8  2.2").
func TestDeadWorkersRowHoldsNothing(t *testing.T) {
	dir := t.TempDir()
	srv, err := cluster.StartServer(cluster.ServerOptions{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats"), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
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
	o.Seeds = []string{endlessSite(t) + "/p/0"}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Egress = []string{"m3=bind:127.0.0.72"} // the master's table: granted to the worker
	o.Rotation.PerNode = 1
	o.HostRate = 0
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.Revisit.Enabled = false
	m, err := NewMaster(o, MasterOptions{Conn: conn("master"), HeartbeatEvery: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	w, err := StartWorker(WorkerOptions{Conn: conn("b2"), Node: "b2", AllowPrivate: []string{"127.0.0.0/8"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	row := func() Node {
		for _, n := range m.Snapshot().Nodes {
			if n.Name == "b2" {
				return n
			}
		}
		return Node{}
	}
	waitFor(t, "b2 fetching through m3 with a lane and a rate", func() bool {
		n := row()
		return n.State == NodeActive && n.Lanes > 0 && n.PagesPerSec > 0 && strings.Contains(strings.Join(n.Egresses, ","), "m3")
	})
	w.Close() // killed: no leave, no heartbeat from here
	waitFor(t, "b2 declared dead", func() bool { return row().State == NodeDead })
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
