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
	// WaitedOut are the renders that found every page busy, none freed for a
	// whole time cap or all going to other renders for a browser's start and a
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
	// newContext makes a session's browser context (newBrowserContext; a test's
	// may need no browser).
	newContext func(browser context.Context) (cdp.BrowserContextID, error)
	// waiting, if set, hears a render begin to wait for a page (p.mu held):
	// tests wait on it.
	waiting func(tabKey)
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
	// moved is when the pool last served: a page handed to a render, gone idle or
	// closed, or the browser's state changed (a render waiting for a page gives up
	// after a cap without).
	moved time.Time
	// browsers counts the starts and stops under way: Close waits for them, so
	// that no browser process outlives it.
	browsers sync.WaitGroup

	renders, failed, recycled, restarts atomic.Int64
	unsettled, hung, waitedOut          atomic.Int64
	busy                                atomic.Int32
	pss                                 pssSampler
}

// NewPool returns a pool for the browser Find finds (the browser starts with the
// first render). ErrNoBrowser when there is none.
func NewPool(cfg Config) (*Pool, error) {
	cfg = cfg.withDefaults()
	path, err := Find(cfg.Browser)
	if err != nil {
		return nil, err
	}
	return newPool(cfg, path), nil
}

// newPool is a pool of cfg (defaults filled in) for the browser at path.
func newPool(cfg Config, path string) *Pool {
	return &Pool{cfg: cfg, path: path, openTab: newTab, newContext: newBrowserContext, answerWait: cfg.StartTimeout, stopWait: stopWait,
		stopping: map[*browserRun][]process{}, sessions: map[tabKey]*session{}, lru: list.New(), changed: make(chan struct{})}
}

// release ends a render's hold on t: it goes idle, for its session's next render
// or one that may take its place.
func (p *Pool) release(t *tab) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t.busy, t.idleSince = false, time.Now()
	p.wakeLocked()
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

// ErrNoPageFree says a render found no browser page for it: every page busy and
// none freed for its whole time cap, or every one freed taken by other renders for
// a browser's start and its cap. It was not rendered, and the page is kept as
// fetched.
var ErrNoPageFree = errors.New("no browser page free")

// Render renders j's page. An error says why there is no DOM (time cap, request
// cap, navigation away, crash, no page free...): the caller keeps the page as
// fetched plainly. A render waits for a free page while the pool serves others
// (tabFor), then has its whole time cap; ctx ends the wait too (the crawl
// stopping).
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
		p.release(t)
	}
	p.maybeRestart()
	return out, err
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
