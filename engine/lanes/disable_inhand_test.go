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
	var pages atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		pages.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	t.Cleanup(site.Close)

	f := &markingFront{}
	r := twoEgressRunner(t, f, []string{"bind:127.0.0.1"})
	const host, lease = "127.0.0.1", 7
	// The lease's wait is the last moment before the request leaves: the disable
	// comes while the lane waits there with the task in hand.
	r.Lease = func(_ context.Context, l uint64) error {
		if l == lease {
			r.DisableHost(host, time.Hour)
		}
		return nil
	}
	p := r.Board.Add(frontier.Task{URL: site.URL + "/page", Host: host, Lease: lease})
	if p.Lane == nil {
		t.Fatal("the task found no lane")
	}
	r.Run(lanes.NewSlot(p.Lane))
	if n := pages.Load(); n != 0 {
		t.Errorf("%s, disabled while a lane held its task, was requested %d times after the disable", host, n)
	}
	if len(f.deferred) != 1 || f.deferred[0].URL != site.URL+"/page" || len(f.delivered) != 0 {
		t.Errorf("the held task of the disabled host was deferred %d times and delivered %d times; want deferred once (its URL waits for the disable's end)", len(f.deferred), len(f.delivered))
	}
}

// TestAHostPausedWhileALaneHoldsItsTaskIsNotRequested: the operator pauses a host
// while a lane waits with its task in hand (at the lease's wait, the last moment
// before the request leaves): the task goes back to the lane's queue to wait for
// the resume, unsent, as one taken after the pause does.
func TestAHostPausedWhileALaneHoldsItsTaskIsNotRequested(t *testing.T) {
	t.Parallel()
	var pages atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			pages.Add(1)
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	t.Cleanup(site.Close)

	f := &markingFront{}
	r := twoEgressRunner(t, f, []string{"bind:127.0.0.1"})
	const host, lease = "127.0.0.1", 7
	r.Lease = func(_ context.Context, l uint64) error {
		if l == lease {
			r.Mu.Lock()
			r.SetHostPaused(host, true)
			r.Mu.Unlock()
		}
		return nil
	}
	url := site.URL + "/page"
	p := r.Board.Add(frontier.Task{URL: url, Host: host, Lease: lease})
	if p.Lane == nil {
		t.Fatal("the task found no lane")
	}
	r.Run(lanes.NewSlot(p.Lane))
	if n := pages.Load(); n != 0 {
		t.Errorf("%s, paused while a lane held its task, was requested %d times after the pause", host, n)
	}
	if len(f.aside) != 1 || f.aside[0].URL != url || len(f.delivered) != 0 || len(f.deferred) != 0 {
		t.Errorf("the held task of the paused host was set aside %d times, delivered %d, deferred %d; want set aside once (it waits for the resume)", len(f.aside), len(f.delivered), len(f.deferred))
	}
	if f.abandoned[url] != 1 {
		t.Errorf("the set-aside task was marked unprocessed %d times, want once (a restart fetches it)", f.abandoned[url])
	}
}
