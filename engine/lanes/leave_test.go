package lanes_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
)

// TestMayLeave: the one step every request passes right before it leaves says
// whether it may: not when the crawl or its caller stopped (the lease is not
// waited for), nor when the worker's lease on its hand-out was lost, nor when the
// operator holds its host (paused or disabled), a hold made during the lease's
// wait included. A redirect's hop asks no lease of its own.
func TestMayLeave(t *testing.T) {
	t.Parallel()
	const lease = 7
	errLost := errors.New("lease lost: the master gave the host to another worker")
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name  string
		ctx   context.Context
		lease uint64
		hold  func(r *lanes.Runner, host string) // before the step
		wait  func(r *lanes.Runner, host string) // during the lease's wait
		lost  bool                               // the lease's answer: lost
		want  error
		asked []uint64 // the leases waited for
	}{
		{name: "free", ctx: context.Background(), lease: lease, asked: []uint64{lease}},
		{name: "robots.txt", ctx: context.Background(), lease: 0, asked: []uint64{0}},
		{name: "paused", ctx: context.Background(), lease: lease, hold: pause, want: lanes.ErrHostHeld, asked: []uint64{lease}},
		{name: "disabled", ctx: context.Background(), lease: lease, hold: disable, want: lanes.ErrHostHeld, asked: []uint64{lease}},
		{name: "paused during the lease's wait", ctx: context.Background(), lease: lease, wait: pause, want: lanes.ErrHostHeld, asked: []uint64{lease}},
		{name: "lease lost", ctx: context.Background(), lease: lease, lost: true, want: lanes.ErrLeaseLost, asked: []uint64{lease}},
		{name: "lease lost, host held", ctx: context.Background(), lease: lease, hold: pause, lost: true, want: lanes.ErrLeaseLost, asked: []uint64{lease}},
		{name: "ctx ended", ctx: ended, lease: lease, hold: pause, want: context.Canceled},
		{name: "redirect hop", ctx: context.Background(), lease: lanes.InLease, lost: true},
		{name: "redirect hop, held", ctx: context.Background(), lease: lanes.InLease, hold: disable, want: lanes.ErrHostHeld},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := twoEgressRunner(t, &markingFront{}, []string{"bind:127.0.0.1"})
			const host = "a.example"
			var asked []uint64
			r.Lease = func(ctx context.Context, l uint64) error {
				asked = append(asked, l)
				if c.wait != nil {
					c.wait(r, host)
				}
				if c.lost {
					return errLost
				}
				return nil
			}
			if c.hold != nil {
				c.hold(r, host)
			}
			err := r.MayLeave(c.ctx, host, c.lease)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("answered %v, want %v", err, c.want)
			}
			if c.lost && c.want == lanes.ErrLeaseLost && !errors.Is(err, errLost) {
				t.Errorf("answered %v, which does not carry the lease's own answer", err)
			}
			if len(asked) != len(c.asked) || len(asked) > 0 && asked[0] != c.asked[0] {
				t.Errorf("waited for leases %v, want %v", asked, c.asked)
			}
		})
	}
}

func pause(r *lanes.Runner, host string) {
	r.Mu.Lock()
	r.SetHostPaused(host, true)
	r.Mu.Unlock()
}

func disable(r *lanes.Runner, host string) { r.DisableHost(host, time.Hour) }

// holdingRender is a renderer whose one render sends the page's one request.
type holdingRender struct {
	url     string
	sending *atomic.Bool // set as the render sends
	err     error        // what the page's request answered
}

func (h *holdingRender) Plan(string, *fetch.Result) (func(context.Context, lanes.Send) *fetch.Rendering, bool) {
	return func(ctx context.Context, send lanes.Send) *fetch.Rendering {
		h.sending.Store(true)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
		if err == nil {
			_, err = send(ctx, req)
		}
		h.err = err
		return &fetch.Rendering{Note: "test render"}
	}, true
}

// TestARendersRequestWhoseHostIsHeldDuringTheLeasesWaitIsNotSent: a render's own
// request waits for the worker's lease after the gate, as the lane's do, and the
// operator may hold its host meanwhile (the wait can be long: a master
// restarting). The hold holds the request: the host sees none after it.
func TestARendersRequestWhoseHostIsHeldDuringTheLeasesWaitIsNotSent(t *testing.T) {
	t.Parallel()
	for _, hold := range []struct {
		name string
		f    func(r *lanes.Runner, host string)
	}{{"paused", pause}, {"disabled", disable}} {
		t.Run(hold.name, func(t *testing.T) {
			t.Parallel()
			var sending atomic.Bool
			site, after := countingSite(t, &sending) // after: requests the site read once the render sent
			r := twoEgressRunner(t, &markingFront{}, []string{"bind:127.0.0.1"})
			const host, lease = "127.0.0.1", 7
			r.Lease = func(_ context.Context, l uint64) error {
				if sending.Load() && l == lease {
					hold.f(r, host) // held while the render's request waited for the lease
				}
				return nil
			}
			rd := &holdingRender{url: site.URL + "/app.js", sending: &sending}
			r.Render = rd
			p := r.Board.Add(frontier.Task{URL: site.URL + "/page", Host: host, Lease: lease})
			if p.Lane == nil {
				t.Fatal("the task found no lane")
			}
			r.Run(lanes.NewSlot(p.Lane))
			if !sending.Load() {
				t.Fatal("the page was not rendered")
			}
			if n := after.Load(); n > 0 || !errors.Is(rd.err, lanes.ErrHostHeld) {
				t.Errorf("the render's request to a host held during its lease's wait: %d sent, answered %v; want none sent, held", n, rd.err)
			}
		})
	}
}

// TestARefusalsRefetchAfterTheWorkersLeaseWasLostIsNotSent: a page that reads as
// a soft refusal is asked again to confirm it, under the worker's lease as any
// request: when the master gave the host to another worker meanwhile, it is not
// asked again, and the task is dropped as the worker's other tasks of a lost lease.
func TestARefusalsRefetchAfterTheWorkersLeaseWasLostIsNotSent(t *testing.T) {
	t.Parallel()
	var lost atomic.Bool
	var after atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		if lost.Swap(true) {
			after.Add(1)
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(captcha))
	}))
	t.Cleanup(site.Close)
	f := &markingFront{}
	r := twoEgressRunner(t, f, []string{"bind:127.0.0.1"})
	const lease = 7
	r.Lease = func(_ context.Context, l uint64) error {
		if lost.Load() && l == lease {
			return errors.New("lease lost: the master gave the host to another worker")
		}
		return nil
	}
	p := r.Board.Add(frontier.Task{URL: site.URL + "/page", Host: "127.0.0.1", Lease: lease})
	if p.Lane == nil {
		t.Fatal("the task found no lane")
	}
	r.Run(lanes.NewSlot(p.Lane))
	if n := after.Load(); n > 0 || len(f.delivered) != 0 || len(f.deferred) != 0 {
		t.Errorf("after the lease was lost: the page asked again %d times, the task delivered %d times, deferred %d; want none", n, len(f.delivered), len(f.deferred))
	}
}
