package render

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// The browser's start and stop take seconds on a loaded box (a process to launch
// or kill, its user data directory to remove). They run outside Pool.mu, with
// the pool's state saying so: a render that needs the browser waits for the start
// under way (or the stop, so that two browsers never run at once), Stats says
// Starting or Stopping, and Close ends a start at once.

// defaultStartTimeout bounds the browser's start when Config.StartTimeout is not
// set: Chromium starts in a second or two, and a loaded box takes a few times more.
const defaultStartTimeout = 30 * time.Second

// stopWait bounds Close's wait for a browser's stop before it kills the browser's
// processes: a stop takes a few seconds at most (the process killed, its leftovers
// looked for over 2 s, its data directory removed, retried for up to 5 s).
const stopWait = 15 * time.Second

// browserRun is one browser process, from its start to its stop.
type browserRun struct {
	ctx  context.Context // the browser's; ends when it stops or dies
	stop func()          // kills the process and waits until it and its data are gone
	pid  int
	// start is the process's start time as read at its launch (/proc/PID/stat;
	// "" where there is no /proc): once the browser is gone its pid may be
	// another process's, which kill must leave alone.
	start string
	// shared says the browser is Config.Shared, not the pool's: pid is 0, stop
	// does nothing, and the pool's browser contexts in it are disposed instead.
	shared bool
}

// starting is a start under way: every render that needs the browser waits for it.
type starting struct {
	done  chan struct{} // closed when the start ended; err is set before
	err   error
	abort context.CancelFunc // Close ends the start
}

// browserLocked returns the browser, started if none runs: by this render, or by
// the start or after the stop under way, which it waits for. p.mu is held on entry
// and on return, and released while it waits. A start does not end with the
// render that asked for it (others wait for it too): only Close or its limit ends it.
func (p *Pool) browserLocked(ctx context.Context) (*browserRun, error) {
	for {
		if p.closed {
			return nil, ErrClosed
		}
		if b := p.br; b != nil {
			if b.ctx.Err() == nil {
				return b, nil
			}
			p.retireLocked() // it died: stop what is left of it and start anew
			continue
		}
		if st := p.start; st != nil {
			if err := p.waitLocked(ctx, st.done); err != nil {
				return nil, err
			}
			if st.err != nil {
				return nil, st.err
			}
			continue
		}
		if len(p.stopping) > 0 {
			ch := p.changed
			if err := p.waitLocked(ctx, ch); err != nil {
				return nil, err
			}
			continue
		}
		sctx, abort := context.WithTimeout(context.Background(), p.cfg.StartTimeout)
		p.start = &starting{done: make(chan struct{}), abort: abort}
		p.browsers.Add(1)
		go p.runStart(sctx, p.start)
	}
}

// runStart starts the browser and hands it to the pool, or stops it when the
// pool closed meanwhile.
func (p *Pool) runStart(ctx context.Context, st *starting) {
	defer p.browsers.Done()
	b, err := p.launch(ctx)
	st.abort()
	p.mu.Lock()
	p.start = nil
	switch {
	case err != nil:
		st.err = err
	case p.closed:
		st.err = ErrClosed
	default:
		p.br = b
		p.sinceStart = 0
		if p.started {
			p.restarts.Add(1)
		}
		p.started = true
	}
	close(st.done)
	p.wakeLocked()
	p.mu.Unlock()
	if err == nil && st.err != nil {
		b.stop()
	}
}

// launch starts a browser process and connects to it within ctx: its limit
// (Config.StartTimeout), or Close.
func (p *Pool) launch(ctx context.Context) (*browserRun, error) {
	if b := p.cfg.Shared; b != nil {
		if b.Err() != nil {
			return nil, errors.New("render: the shared browser is gone")
		}
		return &browserRun{ctx: b, stop: func() {}, shared: true}, nil
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(p.path),
		chromedp.NoSandbox, // root cannot use Chrome's sandbox; the pages run behind our network anyway
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("blink-settings", "imagesEnabled=false"),
		chromedp.Flag("js-flags", "--max-old-space-size=128"),
		// Belt and braces: every request is intercepted and answered by the crawler;
		// one that is not (a WebSocket, a service worker) goes to a dead proxy.
		chromedp.ProxyServer("127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
	)
	// The browser lives until stop; kill ends it at once, at any point of its start.
	life, kill := context.WithCancel(context.Background())
	alloc, stopAlloc := chromedp.NewExecAllocator(life, opts...)
	bctx, stopB := chromedp.NewContext(alloc)
	stop := func() { stopB(); stopAlloc(); kill() }
	// chromedp waits for the browser's first answer with no limit of its own: the
	// start runs aside, and ending it kills the process, which ends that wait.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(bctx) }()
	select {
	case err := <-started:
		if err != nil {
			stop()
			return nil, fmt.Errorf("render: starting %s: %w", p.path, err)
		}
		pid := browserPID(bctx)
		_, start, _ := procStat(pid)
		return &browserRun{ctx: bctx, stop: stop, pid: pid, start: start}, nil
	case <-ctx.Done():
		// Killed first, then waited for: stopped early in its start, chromedp
		// would return before its process is gone.
		kill()
		<-started
		stop()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("render: %s did not start in %v (render.start_timeout; a loaded box may need more)", p.path, p.cfg.StartTimeout)
		}
		return nil, ErrClosed
	}
}

// retireLocked takes the running browser out of the pool, its sessions and pages
// with it, and stops it aside: the renders that need a browser wait until it is
// gone, then start another.
func (p *Pool) retireLocked() {
	b := p.br
	p.br = nil
	for e := p.lru.Front(); e != nil; e = e.Next() {
		e.Value.(*tab).close()
	}
	var contexts []cdp.BrowserContextID
	for _, s := range p.sessions {
		if s.id != "" {
			contexts = append(contexts, s.id)
		}
	}
	p.sessions, p.lru = map[tabKey]*session{}, list.New()
	p.stopping[b] = nil
	p.browsers.Add(1)
	go func() {
		defer p.browsers.Done()
		if b.shared { // another's browser: only what the pool made in it goes
			for _, id := range contexts {
				disposeBrowserContext(b.ctx, id)
			}
			p.mu.Lock()
			delete(p.stopping, b)
			p.wakeLocked()
			p.mu.Unlock()
			return
		}
		// Its processes as they are now: the stop kills the wrapper script
		// first, and its children are nobody's then.
		procs := processesOf(b.pid)
		p.mu.Lock()
		if _, ok := p.stopping[b]; ok {
			p.stopping[b] = procs
		}
		p.mu.Unlock()
		b.stop()
		// The stop ends with the browser's own process; its children (zygotes,
		// renderers) go once they see it gone, on a loaded box a while later. The
		// stop is over once they are gone too: no process of the pool outlives
		// Close, and the next browser does not start beside them.
		waitGone(procs, p.stopWait)
		p.mu.Lock()
		delete(p.stopping, b)
		p.wakeLocked()
		p.mu.Unlock()
	}()
	p.wakeLocked()
}

// kill kills the browser's processes at once: the Debian wrapper script, the
// browser and its children (zygotes, renderers, the network service). A child that
// does not answer either outlives the browser otherwise: chromedp's clean-up finds
// leftovers by their --user-data-dir, which Chromium's children are not given.
// It kills only while the browser's pid is still the process launched (its start
// time unchanged): a browser gone by itself leaves its pid to be given to any
// process, which a kill of that pid and its children would hit. Where the start
// time cannot be read (no /proc: not Linux) it kills nothing. notKilled says why
// it did not kill, "" when it did.
func (b *browserRun) kill() (notKilled string) {
	_, start, ok := procStat(b.pid)
	switch {
	case b.shared:
		return "not killed: a shared browser (render.Config.Shared), not the pool's"
	case b.start == "" && runtime.GOOS != "linux":
		return "not killed: a process's start time is read from /proc (Linux only), and without it a pid the browser left could be another process's"
	case b.start == "":
		return "not killed: its start time could not be read at its launch, and without it a pid the browser left could be another process's"
	case !ok:
		return "not killed: already gone"
	case start != b.start:
		return "not killed: already gone, its pid another process's now"
	}
	for _, pr := range processesOf(b.pid) {
		pr.kill()
	}
	return ""
}

func browserPID(b context.Context) int {
	if b == nil {
		return 0
	}
	c := chromedp.FromContext(b)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return 0
	}
	return c.Browser.Process().Pid
}

// errNoAnswer says the browser did not answer a call in time: it was killed.
var errNoAnswer = errors.New("the browser did not answer")

// answer makes call, a round trip to browser b outside a render (a session's
// browser context, a new page's setup: chromedp waits for these as long as it
// takes), and waits for its answer at most p.answerWait, or until ctx ends. A
// browser silent that long has stopped answering (hung, stopped, starved): it is
// killed, counted and logged, the renders waiting for it keep their pages as
// fetched, and the next render starts another. What call gives after it was given
// up goes to drop. p.mu is not held.
func answer[T any](ctx context.Context, p *Pool, b *browserRun, what string, call func() (T, error), drop func(T)) (T, error) {
	type result struct {
		v   T
		err error
	}
	got := make(chan result, 1)
	go func() {
		v, err := call()
		got <- result{v, err}
	}()
	late := func() {
		if r := <-got; r.err == nil && drop != nil {
			drop(r.v)
		}
	}
	limit := time.NewTimer(p.answerWait)
	defer limit.Stop()
	var zero T
	select {
	case r := <-got:
		return r.v, r.err
	case <-ctx.Done():
		go late()
		return zero, ctx.Err()
	case <-limit.C:
	}
	go late()
	p.mu.Lock()
	current := p.br == b // else already retired, by Close or another call it did not answer
	outcome := "killed"
	if current {
		if why := b.kill(); why != "" {
			outcome = why
		}
		p.retireLocked()
	}
	p.mu.Unlock()
	if current {
		p.hung.Add(1)
		p.logf("render: the browser (pid %d) did not answer %s in %v (render.start_timeout): %s; the next render starts another", b.pid, what, p.answerWait, outcome)
	}
	return zero, fmt.Errorf("render: %w %s in %v (render.start_timeout)", errNoAnswer, what, p.answerWait)
}

// logf logs through Config.Logf, if set.
func (p *Pool) logf(format string, args ...any) {
	if p.cfg.Logf != nil {
		p.cfg.Logf(format, args...)
	}
}

// StartBrowser starts the browser Find finds for path (as Config.Browser), as a
// pool starts its own, for pools to share (Config.Shared): its context, and stop,
// which ends it and waits until its processes and data are gone. timeout bounds
// the start (0: the pool's default).
func StartBrowser(path string, timeout time.Duration) (browser context.Context, stop func(), err error) {
	found, err := Find(path)
	if err != nil {
		return nil, nil, err
	}
	p := &Pool{cfg: Config{StartTimeout: timeout}.withDefaults(), path: found}
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.StartTimeout)
	defer cancel()
	b, err := p.launch(ctx)
	if err != nil {
		return nil, nil, err
	}
	stop = func() {
		procs := processesOf(b.pid) // as a pool's stop: its children go after it
		b.stop()
		waitGone(procs, stopWait)
	}
	return b.ctx, stop, nil
}
