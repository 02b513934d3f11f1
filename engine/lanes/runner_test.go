package lanes_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// TestRunnerNeedsOnlyItsPort: a lane runs with no engine behind it, only a front
// written against lanes.Front: the tasks it hands out are fetched, a page robots.txt
// allows comes back as a response, one it disallows as robots_disallowed (never
// requested), and a site whose robots.txt is down has its task deferred through the
// port, not delivered.
func TestRunnerNeedsOnlyItsPort(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	requested := map[string]int{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requested[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nDisallow: /private\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	defer site.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer down.Close()

	opts := config.DefaultOptions()
	opts.Now = time.Now
	opts.Lanes.Max = 1
	opts.Lanes.DelayMin, opts.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	opts.Fetch.Retries = 0
	opts.HostRate = 0 // one host here (127.0.0.1): no per-host cap to wait on
	f := &fakeFront{}
	r := loopbackRunner(t, &opts, f, f)

	var lane *lanes.Lane
	for _, u := range []string{site.URL + "/", site.URL + "/private", down.URL + "/"} {
		p := r.Board.Add(frontier.Task{URL: u, Host: "127.0.0.1"})
		if p.Lane != nil {
			lane = p.Lane
		}
	}
	r.Run(lanes.NewSlot(lane)) // returns when the lane runs dry

	got := map[string]string{}
	for _, o := range f.delivered {
		kind := o.Kind
		if kind == "" && o.Res != nil {
			kind = http.StatusText(o.Res.Status)
		}
		got[o.Task.URL] = kind
	}
	if got[site.URL+"/"] != "OK" || got[site.URL+"/private"] != fetch.KindRobots || len(got) != 2 {
		t.Errorf("delivered %v; want %s/ as a 200 response and %s/private as %s", got, site.URL, site.URL, fetch.KindRobots)
	}
	mu.Lock()
	private := requested["/private"]
	mu.Unlock()
	if private != 0 {
		t.Errorf("the disallowed page was requested %d times", private)
	}
	if len(f.deferred) != 1 || f.deferred[0].URL != down.URL+"/" {
		t.Errorf("deferred %v; want the task of the site whose robots.txt is down", f.deferred)
	}
	if f.begun[site.URL+"/"] != 1 {
		t.Errorf("the fetched page was marked begun %d times, want once", f.begun[site.URL+"/"])
	}
}

// loopback resolves every name to 127.0.0.1 (the test's servers are IP literals).
type loopback struct{}

func (loopback) LookupAddrs(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// fakeFront is the least a front does: hand out the board's tasks and keep what

// loopbackRunner builds a runner over opts for front (its Front and Record),
// fetching on loopback only, its gate made, closed at the test's end; ff, the
// fake front inside front, gets the runner's board.
func loopbackRunner(t *testing.T, opts *config.Options, front interface {
	lanes.Front
	lanes.Record
}, ff *fakeFront) *lanes.Runner {
	t.Helper()
	var runMu sync.Mutex
	r := lanes.NewRunner(context.Background(), &runMu, opts, front, front)
	guard, err := fetch.NewGuard([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetupEgress(lanes.EgressSetup{Resolver: loopback{}, Guard: guard, Fetch: r.FetchConfig()}); err != nil {
		t.Fatal(err)
	}
	r.NewGate()
	t.Cleanup(r.Close)
	ff.board = r.Board
	return r
}

// comes back. Runner.Run calls it from one goroutine here.
type fakeFront struct {
	board     *lanes.Board
	delivered []lanes.Outcome
	deferred  []frontier.Task
	aside     []frontier.Task // set aside in hand, its host paused
	begun     map[string]int
}

func (f *fakeFront) Opened(int, string) {}
func (f *fakeFront) Next(s *lanes.Slot) (frontier.Task, bool) {
	t, ok, _ := f.board.Next(s.Lane)
	return t, ok
}
func (f *fakeFront) Hold(*lanes.Slot, frontier.Task) (bool, bool) { return true, false }
func (f *fakeFront) Release(frontier.Task, bool)                  {}
func (f *fakeFront) SetAsideInHand(_ *lanes.Slot, t frontier.Task) bool {
	f.aside = append(f.aside, t)
	return true
}
func (f *fakeFront) CheckIdle()                                  {}
func (f *fakeFront) Place(t frontier.Task)                       { f.board.Add(t) }
func (f *fakeFront) OffBoard(ts []frontier.Task) []frontier.Task { return ts }
func (f *fakeFront) Defer(t frontier.Task, until time.Time)      { f.deferred = append(f.deferred, t) }
func (f *fakeFront) DeferBehind(t frontier.Task, until time.Time, _ string) {
	f.deferred = append(f.deferred, t)
}
func (f *fakeFront) DeferAs(t frontier.Task, until time.Time, _ string) {
	f.deferred = append(f.deferred, t)
}
func (f *fakeFront) Flush() {}
func (f *fakeFront) SwapForUrgent(*lanes.Slot, frontier.Task) (bool, bool) {
	return false, false
}
func (f *fakeFront) Prepare(*lanes.Outcome) {}
func (f *fakeFront) Begin(t frontier.Task, _ int) {
	if f.begun == nil {
		f.begun = map[string]int{}
	}
	f.begun[t.URL]++
}
func (f *fakeFront) Abandon(frontier.Task, int)                   {}
func (f *fakeFront) Deliver(o lanes.Outcome)                      { f.delivered = append(f.delivered, o) }
func (f *fakeFront) Refused(model.Refusal)                        {}
func (f *fakeFront) Error(string, string)                         {}
func (f *fakeFront) Response(int)                                 {}
func (f *fakeFront) Fetched()                                     {}
func (f *fakeFront) Refusal()                                     {}
func (f *fakeFront) ConfirmFetch()                                {}
func (f *fakeFront) Cost(time.Duration)                           {}
func (f *fakeFront) Logf(view.Level, int, string, string, ...any) {}
