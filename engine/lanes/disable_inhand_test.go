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

// heldAt is the moment of a task's way to its request at which the operator holds
// its host: while the lane waits to ask for the host's robots.txt (a site first
// met, or rules whose cache ran out), for the page's own request, or while the
// page's answer comes, one that looks like a refusal and is asked again to confirm.
type heldAt int

const (
	atRobots heldAt = iota
	atPage
	atConfirm
)

var heldAts = []heldAt{atRobots, atPage, atConfirm}

func (a heldAt) String() string { return [...]string{"robots.txt", "page", "refusal's refetch"}[a] }

// captcha reads as a soft refusal: the lane asks the page again to confirm it.
const captcha = `<html><head><title>Verify you are human</title></head><body><p>Please complete the captcha.</p></body></html>`

// TestAHostDisabledWhileALaneHoldsItsTaskIsNotRequested: the operator disables a
// host while a lane holds one of its tasks, waiting at the gate or for the
// worker's lease (a master restarting: the lease runs out until the worker
// rejoins), to ask for the host's robots.txt or for the page. The lane defers the
// task when its wait ends; the host sees no request at all after the disable, of
// the page or of its robots.txt. Sent, it reached a host the operator had
// disabled, after the disable.
func TestAHostDisabledWhileALaneHoldsItsTaskIsNotRequested(t *testing.T) {
	t.Parallel()
	for _, at := range heldAts {
		t.Run(at.String(), func(t *testing.T) {
			t.Parallel()
			h := runHeldTask(t, at, func(r *lanes.Runner, host string) { r.DisableHost(host, time.Hour) })
			if h.pages != 0 || h.robots != 0 {
				t.Errorf("the host, disabled while a lane held its task, was asked for %d pages and %d robots.txt after the disable", h.pages, h.robots)
			}
			if len(h.f.deferred) != 1 || h.f.deferred[0].URL != h.url || len(h.f.delivered) != 0 {
				t.Errorf("the held task of the disabled host was deferred %d times and delivered %d times; want deferred once (its URL waits for the disable's end)", len(h.f.deferred), len(h.f.delivered))
			}
		})
	}
}

// TestAHostPausedWhileALaneHoldsItsTaskIsNotRequested: the operator pauses a host
// while a lane waits with its task in hand, to ask for its robots.txt or for the
// page: the task goes back to the lane's queue to wait for the resume, unsent, as
// one taken after the pause does, and the host sees no request at all.
func TestAHostPausedWhileALaneHoldsItsTaskIsNotRequested(t *testing.T) {
	t.Parallel()
	for _, at := range heldAts {
		t.Run(at.String(), func(t *testing.T) {
			t.Parallel()
			h := runHeldTask(t, at, func(r *lanes.Runner, host string) {
				r.Mu.Lock()
				r.SetHostPaused(host, true)
				r.Mu.Unlock()
			})
			if h.pages != 0 || h.robots != 0 {
				t.Errorf("the host, paused while a lane held its task, was asked for %d pages and %d robots.txt after the pause", h.pages, h.robots)
			}
			f := h.f
			if len(f.aside) != 1 || f.aside[0].URL != h.url || len(f.delivered) != 0 || len(f.deferred) != 0 {
				t.Errorf("the held task of the paused host was set aside %d times, delivered %d, deferred %d; want set aside once (it waits for the resume)", len(f.aside), len(f.delivered), len(f.deferred))
			}
			if f.begun[h.url] != f.abandoned[h.url] {
				t.Errorf("the set-aside task was marked begun %d times and unprocessed %d; want as many (in progress in the store, a restart would not fetch it)", f.begun[h.url], f.abandoned[h.url])
			}
		})
	}
}

// heldTask is what runHeldTask saw: the site's page and robots.txt requests after
// the hold, the front and the task's URL.
type heldTask struct {
	pages, robots int32
	f             *markingFront
	url           string
}

// runHeldTask runs one lane over one task of a loopback site, robots.txt not yet
// read, whose operator's control (hold) comes at: while the lane waits for the
// worker's lease before robots.txt's or the page's request, the last moment
// before it leaves, or as the site answers the page with a captcha.
func runHeldTask(t *testing.T, at heldAt, hold func(r *lanes.Runner, host string)) heldTask {
	t.Helper()
	var held atomic.Bool
	var pages, robots atomic.Int32
	var r *lanes.Runner
	const host, lease = "127.0.0.1", 7
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/robots.txt" {
			if held.Load() {
				robots.Add(1)
			}
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		if held.Load() {
			pages.Add(1)
		}
		w.Header().Set("Content-Type", "text/html")
		if at == atConfirm {
			if !held.Load() { // the page is asked for: the hold comes before its answer
				hold(r, host)
				held.Store(true)
			}
			w.Write([]byte(captcha))
			return
		}
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	t.Cleanup(site.Close)

	f := &markingFront{}
	r = twoEgressRunner(t, f, []string{"bind:127.0.0.1"})
	pageWaits := 0 // the task's lease is asked as its lane begins it, and before the page's request
	r.Lease = func(_ context.Context, l uint64) error {
		if l == lease {
			pageWaits++
		}
		if (at == atRobots && l == 0) || (at == atPage && l == lease && pageWaits == 2) {
			hold(r, host)
			held.Store(true)
		}
		return nil
	}
	url := site.URL + "/page"
	p := r.Board.Add(frontier.Task{URL: url, Host: host, Lease: lease})
	if p.Lane == nil {
		t.Fatal("the task found no lane")
	}
	r.Run(lanes.NewSlot(p.Lane))
	if !held.Load() {
		t.Fatalf("the hold never came (at the %s)", at)
	}
	return heldTask{pages: pages.Load(), robots: robots.Load(), f: f, url: url}
}
