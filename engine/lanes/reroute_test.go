package lanes_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
)

// TestARerouteLeavesTheTaskUnprocessed: a task whose egress failed goes back on the
// board for another egress; until a lane begins it again it is unprocessed in the
// store, not in progress. A clean stop that came meanwhile left it in progress, and
// the next start said it went back to the queue because the last run was killed or
// crashed.
func TestARerouteLeavesTheTaskUnprocessed(t *testing.T) {
	t.Parallel()
	site := helloSite(t)
	// A proxy egress that forwards robots.txt and then asks for credentials it was
	// not given (407): a proxy fault, the task moves to the bind egress.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		w.WriteHeader(http.StatusProxyAuthRequired)
	}))
	defer proxy.Close()
	dead := proxy.Listener.Addr().String()

	f := &markingFront{}
	r := twoEgressRunner(t, f, []string{"http://" + dead, "bind:127.0.0.1"})

	p := r.Board.Add(frontier.Task{URL: site.URL + "/", Host: "127.0.0.1"})
	if p.Lane == nil {
		t.Fatal("the task found no lane")
	}
	r.Run(lanes.NewSlot(p.Lane)) // on the proxy's egress: refused, then runs dry
	u := site.URL + "/"
	if f.placed == nil || len(f.delivered) != 0 {
		t.Fatalf("the task was not placed again after the proxy's 407 (delivered %d, deferred %d)", len(f.delivered), len(f.deferred))
	}
	// It waits on the board for the other egress: unprocessed in the store.
	if f.begun[u] != 1 || f.abandoned[u] != 1 {
		t.Errorf("while the rerouted task waits on the board it was marked begun %d times and unprocessed %d times; want 1 and 1 (in progress in the store otherwise)",
			f.begun[u], f.abandoned[u])
	}
	r.Run(lanes.NewSlot(f.placed))
	if len(f.delivered) != 1 || f.delivered[0].Res == nil || f.delivered[0].Res.Status != http.StatusOK {
		t.Fatalf("the rerouted task was not fetched through the other egress: delivered %+v", f.delivered)
	}
	if f.begun[u] != 2 {
		t.Errorf("the rerouted task was begun %d times, want 2 (once a lane)", f.begun[u])
	}
}

// twoEgressRunner is a runner of two lanes at most over egresses (one a egress),
// its front f, fetching at once (no retry, no host cap, 1-2 ms pauses), closed at
// the test's end.
func twoEgressRunner(t *testing.T, f *markingFront, egresses []string) *lanes.Runner {
	t.Helper()
	opts := config.DefaultOptions()
	opts.Now = time.Now
	opts.Lanes.Max = 2
	opts.Lanes.DelayMin, opts.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	opts.Fetch.Retries = 0
	opts.HostRate = 0
	opts.Egress = egresses
	return loopbackRunner(t, &opts, f, &f.fakeFront)
}

// markingFront counts the Abandon calls (the store's unprocessed mark) beside
// fakeFront's Begin count, and keeps the lane a task was placed on again.
type markingFront struct {
	fakeFront
	abandoned map[string]int
	placed    *lanes.Lane
}

func (f *markingFront) Place(t frontier.Task) {
	if p := f.board.Add(t); p.Lane != nil {
		f.placed = p.Lane
	}
}

func (f *markingFront) Abandon(t frontier.Task, _ int) {
	if f.abandoned == nil {
		f.abandoned = map[string]int{}
	}
	f.abandoned[t.URL]++
}

// TestRobotsThroughADeadProxyMovesTheTask: robots.txt asked through a proxy egress
// nobody answers on is the egress's fault, not the site's: the egress is reported to
// the rotation and the task moves to another egress, where robots.txt and the page
// are fetched. It deferred the site as robots_unreachable (a minute at first,
// doubling), as if the site were down.
func TestRobotsThroughADeadProxyMovesTheTask(t *testing.T) {
	t.Parallel()
	site := helloSite(t)
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := gone.Addr().String()
	gone.Close()

	f := &markingFront{}
	r := twoEgressRunner(t, f, []string{"socks5://" + dead, "bind:127.0.0.1"})

	p := r.Board.Add(frontier.Task{URL: site.URL + "/", Host: "127.0.0.1"})
	if p.Lane == nil || r.Links[p.Lane.Egress].Name != "e1" {
		t.Fatal("the task was not placed on the proxy's lane")
	}
	r.Run(lanes.NewSlot(p.Lane))
	if len(f.deferred) != 0 || f.placed == nil {
		t.Fatalf("robots.txt through the dead proxy: task deferred %d times, placed again %v; want it moved to the other egress, not deferred",
			len(f.deferred), f.placed != nil)
	}
	r.Run(lanes.NewSlot(f.placed))
	if len(f.delivered) != 1 || f.delivered[0].Res == nil || f.delivered[0].Res.Status != http.StatusOK || f.delivered[0].Egress != "e2" {
		t.Fatalf("the moved task was not fetched through e2: delivered %+v", f.delivered)
	}
}

// helloSite serves one small HTML page at every path, robots.txt included (it
// reads as no rules), closed at the test's end.
func helloSite(t *testing.T) *httptest.Server {
	t.Helper()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	t.Cleanup(site.Close)
	return site
}
