package render

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Job is one page to render.
type Job struct {
	Egress string // the lane's egress: the context's session is (Egress, Site)
	Site   string // the page's site (its host): third-party requests are judged against it
	URL    string // the page's URL as fetched (after same-host redirects)
	// Status, Header and Body are the plain fetch's response, the page's document
	// in the browser (a non-2xx SPA shell renders as well).
	Status int
	Header http.Header
	Body   []byte
	// Fetch sends one of the page's requests through the crawler (egress, SSRF
	// guard, robots, host gate) and returns the whole response; an error fails
	// the request in the page. It is called from several goroutines at once and
	// must honour ctx, which ends with the render.
	Fetch func(ctx context.Context, req *http.Request) (*Response, error)
	// Scroll is how many scroll steps the render takes once the page settled
	// (0: none): each presses the page's "load more" control, or scrolls to the
	// bottom, and waits for the page to settle again; the steps stop early when
	// one shows nothing new. The links the page showed after each step are kept.
	Scroll int
	// Hurry halves the render's time cap and its watches for a page that does
	// not settle: its host had such pages before.
	Hurry bool
	// Jar is the session's cookie jar (nil: none). Its cookies for the page are
	// given to the browser context before the render, so that the page's script
	// sees them; what the script set, changed or deleted is put back after it, so
	// that the session's next plain fetch carries it.
	Jar http.CookieJar
}

// Response is one answer Job.Fetch got for the page.
type Response struct {
	Status int
	Header http.Header
	Body   []byte // decoded
}

// Rendered is what a render made of a page.
type Rendered struct {
	DOM      []byte        // the document's serialized DOM
	Requests int           // requests sent on through Job.Fetch
	Blocked  int           // requests refused in the browser (type, third party, caps)
	Took     time.Duration // from the start of the render to the DOM read
	// Note says how the render ended when the page did not settle (its network
	// still busy at the time cap): the DOM is what the page had built by then.
	Note string
	// Steps are the scroll steps taken (Job.Scroll).
	Steps int
	// Unsettled says the page never settled: it polled with its DOM unchanged,
	// or was still busy at the time cap (Note says which).
	Unsettled bool
}

// Stats is the pool's state for the console and /metrics.
type Stats struct {
	Contexts int   // pages open (each in its session's browser context)
	Sessions int   // browser contexts open: one per (egress, site)
	Busy     int   // renders running
	Renders  int64 // renders that gave a DOM
	Failed   int64 // renders that ended without one (the page kept as fetched)
	Recycled int64 // contexts disposed after a failure or over the memory cap
	// Unsettled are the renders of pages that never settled: read early or at
	// the cap (a polling page), or ended for a script that did not yield.
	Unsettled int64
	Restarts  int64 // browser starts after the first
	// Hung are the browsers killed for not answering in time (Config.StartTimeout)
	// when a session's browser context or a new page was made.
	Hung int64
	// WaitedOut are the renders that found every page busy for their whole time
	// cap (ErrNoPageFree): counted in Failed too.
	WaitedOut int64
	PSSMB     int  // proportional memory of the browser's processes, MB (sampled)
	Running   bool // a browser process is up
	Starting  bool // a browser is starting: none serves yet
	Stopping  bool // a browser is stopping (a restart, or one killed): the next starts once it is gone
}

// Pool renders pages in one headless Chromium with a few browser contexts.
// Its methods are safe for concurrent use.
//
// Pool.mu guards the pool's state only: the browser's start and stop, making a
// session's browser context and a page's first setup calls are round trips to the
// browser (seconds on a loaded box) and run outside it, the state saying what is
// under way, so that the other sessions' renders, Stats and Close go on meanwhile.
type Pool struct {
	cfg  Config
	path string
	// openTab opens a page in a session's browser context (newTab; a test's may
	// be slower).
	openTab func(browser context.Context, bc cdp.BrowserContextID, k tabKey) (*tab, error)
	// answerWait bounds the browser's answer to a call made outside a render
	// (Config.StartTimeout; a test's may be shorter).
	answerWait time.Duration
	// stopWait bounds Close's wait for a browser's stop (stopWait; a test's may
	// be shorter).
	stopWait time.Duration

	mu    sync.Mutex
	br    *browserRun // the browser serving, nil when none
	start *starting   // the browser's start under way, nil when none
	// stopping are the browsers stopping, each with its processes (read as its
	// stop begins): the next start waits for them, Close kills them if need be.
	stopping   map[*browserRun][]process
	sessions   map[tabKey]*session // the browser contexts open or opening, all in br
	lru        *list.List          // every session's pages (*tab), most recently used first
	opening    int                 // pages being opened: they count against Contexts
	sinceStart int
	started    bool
	closed     bool
	changed    chan struct{} // closed (and made anew) when a page goes idle or closes, or the browser's state changes
	// browsers counts the starts and stops under way: Close waits for them, so
	// that no browser process outlives it.
	browsers sync.WaitGroup

	renders, failed, recycled, restarts atomic.Int64
	unsettled, hung, waitedOut          atomic.Int64
	busy                                atomic.Int32
	pss                                 pssSampler
}

type tabKey struct{ egress, site string }

// session is one (egress, site)'s browser context and the pages open in it.
type session struct {
	key   tabKey
	id    cdp.BrowserContextID
	ready chan struct{} // closed once the browser context is made, or failed (err)
	err   error
	tabs  map[*tab]*list.Element // in Pool.lru
	// opening counts the pages being opened in it (and its own making): the
	// browser context stays while it is not 0.
	opening int
}

// NewPool returns a pool for the browser Find finds (the browser starts with the
// first render). ErrNoBrowser when there is none.
func NewPool(cfg Config) (*Pool, error) {
	cfg = cfg.withDefaults()
	path, err := Find(cfg.Browser)
	if err != nil {
		return nil, err
	}
	return &Pool{cfg: cfg, path: path, openTab: newTab, answerWait: cfg.StartTimeout, stopWait: stopWait,
		stopping: map[*browserRun][]process{}, sessions: map[tabKey]*session{}, lru: list.New(), changed: make(chan struct{})}, nil
}

// Config is the pool's configuration with its defaults filled in.
func (p *Pool) Config() Config { return p.cfg }

// Close ends every render, a start under way and the browser, and returns once
// no browser process of the pool is left, or after twice stopWait: a browser
// whose stop has not ended in stopWait is killed, and one still not gone stopWait
// later is left behind; the log says which.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	if p.start != nil {
		p.start.abort()
	}
	if p.br != nil {
		p.retireLocked()
	}
	p.wakeLocked()
	p.mu.Unlock()
	stopped := make(chan struct{})
	go func() {
		p.browsers.Wait()
		close(stopped)
	}()
	limit := time.NewTimer(p.stopWait)
	defer limit.Stop()
	select {
	case <-stopped:
		return
	case <-limit.C:
	}
	p.mu.Lock()
	var pids []int
	var killed []string
	for b, procs := range p.stopping {
		// Its processes as they were when its stop began: each is killed only
		// if it is still the one read then (its start time).
		n := 0
		for _, pr := range procs {
			if pr.kill() {
				n++
			}
		}
		outcome := "killed"
		if why := b.kill(); why != "" {
			outcome = fmt.Sprintf("%s (%d of the %d processes it had when its stop began killed)", why, n, len(procs))
		}
		pids = append(pids, b.pid)
		killed = append(killed, fmt.Sprintf("the browser (pid %d) did not stop in %v; %s", b.pid, p.stopWait, outcome))
	}
	starting := p.start != nil
	p.mu.Unlock()
	for _, l := range killed {
		p.logf("render: %s", l)
	}
	if starting {
		p.logf("render: the browser's start did not end in %v after it was told to", p.stopWait)
	}
	limit.Reset(p.stopWait)
	select {
	case <-stopped:
	case <-limit.C:
		p.logf("render: the browser's stop (pid %v) or start still had not ended %v later; left behind", pids, p.stopWait)
	}
}

// Start starts the browser now rather than at the first render (a second or two).
func (p *Pool) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.browserLocked(context.Background())
	return err
}

// ErrClosed says the pool was closed.
var ErrClosed = errors.New("render: pool closed")

// ErrNoPageFree says a render found every page of the pool busy for its whole
// time cap: it was not rendered, and the page is kept as fetched.
var ErrNoPageFree = errors.New("no browser page free")

// Render renders j's page. An error says why there is no DOM (time cap, request
// cap, navigation away, crash, no page free...): the caller keeps the page as
// fetched plainly. The time a render waits for a free page counts against its
// time cap: the lane awaits some renders, and a crawl stopping or a lease ending
// expects a render to end within render.timeout.
func (p *Pool) Render(ctx context.Context, j Job) (*Rendered, error) {
	t, waited, err := p.tabFor(ctx, tabKey{j.Egress, j.Site}, hurry(&j, p.cfg.Timeout))
	if err != nil {
		if errors.Is(err, ErrNoPageFree) {
			p.waitedOut.Add(1)
		}
		p.failed.Add(1)
		return nil, err
	}
	p.busy.Add(1)
	defer p.busy.Add(-1)
	out, recycle, err := t.render(ctx, &j, p.cfg, waited)
	if out != nil && out.Unsettled || errors.Is(err, ErrNoYield) {
		p.unsettled.Add(1)
	}
	if err != nil {
		p.failed.Add(1)
	} else {
		p.renders.Add(1)
	}
	if !recycle && p.pss.mb(p.pid()) > p.cfg.MemoryMB {
		recycle = true
	}
	if recycle {
		p.dispose(t)
	} else {
		p.mu.Lock()
		t.busy, t.idleSince = false, time.Now()
		p.wakeLocked()
		p.mu.Unlock()
	}
	p.maybeRestart()
	return out, err
}

// tabFor takes an idle page of a session for one render, waiting for one when
// Contexts pages are busy, for limit at most (the render's time cap: then
// ErrNoPageFree). With none idle in the session it opens one (and the session's
// browser context, and the browser) while fewer than Contexts are open, else in
// place of another session's idle page: one of a session that has more pages than
// this one, or that sat idle a while. A session with a page of its own otherwise
// waits for it rather than close and open pages in turn. waited is how long it
// waited for a page to go idle or close (opening one has its own limits,
// Config.StartTimeout).
func (p *Pool) tabFor(ctx context.Context, k tabKey, limit time.Duration) (t *tab, waited time.Duration, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.closed {
			return nil, waited, ErrClosed
		}
		s := p.sessions[k]
		if s != nil {
			for t, e := range s.tabs {
				if t.busy {
					continue
				}
				if t.dead.Load() {
					p.removeLocked(t)
					t.close()
					continue
				}
				t.busy = true
				p.lru.MoveToFront(e)
				return t, waited, nil
			}
		}
		if p.lru.Len()+p.opening < p.cfg.Contexts || p.evictLocked(s) {
			p.opening++
			t, err := p.openLocked(ctx, k)
			p.opening--
			if err != nil {
				p.wakeLocked() // the place it held is free
			}
			return t, waited, err
		}
		ch := p.changed
		wctx, stop := context.WithTimeout(ctx, limit-waited)
		began := time.Now()
		err := p.waitLocked(wctx, ch)
		stop()
		waited += time.Since(began)
		if ctx.Err() != nil {
			return nil, waited, ctx.Err()
		}
		if err != nil || waited >= limit {
			// A page found now would have none of the cap left to render in.
			return nil, waited, p.noPageFree(limit)
		}
	}
}

// noPageFree is the error of a render that waited its whole time cap for a page.
func (p *Pool) noPageFree(limit time.Duration) error {
	return fmt.Errorf("render: %w in %v, the render's time cap (render.timeout): all %d busy (render.contexts)", ErrNoPageFree, limit, p.cfg.Contexts)
}

// idleFor is how long a page sits idle before another session may take its place
// though its own has no more pages than the other.
const idleFor = time.Second

// evictLocked closes the least recently used idle page that a session s (nil: one
// with no page yet) may take the place of. false: none.
func (p *Pool) evictLocked(s *session) bool {
	mine := 0
	if s != nil {
		mine = len(s.tabs)
	}
	for e := p.lru.Back(); e != nil; e = e.Prev() {
		t := e.Value.(*tab)
		if t.busy {
			continue
		}
		other := p.sessions[t.key]
		if mine == 0 || other == nil || len(other.tabs) > mine+1 || time.Since(t.idleSince) >= idleFor {
			p.removeLocked(t)
			t.close()
			return true
		}
	}
	return false
}

// openLocked opens a page for session k, busy, making the session's browser
// context (and starting the browser) if need be. p.mu is held on entry and on
// return, and released for the calls to the browser.
func (p *Pool) openLocked(ctx context.Context, k tabKey) (*tab, error) {
	for again := true; ; again = false {
		b, err := p.browserLocked(ctx)
		if err != nil {
			return nil, err
		}
		s, err := p.sessionLocked(ctx, b, k)
		if err != nil {
			if p.br != b && again && !p.closed && !errors.Is(err, errNoAnswer) && ctx.Err() == nil {
				continue // the browser went meanwhile
			}
			return nil, err
		}
		s.opening++
		p.mu.Unlock()
		t, err := answer(ctx, p, b, "a new page's setup", func() (*tab, error) { return p.openTab(b.ctx, s.id, k) }, (*tab).close)
		p.mu.Lock()
		s.opening--
		current := !p.closed && p.br == b && p.sessions[k] == s
		if err == nil && current {
			t.busy = true
			s.tabs[t] = p.lru.PushFront(t)
			p.sinceStart++
			return t, nil
		}
		if err == nil {
			t.close()
			err = errors.New("render: the browser stopped while a page opened")
		}
		if current && len(s.tabs) == 0 && s.opening == 0 {
			p.endSessionLocked(s)
		}
		if p.closed {
			return nil, ErrClosed
		}
		if b.ctx.Err() != nil && again && !errors.Is(err, errNoAnswer) && ctx.Err() == nil {
			// The browser died under us: start it again, once.
			if p.br == b {
				p.retireLocked()
			}
			continue
		}
		return nil, err
	}
}

// sessionLocked returns session k's browser context in b, made by this render or
// by another one it waits for. p.mu is held on entry and on return, and released
// while the browser makes it.
func (p *Pool) sessionLocked(ctx context.Context, b *browserRun, k tabKey) (*session, error) {
	for {
		if p.closed {
			return nil, ErrClosed
		}
		if p.br != b {
			return nil, errors.New("render: the browser stopped while a page opened")
		}
		s := p.sessions[k]
		if s == nil {
			s = &session{key: k, ready: make(chan struct{}), tabs: map[*tab]*list.Element{}, opening: 1}
			p.sessions[k] = s
			p.mu.Unlock()
			id, err := answer(ctx, p, b, "a session's new browser context", func() (cdp.BrowserContextID, error) { return newBrowserContext(b.ctx) },
				func(id cdp.BrowserContextID) { disposeBrowserContext(b.ctx, id) })
			p.mu.Lock()
			s.opening--
			s.id, s.err = id, err
			close(s.ready)
			if err != nil && p.sessions[k] == s {
				delete(p.sessions, k)
			}
			return s, err
		}
		select {
		case <-s.ready:
			if s.err != nil {
				return nil, s.err
			}
			return s, nil
		default:
		}
		if err := p.waitLocked(ctx, s.ready); err != nil {
			return nil, err
		}
	}
}

// waitLocked lets go of the pool's lock until ch closes or ctx ends, and takes
// it again; it returns ctx's error if ctx ended (ch may have closed too).
func (p *Pool) waitLocked(ctx context.Context, ch <-chan struct{}) error {
	p.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	}
	p.mu.Lock()
	return ctx.Err()
}

// wakeLocked tells the renders waiting for a page that one went idle or closed,
// or that the browser started or stopped.
func (p *Pool) wakeLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// newBrowserContext opens a browser context for a session: its own cookies and
// cache, shared by the session's pages.
func newBrowserContext(b context.Context) (cdp.BrowserContextID, error) {
	c := chromedp.FromContext(b)
	if c == nil || c.Browser == nil {
		return "", errors.New("render: the browser is not running")
	}
	dispose := true
	res, err := cdp.Call(b, c.Browser, target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: &dispose})
	if err != nil {
		return "", fmt.Errorf("render: opening a browser context: %w", err)
	}
	return res.BrowserContextID, nil
}

// endSessionLocked disposes a session's browser context (its cookies and cache go
// with it) in the background, once its pages are closed.
func (p *Pool) endSessionLocked(s *session) {
	if p.sessions[s.key] == s {
		delete(p.sessions, s.key)
	}
	var tabs []*tab
	for t, e := range s.tabs {
		p.lru.Remove(e)
		t.dead.Store(true)
		tabs = append(tabs, t)
	}
	s.tabs = nil
	var b context.Context
	if p.br != nil {
		b = p.br.ctx
	}
	go func() {
		for _, t := range tabs {
			t.cancel()
		}
		if b == nil {
			return
		}
		disposeBrowserContext(b, s.id)
	}()
}

// disposeBrowserContext closes a session's browser context, its pages with it.
func disposeBrowserContext(b context.Context, id cdp.BrowserContextID) {
	if c := chromedp.FromContext(b); c != nil && c.Browser != nil && b.Err() == nil {
		ctx, stop := context.WithTimeout(b, 5*time.Second)
		cdp.Call(ctx, c.Browser, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: id})
		stop()
	}
}

// removeLocked takes a page off its session; the session's browser context ends
// with its last page, unless another is being opened in it.
func (p *Pool) removeLocked(t *tab) {
	s := p.sessions[t.key]
	if s == nil {
		return
	}
	e, ok := s.tabs[t]
	if !ok {
		return
	}
	p.lru.Remove(e)
	delete(s.tabs, t)
	if len(s.tabs) == 0 && s.opening == 0 {
		p.endSessionLocked(s)
	}
	p.wakeLocked()
}

// dispose closes a page after a failure or over the memory cap; its session's
// next render opens a new one.
func (p *Pool) dispose(t *tab) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.removeLocked(t)
	t.close()
	p.recycled.Add(1)
}

// maybeRestart restarts an idle browser that served RestartAfter contexts or stays
// over the memory cap with no context open.
func (p *Pool) maybeRestart() {
	pid := p.pid()
	over := p.pss.mb(pid) > p.cfg.MemoryMB // read aside: a walk of /proc
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.br == nil || p.br.pid != pid || p.opening > 0 {
		return
	}
	for e := p.lru.Front(); e != nil; e = e.Next() {
		if e.Value.(*tab).busy {
			return
		}
	}
	if p.sinceStart < p.cfg.RestartAfter && !(over && p.lru.Len() == 0) {
		return
	}
	p.retireLocked()
}

// pid is the browser process's id, 0 when none serves.
func (p *Pool) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.br == nil {
		return 0
	}
	return p.br.pid
}

// Stats is the pool's state now. The pool's lock is held only for its bookkeeping,
// never across a call to the browser, so Stats never waits long: a worker's
// heartbeat reads these figures (a heartbeat held for a browser's start got the
// worker declared dead and its tasks dealt again). During a restart it says so:
// Stopping, then Starting, with no process and no memory to read.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	s := Stats{Contexts: p.lru.Len(), Sessions: len(p.sessions), Starting: p.start != nil, Stopping: len(p.stopping) > 0}
	pid := 0
	if p.br != nil && p.br.ctx.Err() == nil {
		s.Running, pid = true, p.br.pid
	}
	p.mu.Unlock()
	s.Busy = int(p.busy.Load())
	s.Renders, s.Failed = p.renders.Load(), p.failed.Load()
	s.Recycled, s.Restarts, s.Unsettled = p.recycled.Load(), p.restarts.Load(), p.unsettled.Load()
	s.Hung, s.WaitedOut = p.hung.Load(), p.waitedOut.Load()
	s.PSSMB = p.pss.mb(pid)
	return s
}

// String is the pool's state in one line, for the console.
func (s Stats) String() string {
	if !s.Running {
		state := "idle"
		if s.Starting {
			state = "starting"
		} else if s.Stopping {
			state = "stopping"
		}
		return fmt.Sprintf("browser: %s · %d renders, %d kept plain", state, s.Renders, s.Failed)
	}
	return fmt.Sprintf("browser: %d contexts (%d busy) · %d MB · %d renders, %d kept plain, %d recycled, %d restarts",
		s.Contexts, s.Busy, s.PSSMB, s.Renders, s.Failed, s.Recycled, s.Restarts)
}
