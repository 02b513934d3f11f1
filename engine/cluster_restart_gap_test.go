package engine

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/config"
)

// starts are the request starts from ip, in order.
func (s *freezableSite) startsFrom(ip string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.starts[ip]...)
}

// A master restarted on its database knows no host's last request. The worker that
// held a host before the restart never comes back (cut off), so the host goes to
// another once the grace period is over; that worker's first request to it must
// still come the host's gap (2 s) after the old holder's last. Before, the new
// master dealt the host with no last request at all and the new holder started
// about half a second after the old one's request.
func TestMasterRestartKeepsTheHostGap(t *testing.T) {
	t.Parallel()
	site := startFreezableSite(t)
	dir, conn := natstest.Start(t)
	const gap = 2 * time.Second
	o := config.DefaultOptions()
	o.DB = filepath.Join(dir, "crawl.db")
	o.Seeds = []string{site.url + "/p/0"}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.HostRate = float64(time.Second) / float64(gap)
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.Revisit.Enabled = false
	master := func(name string) *Engine {
		return startMaster(t, o, config.MasterOptions{Conn: conn(name), HeartbeatEvery: 100 * time.Millisecond})
	}
	worker := func(name, ip string) {
		startWorker(t, config.WorkerOptions{Conn: conn(name), Node: name, Egress: []string{"bind:" + ip}, AllowPrivate: []string{"127.0.0.0/8"}})
	}
	m1 := master("master")
	w1conn := conn("w1")
	startWorker(t, config.WorkerOptions{Conn: w1conn, Node: "w1", Egress: []string{"bind:127.0.0.2"}, AllowPrivate: []string{"127.0.0.0/8"}})
	waitFor(t, "w1's second request", func() bool { return len(site.startsFrom("127.0.0.2")) >= 2 })
	// The master stops right after one of w1's requests, and w1 is cut off with it.
	n := len(site.startsFrom("127.0.0.2"))
	waitFor(t, "w1's next request", func() bool { return len(site.startsFrom("127.0.0.2")) > n })
	m1.Close()
	w1conn.Close()
	o.Seeds = nil
	master("master2")
	worker("w2", "127.0.0.3")
	waitFor(t, "w2 requesting the host", func() bool { return len(site.startsFrom("127.0.0.3")) > 0 })
	w1s := site.startsFrom("127.0.0.2")
	last, first := w1s[len(w1s)-1], site.startsFrom("127.0.0.3")[0]
	if d := first.Sub(last); d < gap {
		t.Fatalf("w2's first request came %v after w1's last, across the master's restart; the host's gap is %v", d.Round(time.Millisecond), gap)
	}
}
