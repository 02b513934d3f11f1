package render

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// holdingJob is a render of a page whose script asks for /hold, which is answered
// only once release closes: the render holds its page until then (or its cap).
// asked closes when the page asked.
func holdingJob(ts *testServer, path string, asked, release chan struct{}) Job {
	page := `<html><body><div id="root"></div><script>fetch('/hold').then(function(r){ return r.text(); }).then(function(t){ document.getElementById('root').textContent = t; });</script></body></html>`
	j := ts.job(path, page, 200)
	fetch := j.Fetch
	j.Fetch = func(ctx context.Context, req *http.Request) (*Response, error) {
		if req.URL.Path != "/hold" {
			return fetch(ctx, req)
		}
		close(asked)
		select {
		case <-release:
			return &Response{Status: 200, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("held")}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return j
}

// A render's wait for a free page is bounded by its time cap when no page frees:
// with the pool's one page held by another render past the cap, a render gives
// up at its cap, with a reason of its own (ErrNoPageFree, counted apart), while
// the other still runs; and a render that waited a while for its page then has
// its whole cap to render in (the page's own requests end with it), not what the
// wait left of it.
func TestRenderWaitForAPageIsCappedAndTheRenderKeepsItsCap(t *testing.T) {
	t.Parallel() // its own server and pool, the shared browser; it mostly waits out a render's cap
	ts := newTestServer(t)
	// The render holding the page has a cap far past the waiter's, so that it
	// still runs when the waiter gives up however loaded the box; the waiter's is
	// short, as a render's wait is what it judges.
	const timeout, waiterCap = time.Minute, time.Second
	p := inShared(t, Config{Contexts: 1, Timeout: timeout})
	if _, err := p.Render(t.Context(), ts.job("/warm", `<html><body>warm</body></html>`, 200)); err != nil {
		t.Fatal(err) // the session's browser context and page's opening are not a render's wait
	}

	asked, release := make(chan struct{}), make(chan struct{})
	held := renderAside(p, holdingJob(ts, "/held", asked, release))
	<-asked // the pool's one page is busy until release
	waiter := ts.job("/waiter", `<html><body>waiter</body></html>`, 200)
	waiter.Hurry = true // its cap is half the pool's, as its error says
	// The held render read its cap as it began: the next render reads this one.
	p.cfg.Timeout = 2 * waiterCap
	start := time.Now()
	_, err := p.Render(t.Context(), waiter)
	took := time.Since(start)
	p.cfg.Timeout = timeout
	select {
	case err := <-held:
		t.Fatalf("the render holding the page ended (%v) before the one waiting for it gave up: the wait was not bounded by the waiter's cap of %v", err, waiterCap)
	default:
	}
	close(release)
	if want := fmt.Sprintf("in %v, the render's time cap (render.timeout)", waiterCap); !errors.Is(err, ErrNoPageFree) || !strings.Contains(err.Error(), want) {
		t.Errorf("render that found no page free for its cap (%v): %v; want ErrNoPageFree saying %q", took, err, want)
	}
	if err := wait(t, held, time.Minute, "the render holding the page"); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.WaitedOut != 1 || st.Failed != 1 || st.Renders != 2 {
		t.Errorf("stats: %+v; want 1 render waited out (counted failed), 2 renders", st)
	}

	// A render that waits hold for its page: its page's requests end at its cap
	// counted from when it had the page, not from its call.
	const hold = time.Second
	asked, release = make(chan struct{}), make(chan struct{})
	held = renderAside(p, holdingJob(ts, "/held2", asked, release))
	<-asked
	deadline := make(chan time.Time, 1)
	late := ts.job("/late", `<html><body><script>fetch('/api/list')</script></body></html>`, 200)
	fetch := late.Fetch
	late.Fetch = func(ctx context.Context, req *http.Request) (*Response, error) {
		if d, ok := ctx.Deadline(); ok {
			select {
			case deadline <- d:
			default:
			}
		}
		return fetch(ctx, req)
	}
	called := time.Now()
	lateErr := renderAside(p, late)
	time.Sleep(hold) // the page stays held this long after the render asked for it
	close(release)
	if err := wait(t, held, time.Minute, "the render holding the page"); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, lateErr, time.Minute, "the render that waited for the page"); err != nil {
		t.Fatal(err)
	}
	var d time.Time
	select {
	case d = <-deadline:
	default:
		t.Fatal("the page that waited made no request")
	}
	// It waited at least hold, less the moment it took to start waiting.
	if short := called.Add(hold + timeout).Sub(d); short > hold/2 {
		t.Errorf("the render that waited %v for its page had its cap end %v after its call, %v short of the wait and its cap of %v: the wait was taken off its cap", hold, d.Sub(called), short, timeout)
	}
}
