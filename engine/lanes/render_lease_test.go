package lanes_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
)

// leaseLostRender is a renderer whose one render waits for a browser page while
// the worker's lease is lost (lost), then sends the page's one request.
type leaseLostRender struct {
	lost *atomic.Bool
	url  string
	err  error // what the page's request answered
}

func (l *leaseLostRender) Plan(string, *fetch.Result) (func(context.Context, lanes.Send) *fetch.Rendering, bool) {
	return func(ctx context.Context, send lanes.Send) *fetch.Rendering {
		l.lost.Store(true) // the master gave the host to another worker meanwhile
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.url, nil)
		if err != nil {
			l.err = err
			return &fetch.Rendering{Note: err.Error()}
		}
		_, l.err = send(ctx, req)
		return &fetch.Rendering{Note: "test render"}
	}, true // awaited: Run returns once it ended
}

// TestARendersRequestAfterTheWorkersLeaseWasLostIsNotSent: a render waits for a
// browser page while the pool serves others, for longer than its time cap on a
// loaded box, and a worker's lease may run out and its host go to another worker
// meanwhile. The page's own requests then wait for the lease as the lane's do
// (M4): a lost lease sends none, so two workers never ask one host at once.
func TestARendersRequestAfterTheWorkersLeaseWasLostIsNotSent(t *testing.T) {
	t.Parallel()
	var lost atomic.Bool
	site, after := countingSite(t, &lost) // after: requests the site read once the lease was lost
	f := &markingFront{}
	r := twoEgressRunner(t, f, []string{"bind:127.0.0.1"})
	const lease = 7
	errLost := errors.New("lease lost: the master gave the host to another worker")
	r.Lease = func(_ context.Context, l uint64) error {
		if lost.Load() && l == lease {
			return errLost
		}
		return nil
	}
	rd := &leaseLostRender{lost: &lost, url: site.URL + "/app.js"}
	r.Render = rd
	p := r.Board.Add(frontier.Task{URL: site.URL + "/page", Host: "127.0.0.1", Lease: lease})
	if p.Lane == nil {
		t.Fatal("the task found no lane")
	}
	r.Run(lanes.NewSlot(p.Lane))
	if !lost.Load() {
		t.Fatal("the page was not rendered")
	}
	if n := after.Load(); n > 0 || !errors.Is(rd.err, errLost) {
		t.Errorf("the render's request after the lease was lost: %d sent, answered %v; want none sent, the lease's error", n, rd.err)
	}
}

// countingSite is a site that allows every path and serves a page on each, counting
// in after the requests it read once from was set.
func countingSite(t *testing.T, from *atomic.Bool) (site *httptest.Server, after *atomic.Int32) {
	t.Helper()
	after = new(atomic.Int32)
	site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if from.Load() {
			after.Add(1)
		}
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	t.Cleanup(site.Close)
	return site, after
}
