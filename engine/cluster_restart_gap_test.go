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
// held a host before the restart never comes back (cut off mid-request, so its
// result reaches no master), and the host goes to another once the grace period is
// over; that worker's first request to it must still come the host's gap (2 s)
// after the old holder's last. The old holder may have requested the host until
// the restart, so the gap counts from the restart: the test's worst case is a
// worker, w2, waiting to join before the new master starts, dealt the host the
// first moment the master allows. A master that counts no gap across its restart
// deals the host at the grace period's end, and w2 asks it about half a second
// after the restart.
func TestMasterRestartKeepsTheHostGap(t *testing.T) {
	t.Parallel()
	site := startFreezableSite(t)
	dir, conn := natstest.Start(t)
	const gap = 2 * time.Second
	o := testDefaults()
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
	m1 := master("master")
	w1conn := conn("w1")
	startWorker(t, config.WorkerOptions{Conn: w1conn, Node: "w1", Egress: []string{"bind:127.0.0.2"}, AllowPrivate: []string{"127.0.0.0/8"}})
	waitFor(t, "w1's second request", func() bool { return len(site.startsFrom("127.0.0.2")) >= 2 })
	// The master stops while one of w1's requests is in flight, and w1 is cut off
	// with it: no result tells the new master of that request.
	site.freeze("127.0.0.2")
	waitFor(t, "w1's next request in flight", func() bool { return site.stillHanging() > 0 })
	m1.Close()
	w1conn.Close()
	o.Seeds = nil
	// w2 asks to join before the new master listens (a join is tried again until
	// one answers), so it is there when the master first deals the host.
	var w2 *Worker
	var w2err error
	joined := make(chan struct{})
	w2conn := conn("w2")
	go func() {
		defer close(joined)
		// Its join waits for the master's start as long as the test's other
		// steps may take on a loaded box, not the default 30 s.
		w2, w2err = StartWorker(config.WorkerOptions{Conn: w2conn, Node: "w2", Egress: []string{"bind:127.0.0.3"}, AllowPrivate: []string{"127.0.0.0/8"}, JoinTimeout: patience})
	}()
	t.Cleanup(func() {
		if <-joined; w2 != nil {
			w2.Close()
		}
	})
	restart := time.Now()
	master("master2")
	if <-joined; w2err != nil {
		t.Fatal(w2err)
	}
	waitFor(t, "w2 requesting the host", func() bool { return len(site.startsFrom("127.0.0.3")) > 0 })
	w1s := site.startsFrom("127.0.0.2")
	last, first := w1s[len(w1s)-1], site.startsFrom("127.0.0.3")[0]
	if d := first.Sub(last); d < gap {
		t.Errorf("w2's first request came %v after w1's last, across the master's restart; the host's gap is %v", d.Round(time.Millisecond), gap)
	}
	if d := first.Sub(restart); d < gap {
		t.Errorf("w2's first request came %v after the master's restart, which knows no request of w1's before it; the host's gap is %v", d.Round(time.Millisecond), gap)
	}
}
