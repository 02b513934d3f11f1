package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// tab is one page target in a session's browser context: one render at a time.
type tab struct {
	key       tabKey
	ctx       context.Context
	cancel    context.CancelFunc
	busy      bool      // a render has it (guarded by Pool.mu)
	idleSince time.Time // when its last render ended (guarded by Pool.mu)
	cur       atomic.Pointer[run]
	frame     string               // the main frame's id (a page target's id)
	bc        cdp.BrowserContextID // its session's browser context
	dead      atomic.Bool
	browser   int // the browser's pid: its renderers' CPU time tells a loop from a starved page
}

// noPopups runs before every script of a page: a popup would be a page outside
// our interception. It also keeps what the settle needs to know of the page's own
// work: its fetch and XHR calls under way, counted from the moment the script makes
// them (the paused request reaches us later, and on a loaded box after the network
// looked quiet) until 100 ms after their answer came; the bodies its script reads
// (r.json(), r.text()...) until 100 ms after they were read, for a fetch resolves
// with the answer's headers and its body reaches the page later (on a loaded box
// long after), and the page is built from it only then; its short timers (a
// script that builds the page a tick after its data came) while the document is
// young; and when its DOM last changed.
const noPopups = `window.open = function() { return null; };
(function(){ var n = 0, t0 = Date.now(), changed = t0, timers = {};
window.__ccSettle = function(){ return [n, Date.now() - changed]; };
var st = window.setTimeout, ct = window.clearTimeout;
function done(){ st(function(){ n--; }, 100); }
var f = window.fetch; if (f) { window.fetch = function(){ n++; var p = f.apply(this, arguments); p.then(done, done); return p; }; }
var R = window.Response && Response.prototype;
if (R) { ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'].forEach(function(m){
  var read = R[m]; if (read) { R[m] = function(){ var p = read.apply(this, arguments); n++; p.then(done, done); return p; }; }
}); }
var send = XMLHttpRequest.prototype.send; XMLHttpRequest.prototype.send = function(){ n++; this.addEventListener('loadend', done); return send.apply(this, arguments); };
window.setTimeout = function(fn, d){
  if (typeof fn !== 'function' || (d|0) > 1000 || Date.now() - t0 > 3000) { return st.apply(this, arguments); }
  var args = Array.prototype.slice.call(arguments, 2), id;
  n++; id = st(function(){ if (timers[id]) { delete timers[id]; n--; } return fn.apply(this, args); }, d); timers[id] = 1; return id;
};
window.clearTimeout = function(id){ if (timers[id]) { delete timers[id]; n--; } return ct(id); };
new MutationObserver(function(){ changed = Date.now(); }).observe(document, {subtree: true, childList: true, characterData: true});
})();`

func newTab(browser context.Context, bc cdp.BrowserContextID, k tabKey) (*tab, error) {
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithExistingBrowserContext(bc))
	t := &tab{key: k, ctx: ctx, cancel: cancel, bc: bc}
	paused := chromedp.Events(ctx, fetch.RequestPaused) // opens the target; subscribe before enabling
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}},
	}); err != nil {
		cancel()
		return nil, fmt.Errorf("render: intercepting a new context's requests: %w", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: noPopups}); err != nil {
		cancel()
		return nil, fmt.Errorf("render: preparing a new context: %w", err)
	}
	t.frame = string(chromedp.FromContext(ctx).Target.TargetID)
	go func() {
		for ev, err := range paused {
			if err != nil {
				t.dead.Store(true)
				return
			}
			go t.handle(ev)
		}
		t.dead.Store(true)
	}()
	return t, nil
}

// close disposes the context in the background: a hung renderer takes the
// browser seconds to kill, and the lane that rendered must not wait for it.
func (t *tab) close() {
	t.dead.Store(true)
	go t.cancel()
}

// run is one render's state, read by the request handlers.
type run struct {
	job      *Job
	cfg      *Config
	ctx      context.Context // ends with the render
	abort    context.CancelFunc
	docURL   string
	served   atomic.Bool // the document was answered
	inflight atomic.Int32
	quietAt  atomic.Int64 // unix ns of the last request's end
	requests atomic.Int32
	blocked  atomic.Int32
	bytes    atomic.Int64
	mu       sync.Mutex
	reason   string // why the render was ended early
	noYield  atomic.Bool
	done     recent        // the page's last requests answered (the poll check)
	domStill time.Duration // how long a polling page's DOM stays unchanged before it is read
}

func (r *run) fail(why string) {
	r.mu.Lock()
	if r.reason == "" {
		r.reason = why
	}
	r.mu.Unlock()
	r.abort()
}

func (r *run) why() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason
}

// render runs one job in the tab, within its whole time cap however long it
// waited for the tab (waited): a page cut short for the wait is read half built,
// and its host then judged unsettled. recycle says the context must go (the page
// hung, crashed, or broke a cap).
func (t *tab) render(ctx context.Context, j *Job, cfg Config, waited time.Duration) (out *Rendered, recycle bool, err error) {
	start := time.Now()
	yieldAfter := hurry(j, min(cfg.YieldLimit, cfg.Timeout/2))
	cfg.Timeout = hurry(j, cfg.Timeout)
	rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	// The notes and errors at the cap say how long the render waited before it.
	capped := fmt.Sprint(cfg.Timeout)
	if waited > 0 {
		capped += fmt.Sprintf(" (after %v waiting for a free page)", waited.Round(time.Millisecond))
	}
	defer cancel()
	// A navigation the page starts itself must not outlive the render.
	tctx, stopTab := context.WithCancel(t.ctx)
	defer stopTab()
	go func() {
		<-rctx.Done()
		stopTab()
	}()
	r := &run{job: j, cfg: &cfg, ctx: rctx, abort: cancel, docURL: stripFragment(j.URL), domStill: hurry(j, domStill)}
	r.quietAt.Store(time.Now().UnixNano())
	t.cur.Store(r)
	defer t.cur.Store(nil)
	watched := make(chan struct{})
	defer close(watched)
	go t.watchYield(r, yieldAfter, cfg.Timeout, watched)

	cookiesBefore := giveCookies(tctx, t.bc, j.Jar, j.URL)
	navErr := chromedp.Do(tctx, chromedp.Navigate(j.URL))
	if navErr == nil {
		r.quietAt.Store(time.Now().UnixNano())
		navErr = waitQuiet(tctx, r, cfg.Settle)
	}
	note := ""
	dctx := tctx
	steps := 0
	if navErr == nil && j.Scroll > 0 {
		var err error
		steps, err = t.scroll(tctx, r, j.Scroll, func(ctx context.Context) error { return waitQuiet(ctx, r, cfg.Settle) })
		if err != nil && r.why() == "" && t.ctx.Err() == nil && ctx.Err() == nil {
			// The cap came during the steps: the page settled before them, and
			// what it showed by now is read.
			note = fmt.Sprintf("took %d of %d scroll steps in %s: DOM read at the cap", steps, j.Scroll, capped)
			var stop context.CancelFunc
			dctx, stop = context.WithTimeout(t.ctx, time.Second)
			defer stop()
		} else if err != nil {
			navErr = err
		}
	}
	unsettled := false
	if errors.Is(navErr, errUnsettled) {
		// A polling page: what it built is read now, not at the cap.
		note = fmt.Sprintf("did not settle: asked its server again and again with its DOM unchanged for %v; DOM read after %v",
			r.domStill, time.Since(start).Round(10*time.Millisecond))
		navErr, unsettled, recycle = nil, true, true
	}
	if navErr != nil {
		if why := r.why(); why != "" {
			if r.noYield.Load() {
				return nil, true, fmt.Errorf("render: %w", noYieldErr(why))
			}
			return nil, true, errors.New("render: " + why)
		}
		if t.ctx.Err() != nil || ctx.Err() != nil {
			return nil, true, fmt.Errorf("render: stopped: %w", context.Cause(ctx))
		}
		// The time cap: a page still busy on the network (polling) has built
		// what it will; a page whose script never yields cannot be read.
		note = fmt.Sprintf("did not settle in %s: DOM read at the cap", capped)
		unsettled = true
		var stop context.CancelFunc
		dctx, stop = context.WithTimeout(t.ctx, time.Second)
		defer stop()
		recycle = true
	}
	if steps > 0 {
		if _, err := keepScrolled(dctx); err != nil && r.why() == "" {
			note = strings.TrimPrefix(note+"; ", "; ") + err.Error()
		}
	}
	dom, err := chromedp.Run(dctx, chromedp.Evaluate[string](`document.documentElement ? document.documentElement.outerHTML : ""`))
	if err != nil {
		if why := r.why(); why != "" {
			if r.noYield.Load() {
				return nil, true, fmt.Errorf("render: %w", noYieldErr(why))
			}
			return nil, true, errors.New("render: " + why)
		}
		if navErr != nil {
			return nil, true, fmt.Errorf("render: the page did not finish in %s and its DOM could not be read (a script that never yields?)", capped)
		}
		return nil, true, fmt.Errorf("render: reading the DOM: %w", err)
	}
	if why := r.why(); why != "" {
		return nil, true, errors.New("render: " + why)
	}
	takeCookies(dctx, t.bc, j.Jar, cookiesBefore)
	return &Rendered{DOM: []byte("<!DOCTYPE html>" + dom), Requests: int(r.requests.Load()), Blocked: int(r.blocked.Load()),
		Took: time.Since(start), Note: note, Steps: steps, Unsettled: unsettled}, recycle, nil
}

// waitQuiet waits until the page has settled: its network idle for settle, no
// fetch, XHR or short timer of its script under way, and its DOM unchanged for
// settle. The DOM's quiet is asked for only in the page's first domWait after
// load: a ticker or carousel that changes it forever must not hold the render to
// its time cap.
func waitQuiet(ctx context.Context, r *run, settle time.Duration) error {
	tick := time.NewTicker(max(settle/5, 10*time.Millisecond))
	defer tick.Stop()
	loaded := time.Now()
	var probed time.Time
	for {
		quiet := r.inflight.Load() == 0 && time.Since(time.Unix(0, r.quietAt.Load())) >= settle
		if quiet || time.Since(probed) >= busyProbe {
			probed = time.Now()
			st, err := chromedp.Run(ctx, chromedp.Evaluate[[]int64](`window.__ccSettle ? window.__ccSettle() : [0, 1e9]`))
			if err != nil {
				return err
			}
			if len(st) == 2 {
				still := time.Duration(st[1]) * time.Millisecond
				if quiet && st[0] == 0 && (still >= settle || time.Since(loaded) > domWait) {
					return nil
				}
				if still >= r.domStill && r.done.repeats(time.Now().Add(-still)) >= pollRepeats {
					return errUnsettled
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// domWait bounds how long after load the settle waits for the DOM to stop changing.
const domWait = 2 * time.Second

// handle answers one paused request: from the plain fetch (the document), through
// Job.Fetch, or with a refusal. It never lets Chrome's own network send it.
func (t *tab) handle(ev fetch.EventRequestPaused) {
	r := t.cur.Load()
	failWith := func(reason network.ErrorReason) {
		chromedp.Call(t.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: reason})
	}
	if r == nil || r.ctx.Err() != nil || ev.Request == nil {
		failWith(network.ErrorReasonAborted)
		return
	}
	rq := ev.Request
	if ev.ResourceType == network.ResourceTypeDocument {
		if string(ev.FrameID) == t.frame && stripFragment(rq.URL) == r.docURL && r.served.CompareAndSwap(false, true) {
			t.fulfil(ev.RequestID, r.job.Status, r.job.Header, r.job.Body)
			return
		}
		if string(ev.FrameID) == t.frame {
			failWith(network.ErrorReasonBlockedByClient)
			r.fail("the page navigated away to " + rq.URL)
			return
		}
	}
	if slices.Contains(r.cfg.Block, string(ev.ResourceType)) || ev.ResourceType == network.ResourceTypeDocument ||
		!r.allowedHost(rq.URL) {
		r.blocked.Add(1)
		failWith(network.ErrorReasonBlockedByClient)
		return
	}
	if int(r.requests.Add(1)) > r.cfg.MaxRequests {
		r.blocked.Add(1)
		failWith(network.ErrorReasonBlockedByClient)
		r.fail(fmt.Sprintf("the page asked for more than %d resources", r.cfg.MaxRequests))
		return
	}
	req, err := http.NewRequestWithContext(r.ctx, rq.Method, rq.URL, postBody(rq))
	if err != nil {
		failWith(network.ErrorReasonFailed)
		return
	}
	for k, v := range rq.Headers {
		if s, ok := v.(string); ok && keepHeader(k) {
			req.Header.Set(k, s)
		}
	}
	r.inflight.Add(1)
	// The network is quiet from when the page has the answer, not from when the
	// crawler had it: on a loaded box handing it over takes a while.
	defer func() {
		r.quietAt.Store(time.Now().UnixNano())
		r.done.add(rq.URL)
		r.inflight.Add(-1)
	}()
	resp, err := r.job.Fetch(r.ctx, req)
	if err != nil || resp == nil || resp.Status < 100 {
		failWith(network.ErrorReasonFailed)
		return
	}
	if r.bytes.Add(int64(len(resp.Body))) > r.cfg.MaxBytes {
		failWith(network.ErrorReasonBlockedByClient)
		r.fail(fmt.Sprintf("the page loaded more than %d bytes", r.cfg.MaxBytes))
		return
	}
	t.fulfil(ev.RequestID, resp.Status, resp.Header, resp.Body)
}

func (t *tab) fulfil(id fetch.RequestID, status int, h http.Header, body []byte) {
	var hdr []*fetch.HeaderEntry
	for k, vs := range h {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Encoding", "Content-Length", "Transfer-Encoding", "Set-Cookie":
			continue // the body is decoded; cookies stay in the crawler's jar
		}
		for _, v := range vs {
			hdr = append(hdr, &fetch.HeaderEntry{Name: k, Value: v})
		}
	}
	if status == 0 {
		status = http.StatusOK
	}
	chromedp.Call(t.ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
		RequestID: id, ResponseCode: int64(status), ResponseHeaders: hdr, Body: body,
	})
}

// allowedHost says whether a request may go to its host: the page's site and its
// subdomains, and Config.AllowHosts.
func (r *run) allowedHost(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	h := strings.ToLower(u.Hostname())
	site := strings.ToLower(r.job.Site)
	if i := strings.LastIndexByte(site, ':'); i >= 0 && !strings.Contains(site[i:], "]") {
		site = site[:i]
	}
	if h == site || strings.HasSuffix(h, "."+site) {
		return true
	}
	for _, a := range r.cfg.AllowHosts {
		a = strings.ToLower(a)
		if h == a || strings.HasSuffix(h, "."+a) {
			return true
		}
	}
	return false
}

// keepHeader says which of the browser's request headers go on: those a page's
// script sets for its API (Accept, Content-Type, X-Requested-With...), never the
// browser's identity or cookies (the crawler's client sets those).
func keepHeader(k string) bool {
	switch strings.ToLower(k) {
	case "user-agent", "cookie", "host", "connection", "accept-encoding", "content-length",
		"sec-ch-ua", "sec-ch-ua-mobile", "sec-ch-ua-platform", "upgrade-insecure-requests":
		return false
	}
	return true
}

func postBody(rq *network.Request) io.Reader {
	if !rq.HasPostData || len(rq.PostDataEntries) == 0 {
		return nil
	}
	var b strings.Builder
	for _, e := range rq.PostDataEntries {
		b.Write(e.Bytes)
	}
	return strings.NewReader(b.String())
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}
