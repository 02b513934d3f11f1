package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// A page that polls its server forever with a DOM that no longer changes is read
// once it showed it polls, not at the time cap; a page whose script never yields
// is ended once the renderer stops answering, not at the cap. Both are counted,
// and the host's next page that does not settle is given half the time. Which of
// the ways ended a render is told by its note or error, not by how long it took:
// the cap is a minute, far past what either needs on a loaded box.
func TestRenderUnsettledPagesEndSooner(t *testing.T) {
	t.Parallel() // its own server and pool, the shared browser; it mostly waits on the stillness watch
	ts := newTestServer(t)
	// The page polls every 100 ms; with the default settle of 150 ms a loaded box
	// that delays the page's timer by 50 ms makes it look quiet (settled at 285 ms
	// once, at load 16). A settle of a second leaves that margin to the poll, and the
	// stillness watch (a second of unchanged DOM) still ends the render first.
	// The yield watch is given half the cap: it judges only the looping page,
	// whose render alone has a watch of half a second (it ends there either
	// way, having burnt that much CPU). At the 3 s default a hurried
	// page's watch is 1.5 s, which a polling page's renderer left unanswered at
	// load 37.
	const patient = 30 * time.Second
	p := inShared(t, Config{Timeout: time.Minute, Settle: time.Second, YieldLimit: patient})
	if _, err := p.Render(t.Context(), ts.job("/warm", `<html><body>warm</body></html>`, 200)); err != nil {
		t.Fatal(err) // the session's browser context and page are not a render's time
	}
	poll := `<html><body><div id="root"><a href="/a/1">one</a></div><script>setInterval(function(){ fetch('/api/list'); }, 100);</script></body></html>`
	start := time.Now()
	out, err := p.Render(t.Context(), ts.job("/poll", poll, 200))
	if err != nil {
		t.Fatal(err)
	}
	if !out.Unsettled || !strings.Contains(out.Note, "asked its server again and again") || !strings.Contains(string(out.DOM), `href="/a/1"`) {
		t.Errorf("polling page after %v: unsettled %v, note %q; want its DOM read once it showed it polls (not at the cap), marked unsettled",
			time.Since(start), out.Unsettled, out.Note)
	}
	loop := `<html><body><div id="root"></div><script>while(true){}</script></body></html>`
	// No render is in flight: the next one reads the setting.
	p.cfg.YieldLimit = 500 * time.Millisecond
	start = time.Now()
	_, err = p.Render(t.Context(), ts.job("/loop", loop, 200))
	p.cfg.YieldLimit = patient
	if !errors.Is(err, ErrNoYield) {
		t.Errorf("looping page: %v after %v; want ErrNoYield (ended by the yield watch, not at the cap)", err, time.Since(start))
	}
	if st := p.Stats(); st.Unsettled != 2 {
		t.Errorf("stats %+v; want 2 unsettled", st)
	}

	// The service remembers the host: its next polling page is read in a hurry.
	s := NewService(p, &Decider{ModeFor: func(string) Mode { return Always }})
	send := func(ctx context.Context, req *http.Request) (*fetch.Result, error) {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return &fetch.Result{URL: req.URL.String(), FinalURL: req.URL.String(), Status: resp.StatusCode, Header: resp.Header,
			Body: b, ContentType: resp.Header.Get("Content-Type")}, nil
	}
	var notes []string
	for _, path := range []string{"/poll1", "/poll2"} {
		res := &fetch.Result{URL: ts.URL + path, FinalURL: ts.URL + path, Status: 200, ContentType: "text/html", Body: []byte(poll),
			Header: http.Header{"Content-Type": {"text/html"}}}
		rd := s.Page(t.Context(), "direct", res, send)
		if rd == nil || rd.DOM == nil {
			t.Fatalf("%s: not rendered: %+v", path, rd)
		}
		notes = append(notes, rd.Note)
	}
	if !strings.Contains(notes[0], "unchanged for 1s") || !strings.Contains(notes[1], "unchanged for 500ms") {
		t.Errorf("notes %q; want the host's second polling page read after half the stillness", notes)
	}
	if hs := s.HostFigures("127.0.0.1"); hs.Unsettled != 2 {
		t.Errorf("host figures %+v; want 2 unsettled", hs)
	}
}

// render.yield_limit is the operator's: a page whose first script holds the main
// thread for a second is ended by a yield watch of half a second and rendered
// whole by one of half a minute. Neither depends on the box's load: the watch
// judges the renderer's running time, and the script holds the thread for a
// second on the clock and 3e8 steps of its own (about a second's running time
// here: twice the watch's half second, four times the 250 ms a renderer must run
// for it; on a loaded box, the clock's second can hold little of it). The whole
// render runs the script to its end: a longer script proves no more.
func TestRenderYieldLimitIsASetting(t *testing.T) {
	t.Parallel() // its own server; the page's script waits on the clock
	ts := newTestServer(t)
	heavy := `<html><body><div id="root"></div><script>(function(){ var t = Date.now(), x = 0; for (var i = 0; i < 3e8; i++) { x += i % 7; } while (Date.now() - t < 1000) {} })();
document.getElementById('root').innerHTML = '<a href="/drawn">drawn</a>';</script></body></html>`
	for _, c := range []struct {
		limit time.Duration
		ended bool
	}{{500 * time.Millisecond, true}, {30 * time.Second, false}} {
		t.Run(fmt.Sprint(c.limit), func(t *testing.T) {
			t.Parallel() // a pool of its own, each with the limit it took
			// The limit under test goes through NewPool, as the operator's
			// setting does. The warm render, which opens the session's browser
			// context and page, has a long watch instead: a page just opened
			// on a loaded box can leave the watch's first question unanswered
			// for half a second, with no script of the page running. The heavy
			// page's render has the limit the pool took.
			p := inShared(t, Config{Timeout: 2 * time.Minute, YieldLimit: c.limit})
			limit := p.cfg.YieldLimit
			p.cfg.YieldLimit = 30 * time.Second
			if _, err := p.Render(t.Context(), ts.job("/warm", `<html><body>warm</body></html>`, 200)); err != nil {
				t.Fatal(err) // the session's browser context and page are not a render's time
			}
			p.cfg.YieldLimit = limit // no render in flight: the next one reads it
			out, err := p.Render(t.Context(), ts.job("/heavy", heavy, 200))
			switch {
			case c.ended && !errors.Is(err, ErrNoYield):
				t.Errorf("yield limit %v: %v; want ErrNoYield", c.limit, err)
			case !c.ended && err != nil:
				t.Errorf("yield limit %v: %v; want the page rendered", c.limit, err)
			case !c.ended && !strings.Contains(string(out.DOM), `href="/drawn"`):
				t.Errorf("yield limit %v: DOM %q; want what the script drew", c.limit, out.DOM)
			}
		})
	}
}

// A page whose renderer gets no CPU for longer than the yield limit (a loaded
// crawl box; here its renderers are stopped outright) is not a page that never
// yields: its script ran nothing in that time. It is rendered once it runs
// again, not ended as looping. The page waits on its data while the renderers
// are stopped, so the yield watch's question is left unanswered for twice the
// limit.
func TestRenderStarvedPageIsNotJudgedLooping(t *testing.T) {
	t.Parallel() // its own browser, whose renderers it stops
	ts := newTestServer(t)
	const limit = time.Second
	p := testPool(t, Config{Timeout: time.Minute, YieldLimit: limit})
	if _, err := p.Render(t.Context(), ts.job("/warm", `<html><body>warm</body></html>`, 200)); err != nil {
		t.Fatal(err) // the browser's start is not a render's time
	}
	page := `<html><body><div id="root"></div><script>fetch('/gate').then(r => r.text()).then(x => {
document.getElementById('root').innerHTML = '<a href="/drawn">' + x + '</a>'; });</script></body></html>`
	asked, release := make(chan struct{}), make(chan struct{})
	j := ts.job("/starved", page, 200)
	fetch := j.Fetch
	j.Fetch = func(ctx context.Context, req *http.Request) (*Response, error) {
		if req.URL.Path == "/gate" {
			close(asked)
			<-release
			return &Response{Status: 200, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("drawn")}, nil
		}
		return fetch(ctx, req)
	}
	type result struct {
		out *Rendered
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := p.Render(t.Context(), j)
		done <- result{out, err}
	}()
	select {
	case <-asked:
	case r := <-done: // a render that fails first must fail the test, not hang it
		t.Fatalf("the render ended before the page asked for its data: %v", r.err)
	}
	p.mu.Lock()
	browser := p.br.pid
	p.mu.Unlock()
	renderers := rendererCPU(browser)
	if len(renderers) == 0 {
		t.Skip("no renderer process read from /proc")
	}
	for pr := range renderers {
		syscall.Kill(pr.pid, syscall.SIGSTOP)
	}
	// Stopped for twice the limit: the watch's question goes unanswered that long.
	time.Sleep(2 * limit)
	for pr := range renderers {
		syscall.Kill(pr.pid, syscall.SIGCONT)
	}
	close(release)
	r := <-done
	if r.err != nil {
		t.Fatalf("a page starved of CPU for %v (yield limit %v): %v; want it rendered", 2*limit, limit, r.err)
	}
	if !strings.Contains(string(r.out.DOM), `href="/drawn"`) {
		t.Errorf("DOM %q; want what the script drew once it ran again", r.out.DOM)
	}
}
