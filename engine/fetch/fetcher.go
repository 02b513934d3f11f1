// Package fetch downloads pages for the lanes: one colly collector with one keep-alive
// transport per egress, names resolved by the engine's resolver and every dial checked
// by the SSRF guard, with timeouts, a body cap, a redirect limit, a content-type filter
// and link extraction. Links are read with the HTML tokenizer, not colly's goquery
// callbacks: building a DOM per page to read hrefs costs more than the fetch itself.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/robots"
)

// Config sets the fetch limits shared by every egress.
type Config struct {
	UserAgent      string        // sent on every request, robots.txt included
	ConnectTimeout time.Duration // TCP connect
	RequestTimeout time.Duration // whole request, body included
	MaxBodyBytes   int           // larger bodies are cut off and counted as body_too_large
	MaxRedirects   int           // redirects followed per fetch
	ContentTypes   []string      // media types kept as pages (others: content_type)
	// Discovery also accepts feeds and sitemaps (XML, gzip) and parses them
	// (engine/discover) into Result.Discovered, under MaxDocumentBytes decoded.
	Discovery bool
	// MaxDocumentBytes caps, with Discovery on, a body whose Content-Type says
	// XML or gzip (a feed's or sitemap's): the sitemaps protocol allows 50 MB
	// uncompressed, five times a page's usual cap, and a news site's sitemap that
	// size is otherwise lost whole. A body labelled HTML, text or octet-stream
	// has it when its start says feed or sitemap (limitOf), else MaxBodyBytes.
	// 0, or less than MaxBodyBytes: MaxBodyBytes.
	MaxDocumentBytes int
	// RedirectPause returns how long to wait before following a same-host redirect:
	// a redirect hop is one more request to the host, and the site's bot rule counts
	// it like any other (M1). nil: follow at once.
	RedirectPause func() time.Duration
	// Held reports whether the operator holds a host (paused or disabled): a
	// robots.txt redirect to it is not followed (HeldError), as the host gets no
	// request of any kind; nor is a same-host hop whose host was held during its
	// pause (a page's 3xx stands and its target is queued). A page's redirect to
	// another host is not followed anyway (its target is queued). nil: no host is
	// held.
	Held func(host string) bool
	// KeepParse reads an HTML page's links in the page model's tokenizer pass
	// and keeps that parse in Result.Parsed, for the engine to sign
	// the page without tokenizing it again (one box signs what it stores, a worker
	// signs before sending). Off, the links are read and no parse is kept.
	KeepParse bool
}

// documentCap is the decoded size a feed or sitemap may have (MaxDocumentBytes).
func (c Config) documentCap() int {
	if c.Discovery && c.MaxDocumentBytes > c.MaxBodyBytes {
		return c.MaxDocumentBytes
	}
	return c.MaxBodyBytes
}

// bodyCap is the largest body any response may have.
func (c Config) bodyCap() int { return max(c.MaxBodyBytes, c.documentCap()) }

// limitFor is the decoded size a body of media type mt may have: a feed's or
// sitemap's type (XML, gzip) the document cap, any other the page cap.
func (c Config) limitFor(mt string) int {
	if discoveryType(mt) {
		return c.documentCap()
	}
	return c.MaxBodyBytes
}

// Result is one HTTP exchange. Non-2xx statuses come back as a Result, not an error:
// the engine decides what a 403, 429 or 5xx means.
type Result struct {
	URL         string
	FinalURL    string // after redirects
	Status      int
	Header      http.Header
	ContentType string // media type, lower-case, without parameters
	Body        []byte
	Links       []string // raw a/area href values, in document order (resolve with Base)
	Base        string   // raw <base href>, if any
	Canonical   string   // raw <link rel=canonical> href, if any
	// NofollowLinks are the raw hrefs of links marked rel="nofollow", kept out of
	// Links: a hint the engine follows or not (etiquette.rel_nofollow).
	NofollowLinks []string
	// Robots are the page-level directives for us: <meta name="robots">, <meta
	// name="TOKEN"> and X-Robots-Tag (general or scoped to our product token).
	Robots   robots.Directives
	Duration time.Duration
	// Exchanges are the request and response of each hop as they crossed the wire
	// (a WARC export's records), the final response last; its body is Body.
	Exchanges []Exchange `json:",omitempty"`
	// Feeds are the raw hrefs of <link rel="alternate"> feeds on an HTML page.
	Feeds []string `json:",omitempty"`
	// FeedsDropped counts the page's feed links past page.MaxFeedLinks, not in Feeds.
	FeedsDropped int `json:",omitempty"`
	// Discovered is the parsed feed or sitemap (Config.Discovery), nil for pages.
	// It stays on the lane's side of the wire (a 50,000-URL sitemap would pass the
	// result header's cap); DiscoveredKind travels, and a master parses the body,
	// which travels raw, again.
	Discovered     *discover.Doc `json:"-"`
	DiscoveredKind discover.Kind `json:",omitempty"`
	// DiscoveryError says why a body labelled as a feed or sitemap could not be read
	// as one (HTML served as a feed, malformed XML, past the size cap).
	DiscoveryError string `json:",omitempty"`
	// RobotsSitemaps are the Sitemap lines of the origin's robots.txt, attached by
	// the engine to the first response it gets from an origin (RobotsRead true), so
	// that the frontier side — a master, too — learns them.
	RobotsSitemaps []string `json:",omitempty"`
	RobotsRead     bool     `json:",omitempty"`
	// Parsed is the HTML body as the page model read it in the pass that found
	// its links (KeepParse), for the block-page judge's main text and the
	// engine's page.Parsed.Sign to finish; nil for other bodies. It stays on the
	// lane's side of the wire (a worker sends Signed instead). Not safe for
	// concurrent use: the lane that fetched the page reads it.
	Parsed *page.Parsed `json:"-"`
	// Signed is the change signature a worker finished from Parsed before sending
	// the result (M4): the master stores it instead of parsing the body again. nil
	// where it was not computed (one box signs from Parsed itself).
	Signed *Signed `json:"sig,omitempty"`
	// Render is what rendering the page in a browser made of it (engine/render);
	// nil when it was not rendered.
	Render *Rendering `json:"render,omitempty"`
}

// Signed is a page's change signature as the lane's side computed it: OK false means
// the body had no usable text (revisit: "unknown", never a false verdict).
type Signed struct {
	Sig page.Signature `json:"s"`
	OK  bool           `json:"ok,omitempty"`
	// Meta is the page's metadata from the same parse (nil when it has none).
	Meta *page.Metadata `json:"m,omitempty"`
	// Story is the main text's story fingerprint (engine/stories.Fingerprint),
	// for the master's story index; HasStory false when the text gave none.
	Story    uint64 `json:"st,omitempty"`
	HasStory bool   `json:"hs,omitempty"`
}

// Fetcher fetches through one egress. It is safe for concurrent use by the lanes
// bound to that egress, which share its keep-alive connections.
type Fetcher struct {
	cfg       Config
	dialer    *Dialer
	c         *colly.Collector
	transport *http.Transport
	robots    *http.Client
	token     string       // our product token (robots.ProductToken of the User-Agent)
	userAgent []string     // the User-Agent header's value, shared by every request (acceptValue)
	exchanges exchangeBook // the exchange logs of the fetches under way
	types     mediaTypes   // Content-Type values read before
}

// The values of the header fields every request carries, shared by the requests'
// header maps: nothing below Fetch writes into a header value in place (net/http
// and colly set or add fields, which replaces or regrows a one-element slice), and
// a request's header map is built anew with each fetch.
var (
	acceptValue         = []string{"text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"}
	acceptEncodingValue = []string{acceptEncoding}
)

type ctxKey string

const resultKey ctxKey = "crawlconsole.result"

type exchange struct {
	res  *Result
	kind string // set when a callback rejects the response
	err  error
	log  *exchangeLog
	// result and record are what res and log point to in a fetch's exchange
	// (Fetch): one allocation for the three. id is the value of the request's
	// exchangeHeader field, the log's id in the fetcher's book.
	result Result
	record exchangeLog
	id     [1]string
}

// New returns a Fetcher. tr is the egress's keep-alive transport (M3 builds one per
// egress: bind, HTTP or SOCKS5 proxy, each refusing held hosts with HeldRefusal);
// nil builds a direct one dialling through d, refusing them too. d
// also checks cross-host redirect targets against the SSRF guard. ctx bounds every
// request (engine stop).
func New(ctx context.Context, cfg Config, d *Dialer, tr *http.Transport) *Fetcher {
	if tr == nil {
		// No ResponseHeaderTimeout: every request through this transport (a page,
		// robots.txt, a rendered page's resource) goes out under a deadline of
		// RequestTimeout set before it is written, which ends first, and a header
		// timeout costs a timer per request.
		tr = &http.Transport{
			DialContext:            d.DialContext,
			MaxIdleConns:           512,
			MaxIdleConnsPerHost:    8,
			IdleConnTimeout:        90 * time.Second,
			TLSHandshakeTimeout:    cfg.ConnectTimeout,
			ForceAttemptHTTP2:      true,
			MaxResponseHeaderBytes: egress.MaxResponseHeaderBytes,
			ReadBufferSize:         egress.ReadBufferSize,
		}
		if refuse := HeldRefusal(cfg.Held); refuse != nil {
			tr.Proxy = func(req *http.Request) (*url.URL, error) { return nil, refuse(req) }
		}
	}
	// Build the collector by hand: colly.NewCollector lets COLLY_* environment
	// variables override what we set, and nothing may silently override the operator.
	c := &colly.Collector{}
	c.Init()
	c.UserAgent = cfg.UserAgent
	c.AllowURLRevisit = true // the frontier dedupes (M4); colly's own visited set would grow forever
	c.MaxBodySize = cfg.bodyCap() + 1
	c.ParseHTTPErrorResponse = true
	c.IgnoreRobotsTxt = true // robots.txt is fetched by the lanes, through the politeness gate
	c.Context = ctx
	// Bodies are decoded and capped on decoded bytes below colly (bodyCapper), so
	// colly never decompresses anything itself.
	f := &Fetcher{cfg: cfg, dialer: d, c: c, transport: tr, token: robots.ProductToken(cfg.UserAgent), userAgent: []string{cfg.UserAgent}}
	c.WithTransport(&bodyCapper{rt: tr, pause: cfg.RedirectPause, limit: int64(cfg.MaxBodyBytes), docLimit: int64(cfg.documentCap()), exchanges: &f.exchanges, types: &f.types})
	// The request timeout is a deadline on the fetch's own context (Fetch), not
	// the client's Timeout: with a Timeout, net/http cancels a request that goes
	// through a RoundTripper it does not know (bodyCapper) with a timer and two
	// goroutines of its own per request, where a context deadline costs one timer.
	c.SetRequestTimeout(0)
	c.DisableCookies() // colly's Init makes one jar for every site; SetJar gives the egress's own
	c.SetRedirectHandler(f.checkRedirect)
	c.OnResponseHeaders(f.onHeaders)
	c.OnResponse(f.onResponse)
	f.robots = &http.Client{Transport: &bodyCapper{rt: tr, pause: cfg.RedirectPause, limit: robotsMaxBytes, truncate: true}, Timeout: cfg.RequestTimeout, CheckRedirect: f.robotsRedirect}
	return f
}

// exchangeBook holds the exchange logs of the fetches under way, by the id their
// requests carry down to bodyCapper (exchangeHeader).
type exchangeBook struct {
	mu   sync.Mutex
	logs map[string]*exchangeLog
	next uint64
}

// add books log and returns its id.
func (b *exchangeBook) add(log *exchangeLog) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	id := strconv.FormatUint(b.next, 10)
	if b.logs == nil {
		b.logs = make(map[string]*exchangeLog)
	}
	b.logs[id] = log
	return id
}

// get returns the log booked under id; nil when there is none (or no book).
func (b *exchangeBook) get(id string) *exchangeLog {
	if b == nil || id == "" {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.logs[id]
}

func (b *exchangeBook) remove(id string) {
	b.mu.Lock()
	delete(b.logs, id)
	b.mu.Unlock()
}

// replayPause paces the requests net/http sends again by itself. When a kept-alive
// connection fails after the request went out and before a response came (the server
// hung up or reset it), the transport replays an idempotent request on a new
// connection at once; the server may well have read the first one, and to a site's
// bot rule the replay is a second request right behind it (M1's gap). So a request's
// second connection waits the same pause as a same-host redirect hop (Config.
// RedirectPause) before the request is written: GotConn runs on the requesting
// goroutine between getting a connection and writing to it. One replayPause serves
// one RoundTrip; bodyCapper calls it from the hop's own trace, so a request carries
// one client trace, not two composed (httptrace composes hooks by reflection).
type replayPause struct {
	pause func() time.Duration
	ctx   context.Context
	conns atomic.Int32
}

// gotConn waits the pause before the request is written on any connection but the
// first.
func (p *replayPause) gotConn() {
	if p.conns.Add(1) == 1 {
		return
	}
	t := time.NewTimer(p.pause())
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.ctx.Done(): // the write that follows fails on the cancelled context
	}
}

func exchangeOf(ctx *colly.Context) *exchange {
	x, _ := ctx.GetAny(string(resultKey)).(*exchange)
	return x
}

// SetJar gives the fetcher its egress's cookie jar (cookies.Jar: one session per
// site, never shared between egresses); nil turns cookies off. Call it before the
// first fetch. Pages and robots.txt share the jar, as a browser's tabs would.
func (f *Fetcher) SetJar(j http.CookieJar) {
	f.c.SetCookieJar(j)
	f.robots.Jar = j
}

// Close drops the egress's idle connections.
func (f *Fetcher) Close() { f.transport.CloseIdleConnections() }

// Fetch GETs url with extra headers (conditional GET, ...). Failures that produced no
// usable HTTP response return an *Error with its kind (and the redirect hops answered
// before it, Error.Exchanges).
func (f *Fetcher) Fetch(url string, hdr http.Header) (*Result, error) {
	return f.FetchWithin(nil, url, hdr)
}

// FetchWithin is Fetch cut short, as a timeout, when within ends (nil: never): a
// worker's request ends with its lease.
func (f *Fetcher) FetchWithin(within context.Context, url string, hdr http.Header) (*Result, error) {
	x := &exchange{result: Result{URL: url}, record: exchangeLog{whole: true}}
	x.res, x.log = &x.result, &x.record
	cctx := colly.NewContext()
	cctx.Put(string(resultKey), x)
	h := make(http.Header, len(hdr)+4)
	h["User-Agent"] = f.userAgent
	h["Accept"] = acceptValue
	h["Accept-Encoding"] = acceptEncodingValue
	for k, v := range hdr {
		h[k] = v
	}
	log := x.log
	defer log.release() // after Exchanges (and Error.Exchanges) copied what they keep
	if f.cfg.RequestTimeout > 0 {
		// colly reads the whole body before Request returns: the deadline
		// covers every hop, the redirect pauses and the body.
		var cancel context.CancelFunc
		log.ctx, cancel = context.WithTimeout(f.c.Context, f.cfg.RequestTimeout)
		defer cancel()
	}
	if within != nil {
		if log.ctx == nil {
			var cancel context.CancelFunc
			log.ctx, cancel = context.WithCancel(f.c.Context)
			defer cancel()
		}
		ctx, cancel := context.WithCancel(log.ctx)
		defer cancel()
		defer context.AfterFunc(within, cancel)()
		log.ctx = ctx
	}
	x.id[0] = f.exchanges.add(log)
	h[exchangeHeader] = x.id[:]
	start := time.Now()
	err := f.c.Request(http.MethodGet, url, nil, cctx, h)
	x.res.Duration = time.Since(start)
	f.exchanges.remove(x.id[0])
	x.res.Exchanges = log.exchanges()
	switch {
	case x.kind != "":
		return x.res, &Error{Kind: x.kind, URL: url, Err: x.err}
	case err != nil && Kind(err) == KindTooLarge && x.res.Status != 0:
		x.res.Body = nil // like a body cut off in onResponse: the status and headers are kept
		return x.res, &Error{Kind: KindTooLarge, URL: url, Err: err}
	case err != nil && Kind(err) == KindHeadersTooLarge:
		// net/http's own words name a byte count and nothing else: say what it means.
		return nil, &Error{Kind: KindHeadersTooLarge, URL: url, Err: fmt.Errorf(
			"the server sent over %d MiB of response headers (real servers send a few KiB): not read further", egress.MaxResponseHeaderBytes>>20),
			Exchanges: log.received(KindHeadersTooLarge)}
	case err != nil:
		// No Result, but the responses received on the way are kept for the
		// archive (Error.Exchanges): every redirect answered, and a final
		// response whose body failed, with what came of it (cut, Failed), go into
		// the WARC.
		return nil, &Error{Kind: Kind(err), URL: url, Err: err, Exchanges: log.received(Kind(err))}
	}
	return x.res, nil
}

// checkRedirect follows same-host redirects after a politeness pause, and hands
// cross-host redirects back as a 3xx Result: the engine queues the target as a new
// task so that the lane rule (M1) decides who fetches it, and when.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return &redirectError{kind: KindTooManyRedir, msg: fmt.Sprintf("stopped after %d redirects", f.cfg.MaxRedirects)}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &redirectError{kind: KindBadRedirect, msg: fmt.Sprintf("redirect to unsupported scheme %q", req.URL.Scheme)}
	}
	target := req.URL.String()
	for _, v := range via {
		if v.URL.String() == target {
			return &redirectError{kind: KindRedirectLoop, msg: "redirect loop back to " + target}
		}
	}
	if req.URL.Host != via[0].URL.Host {
		// A host the operator holds gets no traffic from us, not even the
		// lookup of its name: the 3xx stands, and the guard judges the target
		// when its own task is fetched, after the hold.
		if f.cfg.Held != nil && f.cfg.Held(req.URL.Hostname()) {
			return http.ErrUseLastResponse
		}
		// SSRF: refuse a redirect into a blocked range here and now, not only when
		// the target's own task is fetched.
		if _, err := f.dialer.Allowed(req.Context(), req.URL.Hostname()); err != nil {
			return err
		}
		return http.ErrUseLastResponse
	}
	if err := f.pauseRedirect(req); err != nil {
		if _, held := err.(*HeldError); held {
			return http.ErrUseLastResponse // the 3xx stands: its target is queued, to wait for the hold's end
		}
		return err
	}
	return nil
}

// pauseRedirect waits the politeness pause before a same-host redirect hop. The
// operator may hold the host during the pause (seconds long): then the hop is not
// sent (HeldError), as a held host gets no request of any kind.
func (f *Fetcher) pauseRedirect(req *http.Request) error {
	if f.cfg.RedirectPause != nil {
		t := time.NewTimer(f.cfg.RedirectPause())
		defer t.Stop()
		select {
		case <-t.C:
		case <-req.Context().Done():
			return req.Context().Err()
		}
	}
	if f.cfg.Held != nil && f.cfg.Held(req.URL.Hostname()) {
		return &HeldError{Host: req.URL.Hostname()}
	}
	return nil
}

func (f *Fetcher) onHeaders(r *colly.Response) {
	x := exchangeOf(r.Ctx)
	if x == nil {
		return
	}
	x.res.Status = r.StatusCode
	x.res.Header = keptHeader(*r.Headers) // cookies never leave the jar
	x.res.FinalURL = x.log.urlOf(r.Request.URL)
	x.res.ContentType = f.types.mediaType(r.Headers.Get("Content-Type"))
	for _, v := range r.Headers.Values("X-Robots-Tag") {
		x.res.Robots.AddHeader(v, f.token)
	}
	if r.StatusCode/100 == 2 && !f.allowedType(x.res.ContentType) {
		// With Discovery on, the types feeds and sitemaps come under are let in
		// and decided by their content (onResponse); the rest stops here.
		x.kind, x.err = KindContentType, fmt.Errorf("content type %q is not crawled", x.res.ContentType)
		r.Request.Abort()
		return
	}
	if cl := r.Headers.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(strings.TrimSpace(cl), 10, 64); err == nil && n > int64(f.cfg.headerLimit(x.res.ContentType)) {
			x.kind, x.err = KindTooLarge, fmt.Errorf("Content-Length %d exceeds the %d-byte limit", n, f.cfg.headerLimit(x.res.ContentType))
			r.Request.Abort()
		}
	}
}

// keptHeader is a response's header as a Result keeps it: h itself when no field
// of it is redacted (the response is the fetch's own, and nothing writes to its
// header once it came up to colly), else RedactHeaders' copy.
func keptHeader(h http.Header) http.Header {
	for k := range h {
		if RedactHeader(k) {
			return RedactHeaders(h)
		}
	}
	return h
}

func (f *Fetcher) allowedType(mt string) bool {
	if mt == "" {
		return true // sniffed below
	}
	if f.cfg.Discovery && (discoveryType(mt) || sniffType(mt)) {
		return true // a feed or sitemap whatever its label: sniffed in onResponse
	}
	return f.pageType(mt)
}

// pageType says whether a media type is stored as a page (Config.ContentTypes).
func (f *Fetcher) pageType(mt string) bool {
	for _, t := range f.cfg.ContentTypes {
		if t == mt {
			return true
		}
	}
	return false
}

func (f *Fetcher) onResponse(r *colly.Response) {
	x := exchangeOf(r.Ctx)
	if x == nil {
		return
	}
	body := r.Body
	if b, ok := x.log.wholeBody(); ok {
		body = b
	}
	x.res.Body = body
	if limit := f.cfg.limitOf(x.res.ContentType, body); len(body) > limit {
		x.kind, x.err = KindTooLarge, fmt.Errorf("body exceeds the %d-byte limit", limit)
		x.res.Body = nil
		return
	}
	mt := x.res.ContentType
	if f.cfg.Discovery && r.StatusCode/100 == 2 && f.readDiscovery(x, r, body) {
		return
	}
	if r.StatusCode/100 == 2 && looksBinary(body) {
		x.kind, x.err = KindBinary, errors.New("binary content labelled as text")
		x.res.Body = nil
		return
	}
	if mt == "" || strings.Contains(mt, "html") {
		var p pageLinks
		if f.cfg.KeepParse {
			// Every reader of the answer (block-page judge, signature) takes it
			// from this one pass, an error page's judge too.
			p, x.res.Parsed = readPage(body, r.Headers.Get("Content-Type"), f.token)
		} else {
			p = extractLinks(body, f.token)
		}
		x.res.Links, x.res.NofollowLinks, x.res.Base, x.res.Canonical = p.Links, p.Nofollow, p.Base, p.Canonical
		x.res.Feeds, x.res.FeedsDropped = p.Feeds, p.FeedsDropped
		x.res.Robots.NoIndex = x.res.Robots.NoIndex || p.Robots.NoIndex
		x.res.Robots.NoFollow = x.res.Robots.NoFollow || p.Robots.NoFollow
	}
}

// readDiscovery decides a successful body by its content: a feed or sitemap is
// parsed as one whatever its label says (Result.Discovered); a page type that is not
// one goes on as a page; a body accepted only to be sniffed (text/plain,
// octet-stream...) that is neither is refused as content_type, saying why. It
// returns true when the body is dealt with.
func (f *Fetcher) readDiscovery(x *exchange, r *colly.Response, body []byte) bool {
	mt := x.res.ContentType
	sniffedOnly := mt != "" && !f.pageType(mt) && !discoveryType(mt)
	if !discoveryCandidate(mt, body) {
		if sniffedOnly {
			why := fmt.Sprintf("neither a page nor a feed or sitemap: it starts %s", startOf(body))
			x.kind, x.err = KindContentType, fmt.Errorf("content type %q is not crawled, and the body is no feed or sitemap (%s)", mt, why)
			x.res.DiscoveryError = why
			x.res.Body = nil
			return true
		}
		return false
	}
	src := discover.Source{URL: x.res.FinalURL, ContentType: r.Headers.Get("Content-Type")}
	doc, err := discover.ParseFrom(body, src, discover.Limits{MaxBytes: int64(f.cfg.documentCap())})
	if err == nil || (len(doc.Entries) > 0 && doc.Kind != "") {
		x.res.Discovered, x.res.DiscoveredKind = &doc, doc.Kind
		if err != nil {
			x.res.DiscoveryError = err.Error()
		}
		return true
	}
	switch {
	case sniffedOnly:
		x.kind, x.err = KindContentType, fmt.Errorf("content type %q is not crawled, and the body is no feed or sitemap: %v", mt, err)
		x.res.DiscoveryError = err.Error()
		x.res.Body = nil
		return true
	case (mt != "" && !strings.Contains(mt, "html")) || !errors.Is(err, discover.ErrNotDiscovery):
		// Labelled as XML, or looking like a feed, but none could be read: say
		// why; the body goes on as a page (or as binary).
		x.res.DiscoveryError = err.Error()
	}
	return false
}
