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

	"github.com/chromedp/chromedp"
)

// Config sets the browser pool and the caps of one render.
type Config struct {
	// Browser is the headless Chromium's path; empty: Find's search.
	Browser string
	// Contexts is how many browser contexts stay open at once (default 4); each
	// belongs to one (egress, site).
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
}

// Stats is the pool's state for the console and /metrics.
type Stats struct {
	Contexts int   // browser contexts open
	Busy     int   // renders running
	Renders  int64 // renders that gave a DOM
	Failed   int64 // renders that ended without one (the page kept as fetched)
	Recycled int64 // contexts disposed after a failure or over the memory cap
	Restarts int64 // browser starts after the first
	PSSMB    int   // proportional memory of the browser's processes, MB (sampled)
	Running  bool  // a browser process is up
}

// Pool renders pages in one headless Chromium with a few browser contexts.
// Its methods are safe for concurrent use.
type Pool struct {
	cfg  Config
	path string
	sem  chan struct{} // one slot per render running

	mu          sync.Mutex
	browser     context.Context
	stopBrowser context.CancelFunc
	tabs        map[tabKey]*list.Element // of *tab, most recently used first
	lru         *list.List
	sinceStart  int
	started     bool
	closed      bool

	renders, failed, recycled, restarts atomic.Int64
	busy                                atomic.Int32
	pss                                 pssSampler
}

type tabKey struct{ egress, site string }

// NewPool returns a pool for the browser Find finds (the browser starts with the
// first render). ErrNoBrowser when there is none.
func NewPool(cfg Config) (*Pool, error) {
	cfg = cfg.withDefaults()
	path, err := Find(cfg.Browser)
	if err != nil {
		return nil, err
	}
	return &Pool{cfg: cfg, path: path, sem: make(chan struct{}, cfg.Contexts),
		tabs: map[tabKey]*list.Element{}, lru: list.New()}, nil
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
	p.tabs, p.lru = map[tabKey]*list.Element{}, list.New()
	if p.stopBrowser != nil {
		p.stopBrowser()
		p.browser, p.stopBrowser = nil, nil
	}
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
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.busy.Add(1)
	defer func() { p.busy.Add(-1); <-p.sem }()
	t, err := p.tabFor(tabKey{j.Egress, j.Site})
	if err != nil {
		p.failed.Add(1)
		return nil, err
	}
	t.mu.Lock()
	out, recycle, err := t.render(ctx, &j, p.cfg)
	t.mu.Unlock()
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
	}
	p.maybeRestart()
	return out, err
}

// tabFor returns the context of a session, making one (and the browser) if need
// be; the least recently used idle context makes room.
func (p *Pool) tabFor(k tabKey) (*tab, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if e, ok := p.tabs[k]; ok {
		t := e.Value.(*tab)
		if !t.dead.Load() {
			p.lru.MoveToFront(e)
			return t, nil
		}
		p.removeLocked(e)
	}
	if err := p.startLocked(); err != nil {
		return nil, err
	}
	for p.lru.Len() >= p.cfg.Contexts {
		// With one render per slot and this caller holding one, some context is
		// idle: the oldest idle one goes.
		var victim *list.Element
		for e := p.lru.Back(); e != nil; e = e.Prev() {
			if e.Value.(*tab).mu.TryLock() {
				e.Value.(*tab).mu.Unlock()
				victim = e
				break
			}
		}
		if victim == nil {
			break
		}
		victim.Value.(*tab).close()
		p.removeLocked(victim)
	}
	t, err := newTab(p.browser, k)
	if err != nil {
		if p.browser.Err() == nil {
			return nil, err
		}
		// The browser died under us: start it again, once.
		p.stopBrowser()
		p.browser = nil
		if err := p.startLocked(); err != nil {
			return nil, err
		}
		if t, err = newTab(p.browser, k); err != nil {
			return nil, err
		}
	}
	p.tabs[k] = p.lru.PushFront(t)
	p.sinceStart++
	return t, nil
}

func (p *Pool) removeLocked(e *list.Element) {
	delete(p.tabs, e.Value.(*tab).key)
	p.lru.Remove(e)
}

// dispose closes a context (its cookies and cache go with it); the session's next
// render makes a new one.
func (p *Pool) dispose(t *tab) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.tabs[t.key]; ok && e.Value.(*tab) == t {
		p.removeLocked(e)
	}
	t.close()
	p.recycled.Add(1)
}

// maybeRestart restarts an idle browser that served RestartAfter contexts or stays
// over the memory cap with no context open.
func (p *Pool) maybeRestart() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.browser == nil || p.busy.Load() > 0 {
		return
	}
	over := p.lru.Len() == 0 && p.pss.mb(p.pid()) > p.cfg.MemoryMB
	if p.sinceStart < p.cfg.RestartAfter && !over {
		return
	}
	for e := p.lru.Front(); e != nil; e = e.Next() {
		e.Value.(*tab).close()
	}
	p.tabs, p.lru = map[tabKey]*list.Element{}, list.New()
	p.stopBrowser()
	p.browser, p.stopBrowser = nil, nil
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

// Stats is the pool's state now.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	s := Stats{Contexts: p.lru.Len(), Running: p.browser != nil && p.browser.Err() == nil}
	b := p.browser
	p.mu.Unlock()
	s.Busy = int(p.busy.Load())
	s.Renders, s.Failed = p.renders.Load(), p.failed.Load()
	s.Recycled, s.Restarts = p.recycled.Load(), p.restarts.Load()
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
