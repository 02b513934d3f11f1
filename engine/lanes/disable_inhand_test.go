package lanes_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
)

// TestAHostDisabledWhileALaneHoldsItsTaskIsNotRequested: the operator disables a
// host while a lane holds one of its tasks, waiting at the gate or for the
// worker's lease (a master restarting: the lease runs out until the worker
// rejoins). The lane defers the task when its wait ends; the host sees no request
// of it. Sent, it reached a host the operator had disabled, after the disable.
func TestAHostDisabledWhileALaneHoldsItsTaskIsNotRequested(t *testing.T) {
	t.Parallel()
	pages, f, url := runHeldTask(t, func(r *lanes.Runner, host string) { r.DisableHost(host, time.Hour) })
	if pages != 0 {
		t.Errorf("the host, disabled while a lane held its task, was requested %d times after the disable", pages)
	}
	if len(f.deferred) != 1 || f.deferred[0].URL != url || len(f.delivered) != 0 {
		t.Errorf("the held task of the disabled host was deferred %d times and delivered %d times; want deferred once (its URL waits for the disable's end)", len(f.deferred), len(f.delivered))
	}
}

// TestAHostPausedWhileALaneHoldsItsTaskIsNotRequested: the operator pauses a host
// while a lane waits with its task in hand: the task goes back to the lane's
// queue to wait for the resume, unsent, as one taken after the pause does.
func TestAHostPausedWhileALaneHoldsItsTaskIsNotRequested(t *testing.T) {
	t.Parallel()
	pages, f, url := runHeldTask(t, func(r *lanes.Runner, host string) {
		r.Mu.Lock()
		r.SetHostPaused(host, true)
		r.Mu.Unlock()
	})
	if pages != 0 {
		t.Errorf("the host, paused while a lane held its task, was requested %d times after the pause", pages)
	}
	if len(f.aside) != 1 || f.aside[0].URL != url || len(f.delivered) != 0 || len(f.deferred) != 0 {
		t.Errorf("the held task of the paused host was set aside %d times, delivered %d, deferred %d; want set aside once (it waits for the resume)", len(f.aside), len(f.delivered), len(f.deferred))
	}
	if f.abandoned[url] != 1 {
		t.Errorf("the set-aside task was marked unprocessed %d times, want once (a restart fetches it)", f.abandoned[url])
	}
}

// runHeldTask runs one lane over one task of a loopback site whose operator's
// control (hold) comes while the lane waits for the task's lease, the last moment
// before the request leaves. It returns the site's page requests, the front and
// the task's URL.
func runHeldTask(t *testing.T, hold func(r *lanes.Runner, host string)) (pages int32, f *markingFront, url string) {
	t.Helper()
	var n atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		n.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	t.Cleanup(site.Close)

	f = &markingFront{}
	r := twoEgressRunner(t, f, []string{"bind:127.0.0.1"})
	const host, lease = "127.0.0.1", 7
	r.Lease = func(_ context.Context, l uint64) error {
		if l == lease {
			hold(r, host)
		}
		return nil
	}
	url = site.URL + "/page"
	p := r.Board.Add(frontier.Task{URL: url, Host: host, Lease: lease})
	if p.Lane == nil {
		t.Fatal("the task found no lane")
	}
	r.Run(lanes.NewSlot(p.Lane))
	return n.Load(), f, url
}
