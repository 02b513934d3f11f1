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

// Config sets the browser pool and the caps of one render.
type Config struct {
	// Browser is the headless Chromium's path; empty: Find's search.
	Browser string
	// Contexts is how many pages render at once and stay open between renders
	// (default 4). Each belongs to the browser context of one (egress, site): a
	// session's pages share its cookies, and a busy session renders several of
	// its pages at once.
	Contexts int
	// Timeout caps one render, from the document to the DOM read (default 10 s).
	Timeout time.Duration
	// Settle is how long the page's network and DOM stay quiet, with none of its
	// script's fetch, XHR or short timers pending, before its DOM is read
	// (default 150 ms).
	Settle time.Duration
	// MaxRequests caps the requests one render sends on (default 200).
	MaxRequests int
	// MaxBytes caps the bytes of the responses one render receives (default 16 MiB).
	MaxBytes int64
	// Block lists the resource types refused without a request, as CDP names
	// them (Image, Media, Font, Stylesheet, Script, XHR, Fetch, ...); nil: Image,
	// Media, Font. An empty non-nil list blocks none.
	Block []string
	// AllowHosts lists hosts besides the page's own site that a page may load
	// from (a suffix matches its subdomains); every other host is blocked.
	AllowHosts []string
	// MemoryMB caps the pool's proportional memory (PSS) summed over the browser's
	// processes (default 400); above it the context just used is disposed and,
	// idle, the browser is restarted.
	MemoryMB int
	// RestartAfter restarts the browser after this many renders (default 1000):
	// a long-lived Chromium grows.
	RestartAfter int
	// YieldLimit is how long the page's renderer may leave a trivial question
	// unanswered before its script is judged never to yield and the render ends
	// (default 3 s; never more than half of Timeout). A box that runs many
	// browsers beside the crawl, or sites with a heavy first script, want more.
	YieldLimit time.Duration
}

func (c Config) withDefaults() Config {
	if c.Contexts <= 0 {
		c.Contexts = 4
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Settle <= 0 {
		c.Settle = 150 * time.Millisecond
	}
	if c.MaxRequests <= 0 {
		c.MaxRequests = 200
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 16 << 20
	}
	if c.Block == nil {
		c.Block = []string{"Image", "Media", "Font"}
	}
	if c.MemoryMB <= 0 {
		c.MemoryMB = 400
	}
	if c.RestartAfter <= 0 {
		c.RestartAfter = 1000
	}
	if c.YieldLimit <= 0 {
		c.YieldLimit = yieldLimit
	}
	return c
}

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
	PSSMB     int   // proportional memory of the browser's processes, MB (sampled)
	Running   bool  // a browser process is up
}

// Pool renders pages in one headless Chromium with a few browser contexts.
// Its methods are safe for concurrent use.
type Pool struct {
	cfg  Config
	path string

	mu          sync.Mutex
	browser     context.Context
	stopBrowser context.CancelFunc
	sessions    map[tabKey]*session // the browser contexts open
	lru         *list.List          // every session's pages (*tab), most recently used first
	sinceStart  int
	started     bool
	closed      bool
	changed     chan struct{} // closed (and made anew) when a page goes idle or closes

	renders, failed, recycled, restarts atomic.Int64
	unsettled                           atomic.Int64
	busy                                atomic.Int32
	pss                                 pssSampler
	// shown is what Stats last read under mu: what it shows while mu is held.
	shown atomic.Pointer[shownState]
}

// shownState is the part of the pool's state that Stats reads under Pool.mu.
type shownState struct {
	contexts, sessions int
	running            bool
	browser            context.Context
}

type tabKey struct{ egress, site string }

// session is one (egress, site)'s browser context and the pages open in it.
type session struct {
	key  tabKey
	id   cdp.BrowserContextID
	tabs map[*tab]*list.Element // in Pool.lru
}

// NewPool returns a pool for the browser Find finds (the browser starts with the
// first render). ErrNoBrowser when there is none.
func NewPool(cfg Config) (*Pool, error) {
	cfg = cfg.withDefaults()
	path, err := Find(cfg.Browser)
	if err != nil {
		return nil, err
	}
	return &Pool{cfg: cfg, path: path, sessions: map[tabKey]*session{}, lru: list.New(), changed: make(chan struct{})}, nil
}

// Config is the pool's configuration with its defaults filled in.
func (p *Pool) Config() Config { return p.cfg }

// Close ends every render and the browser.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	for e := p.lru.Front(); e != nil; e = e.Next() {
		e.Value.(*tab).cancel()
	}
	p.sessions, p.lru = map[tabKey]*session{}, list.New()
	if p.stopBrowser != nil {
		p.stopBrowser()
		p.browser, p.stopBrowser = nil, nil
	}
	p.wakeLocked()
	p.mu.Unlock()
}

// Start starts the browser now rather than at the first render (a second or two).
func (p *Pool) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	return p.startLocked()
}

// ErrClosed says the pool was closed.
var ErrClosed = errors.New("render: pool closed")

// Render renders j's page. An error says why there is no DOM (time cap, request
// cap, navigation away, crash...): the caller keeps the page as fetched plainly.
func (p *Pool) Render(ctx context.Context, j Job) (*Rendered, error) {
	t, err := p.tabFor(ctx, tabKey{j.Egress, j.Site})
	if err != nil {
		p.failed.Add(1)
		return nil, err
	}
	p.busy.Add(1)
	defer p.busy.Add(-1)
	out, recycle, err := t.render(ctx, &j, p.cfg)
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
// Contexts pages are busy. With none idle in the session it opens one (and the
// session's browser context, and the browser) while fewer than Contexts are open,
// else in place of another session's idle page: one of a session that has more
// pages than this one, or that sat idle a while. A session with a page of its own
// otherwise waits for it rather than close and open pages in turn.
func (p *Pool) tabFor(ctx context.Context, k tabKey) (*tab, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.closed {
			return nil, ErrClosed
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
				return t, nil
			}
		}
		if p.lru.Len() < p.cfg.Contexts || p.evictLocked(s) {
			return p.openLocked(k)
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			p.mu.Lock()
			return nil, ctx.Err()
		}
		p.mu.Lock()
	}
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
// context (and the browser) if need be.
func (p *Pool) openLocked(k tabKey) (*tab, error) {
	if err := p.startLocked(); err != nil {
		return nil, err
	}
	s := p.sessions[k]
	if s == nil {
		var err error
		if s, err = p.newSessionLocked(k); err != nil {
			return nil, err
		}
	}
	t, err := newTab(p.browser, s.id, k)
	if err != nil {
		if p.browser.Err() == nil {
			if len(s.tabs) == 0 {
				p.endSessionLocked(s)
			}
			return nil, err
		}
		// The browser died under us: start it again, once.
		p.stopBrowser()
		p.browser = nil
		p.sessions, p.lru = map[tabKey]*session{}, list.New()
		if err := p.startLocked(); err != nil {
			return nil, err
		}
		if s, err = p.newSessionLocked(k); err != nil {
			return nil, err
		}
		if t, err = newTab(p.browser, s.id, k); err != nil {
			p.endSessionLocked(s)
			return nil, err
		}
	}
	t.busy = true
	s.tabs[t] = p.lru.PushFront(t)
	p.sinceStart++
	return t, nil
}

// wakeLocked tells the renders waiting for a page that one went idle or closed.
func (p *Pool) wakeLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// newSessionLocked opens a browser context for a session: its own cookies and
// cache, shared by the session's pages.
func (p *Pool) newSessionLocked(k tabKey) (*session, error) {
	c := chromedp.FromContext(p.browser)
	if c == nil || c.Browser == nil {
		return nil, errors.New("render: the browser is not running")
	}
	dispose := true
	res, err := cdp.Call(p.browser, c.Browser, target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: &dispose})
	if err != nil {
		return nil, fmt.Errorf("render: opening a browser context: %w", err)
	}
	s := &session{key: k, id: res.BrowserContextID, tabs: map[*tab]*list.Element{}}
	p.sessions[k] = s
	return s, nil
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
	b := p.browser
	go func() {
		for _, t := range tabs {
			t.cancel()
		}
		if c := chromedp.FromContext(b); c != nil && c.Browser != nil && b.Err() == nil {
			ctx, stop := context.WithTimeout(b, 5*time.Second)
			cdp.Call(ctx, c.Browser, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: s.id})
			stop()
		}
	}()
}

// removeLocked takes a page off its session; the session's browser context ends
// with its last page.
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
	if len(s.tabs) == 0 {
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
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.browser == nil {
		return
	}
	for e := p.lru.Front(); e != nil; e = e.Next() {
		if e.Value.(*tab).busy {
			return
		}
	}
	over := p.lru.Len() == 0 && p.pss.mb(browserPID(p.browser)) > p.cfg.MemoryMB
	if p.sinceStart < p.cfg.RestartAfter && !over {
		return
	}
	for e := p.lru.Front(); e != nil; e = e.Next() {
		e.Value.(*tab).close()
	}
	p.sessions, p.lru = map[tabKey]*session{}, list.New()
	p.stopBrowser()
	p.browser, p.stopBrowser = nil, nil
	p.wakeLocked()
}

// startLocked starts the browser if it is not running.
func (p *Pool) startLocked() error {
	if p.browser != nil && p.browser.Err() == nil {
		return nil
	}
	if p.stopBrowser != nil {
		p.stopBrowser()
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
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, stopB := chromedp.NewContext(alloc)
	if err := chromedp.Do(bctx); err != nil {
		stopB()
		stopAlloc()
		return fmt.Errorf("render: starting %s: %w", p.path, err)
	}
	p.browser = bctx
	p.stopBrowser = func() { stopB(); stopAlloc() }
	p.sinceStart = 0
	if p.started {
		p.restarts.Add(1)
	}
	p.started = true
	return nil
}

// pid is the browser process's id, 0 when none runs.
func (p *Pool) pid() int {
	p.mu.Lock()
	b := p.browser
	p.mu.Unlock()
	return browserPID(b)
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

// Stats is the pool's state now. It never waits for the pool's lock: a render
// holds it while it starts the browser or opens a context, which takes seconds on
// a loaded box, and a worker's heartbeat reads these figures (a heartbeat held
// that long got the worker declared dead and its tasks dealt again). While the
// lock is held, the contexts, sessions and browser are those last read.
func (p *Pool) Stats() Stats {
	var st shownState
	if p.mu.TryLock() {
		st = shownState{contexts: p.lru.Len(), sessions: len(p.sessions), running: p.browser != nil && p.browser.Err() == nil, browser: p.browser}
		p.mu.Unlock()
		p.shown.Store(&st)
	} else if last := p.shown.Load(); last != nil {
		st = *last
	}
	s := Stats{Contexts: st.contexts, Sessions: st.sessions, Running: st.running}
	b := st.browser
	s.Busy = int(p.busy.Load())
	s.Renders, s.Failed = p.renders.Load(), p.failed.Load()
	s.Recycled, s.Restarts, s.Unsettled = p.recycled.Load(), p.restarts.Load(), p.unsettled.Load()
	s.PSSMB = p.pss.mb(browserPID(b))
	return s
}

// String is the pool's state in one line, for the console.
func (s Stats) String() string {
	if !s.Running {
		return fmt.Sprintf("browser: idle · %d renders, %d kept plain", s.Renders, s.Failed)
	}
	return fmt.Sprintf("browser: %d contexts (%d busy) · %d MB · %d renders, %d kept plain, %d recycled, %d restarts",
		s.Contexts, s.Busy, s.PSSMB, s.Renders, s.Failed, s.Recycled, s.Restarts)
}
