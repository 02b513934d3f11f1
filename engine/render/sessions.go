package render

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

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

// tabFor takes an idle page of a session for one render, waiting for one when
// Contexts pages are busy. With none idle in the session it opens one (and the
// session's browser context, and the browser) while fewer than Contexts are open,
// else in place of another session's idle page: one of a session that has more
// pages than this one, or that sat idle a while. A session with a page of its own
// otherwise waits for it rather than close and open pages in turn. waited is how
// long it waited for a page to go idle or close (opening one has its own limits,
// Config.StartTimeout).
//
// The wait goes on while the pool serves: it ends with ErrNoPageFree only when for
// limit (the render's time cap) no page was handed to a render, went idle or
// closed, and none was being opened. Counted from the ask, it failed the
// pages a busy pool was about to serve: on a loaded box the browser's start and a
// new page's setup take seconds, and a few renders queued for the same pages
// outlast a cap while every page turns over. It never outlasts a browser's start
// and a cap together (Config.StartTimeout + limit) from the ask: a render that
// others keep passing by is kept plain then, its lane's render slot freed.
func (p *Pool) tabFor(ctx context.Context, k tabKey, limit time.Duration) (t *tab, waited time.Duration, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	told := false
	asked := time.Now()
	latest := asked.Add(p.cfg.StartTimeout + limit)
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
				p.moved = time.Now()
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
		// Another session's idle page may be taken once it sat idleFor: no page
		// need go idle or close for that, so the wait ends then too.
		wait := time.Until(p.movedSince(asked).Add(limit))
		if p.settingUpLocked() {
			wait = limit
		}
		wait = min(wait, max(time.Until(latest), time.Millisecond))
		mark, idle := p.idleMarkLocked()
		marked := idle && mark < wait
		if marked {
			wait = mark
		}
		if p.waiting != nil && !told {
			p.waiting(k)
			told = true
		}
		wctx, stop := context.WithTimeout(ctx, wait)
		began := time.Now()
		err := p.waitLocked(wctx, ch)
		stop()
		waited += time.Since(began)
		if ctx.Err() != nil {
			return nil, waited, ctx.Err()
		}
		if err != nil && !marked && !p.settingUpLocked() && time.Since(p.movedSince(asked)) >= limit {
			return nil, waited, p.noPageFree(limit, waited)
		}
		if err != nil && !time.Now().Before(latest) {
			return nil, waited, fmt.Errorf("render: %w for %v (render.start_timeout + render.timeout): all %d pages (render.contexts) went to other renders",
				ErrNoPageFree, waited.Round(time.Millisecond), p.cfg.Contexts)
		}
	}
}

// settingUpLocked says a page is being opened (the browser's start with it), or a
// start or stop is under way: each has its own limit (Config.StartTimeout), and
// the pool is setting up, not stuck. A failed one wakes the renders waiting; one
// that ends well moves the pool (Pool.moved), which a wait reads at its end.
func (p *Pool) settingUpLocked() bool {
	return p.opening > 0 || p.start != nil || len(p.stopping) > 0
}

// movedSince is when the pool last served, asked at the earliest: a page handed to
// a render, gone idle or closed, or a browser start ended.
func (p *Pool) movedSince(asked time.Time) time.Time {
	if p.moved.After(asked) {
		return p.moved
	}
	return asked
}

// idleMarkLocked is how long until the page idle longest has sat idle idleFor,
// when a page is idle.
func (p *Pool) idleMarkLocked() (time.Duration, bool) {
	var first time.Time
	for e := p.lru.Front(); e != nil; e = e.Next() {
		if t := e.Value.(*tab); !t.busy && (first.IsZero() || t.idleSince.Before(first)) {
			first = t.idleSince
		}
	}
	if first.IsZero() {
		return 0, false
	}
	return max(time.Until(first.Add(idleFor)), time.Millisecond), true
}

// noPageFree is the error of a render that waited for a page while the pool served
// no render for its whole time cap.
func (p *Pool) noPageFree(limit, waited time.Duration) error {
	return fmt.Errorf("render: %w in %v, the render's time cap (render.timeout): all %d busy (render.contexts) and none freed (waited %v)",
		ErrNoPageFree, limit, p.cfg.Contexts, waited.Round(time.Millisecond))
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
			t.browser = b.pid
			if b.shared { // not the pool's to kill, but its renderers' CPU is read alike
				t.browser = browserPID(b.ctx)
			}
			s.tabs[t] = p.lru.PushFront(t)
			p.sinceStart++
			p.moved = time.Now()
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
			id, err := answer(ctx, p, b, "a session's new browser context", func() (cdp.BrowserContextID, error) { return p.newContext(b.ctx) },
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
	p.moved = time.Now()
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
