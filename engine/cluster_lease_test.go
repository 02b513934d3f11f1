package engine

import (
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// freezableSite is endlessSite that logs who asked for what and when, and can hold
// every request from one source address unanswered (the worker leaving from it
// stopped mid-request, as far as its lanes go).
type freezableSite struct {
	url string

	mu       sync.Mutex
	starts   map[string][]time.Time // source IP -> request starts
	frozenIP string
	thaw     chan struct{}
	hanging  int // requests held unanswered
}

func startFreezableSite(t *testing.T) *freezableSite {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &freezableSite{url: "http://" + ln.Addr().String(), starts: map[string][]time.Time{}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip, _, _ := net.SplitHostPort(r.RemoteAddr)
		s.mu.Lock()
		s.starts[ip] = append(s.starts[ip], time.Now())
		thaw := s.thaw
		if ip != s.frozenIP {
			thaw = nil
		}
		s.mu.Unlock()
		if thaw != nil {
			s.mu.Lock()
			s.hanging++
			s.mu.Unlock()
			select {
			case <-thaw:
			case <-r.Context().Done(): // the client gave up on it
				s.mu.Lock()
				s.hanging--
				s.mu.Unlock()
				return
			}
		}
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		writeEndlessPage(w, n)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { s.unfreeze(); srv.Close() })
	return s
}

func (s *freezableSite) freeze(ip string) {
	s.mu.Lock()
	s.frozenIP, s.thaw = ip, make(chan struct{})
	s.mu.Unlock()
}

// stillHanging is how many requests are held unanswered, their clients still waiting.
func (s *freezableSite) stillHanging() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hanging
}

// unfreeze answers the requests held and returns how many there were.
func (s *freezableSite) unfreeze() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.thaw != nil {
		close(s.thaw)
	}
	n := s.hanging
	s.frozenIP, s.thaw, s.hanging = "", nil, 0
	return n
}

// requestsSince counts the requests from ip that started after t.
func (s *freezableSite) requestsSince(ip string, t time.Time) int {
	return s.requestsBetween(ip, t, time.Time{})
}

// requestsBetween counts the requests from ip that started after from and, unless
// to is zero, before to.
func (s *freezableSite) requestsBetween(ip string, from, to time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, at := range s.starts[ip] {
		if at.After(from) && (to.IsZero() || at.Before(to)) {
			n++
		}
	}
	return n
}

// A worker that stops (SIGSTOP, a long pause, a partition: silent, its requests
// hanging) is declared dead and its host goes to another worker. When it comes back
// it must not fetch the tasks it still holds for that host: its lease ran out while
// it was away, so its lanes wait for the master, and the rejoin tells them the
// tasks are another worker's: they are dropped unfetched. Before, the lanes went on
// with their queue at once ("about 40 queued requests within milliseconds, for
// hosts it no longer held").
func TestPausedWorkerFetchesNothingOfLostHosts(t *testing.T) {
	t.Parallel()
	site := startFreezableSite(t)
	dir, conn := natstest.Start(t)
	o := testDefaults()
	o.DB = filepath.Join(dir, "crawl.db")
	o.Seeds = []string{site.url + "/p/0"}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.HostRate = 0
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.Revisit.Enabled = false
	// A request w1 hangs in ends with its lease, not with fetch.timeout (it
	// could run on past the moment the host is w2's).
	o.Fetch.Timeout = time.Hour
	m := startMaster(t, o, config.MasterOptions{Conn: conn("master"), HeartbeatEvery: 200 * time.Millisecond})
	worker := func(name, ip string) *Worker {
		w := startWorker(t, config.WorkerOptions{Conn: conn(name), Node: name, Egress: []string{"bind:" + ip}, AllowPrivate: []string{"127.0.0.0/8"}})
		return w
	}
	state := func(name string) view.NodeState {
		for _, n := range m.Snapshot().Nodes {
			if n.Name == name {
				return n.State
			}
		}
		return ""
	}
	w1 := worker("w1", "127.0.0.2")
	waitFor(t, "w1 fetching with tasks queued", func() bool {
		return site.requestsSince("127.0.0.2", time.Time{}) >= 3 && w1.Engine().Snapshot().QueueDepth >= 4
	})
	// w1 stops: its requests hang, its heartbeats stop.
	site.freeze("127.0.0.2")
	resumeBeats := w1.SilenceHeartbeats()
	t.Cleanup(resumeBeats) // a failure below must not leave w1's close waiting on it
	waitFor(t, "w1 declared dead", func() bool { return state("w1") == view.NodeDead })
	waitFor(t, "w1's hung requests cut at its lease's end", func() bool { return site.stillHanging() == 0 })
	worker("w2", "127.0.0.3")
	waitFor(t, "w2 fetching the host w1 lost", func() bool { return site.requestsSince("127.0.0.3", time.Time{}) >= 3 })
	w2Holds := time.Now()
	late := m.Stats().Cluster.LateResults
	// w1 goes on: first its lanes (the request it hung in is answered), its
	// heartbeats a moment later.
	thawed := time.Now()
	if site.unfreeze() > 0 { // (with none hung, its lanes wait for the lease: nothing to report)
		waitFor(t, "w1's hung request reported (late), or w1 fetching again", func() bool {
			return m.Stats().Cluster.LateResults > late || site.requestsSince("127.0.0.2", thawed) > 0
		})
	}
	resumeBeats()
	var rejoinedAt time.Time
	waitFor(t, "w1 rejoined and its lanes let go of what they held", func() bool {
		for _, ev := range w1.Engine().EventsSince(0, 0) {
			if rejoinedAt.IsZero() && strings.Contains(ev.Msg, "joined again") {
				rejoinedAt = ev.At
			}
		}
		s := w1.Engine().Snapshot()
		return !rejoinedAt.IsZero() && s.QueueDepth == 0 && s.LanesBusy == 0
	})
	// The host is w2's as long as the master hears from w2: on a starved box w2
	// too can stay silent past the timeout (800 ms here), and then the master
	// rightly gives the host back to w1, the one worker left — but only once w1
	// has rejoined (the master deals nothing to a dead node). So w1's requests
	// count up to the later of the master's word that w2 was dead (logged as it
	// hands w2's hosts on) and w1's rejoin (logged by w1 once the master took
	// it back); with w2 alive, to the end.
	var w2Dead time.Time
	var deaths []string
	for _, ev := range m.EventsSince(0, 0) {
		if strings.HasPrefix(ev.Msg, "worker w2 is dead") && ev.At.After(w2Holds) {
			if w2Dead.IsZero() {
				w2Dead = ev.At
			}
			deaths = append(deaths, ev.At.Format("15:04:05.000")+" "+ev.Msg)
		}
	}
	if !w2Dead.IsZero() {
		t.Logf("w2 was declared dead %v after w1's thaw: w1's requests count up to then; the master's log: %q", w2Dead.Sub(thawed), deaths)
	}
	until := w2Dead
	if !until.IsZero() && until.Before(rejoinedAt) {
		until = rejoinedAt
	}
	if n := site.requestsBetween("127.0.0.2", thawed, until); n != 0 {
		var rejoin []string
		for _, ev := range w1.Engine().EventsSince(0, 0) {
			if strings.Contains(ev.Msg, "rejoin") {
				rejoin = append(rejoin, ev.Msg)
			}
		}
		t.Fatalf("w1 sent %d requests after it came back, for a host the master had given to w2 (w2 sent %d since); w1's rejoin: %q; w2 declared dead: %q",
			n, site.requestsSince("127.0.0.3", thawed), rejoin, deaths)
	}
}
