package sandbox

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Sandbox is a running sandbox web: the virtual-host HTTP server, the DNS server and
// the truth endpoint, all on loopback, over one Web model and one Truth.
type Sandbox struct {
	cfg   Config
	clock *webClock
	web   *Web
	truth *Truth
	bot   *antiBot // nil when AntiBot.Enabled is false
	load  *load    // fragile and throttling hosts, the cookie rule

	httpSrv, truthSrv *http.Server
	httpAddr          string
	truthURL          string
	dns               *dnsServer
	reqNo             atomic.Int64
	closeOnce         sync.Once
	// redirects are the URLs a test moved to another (Redirect): "host/path" ->
	// the absolute URL of the 302's Location.
	redirects sync.Map
}

// Redirect answers from ("host/path", no port, no query) with a 302 to to (an
// absolute URL) from now on, before the web's own page or robots.txt at that path:
// a test's cross-host redirect, a robots.txt's included. The anti-bot rule and the
// truth count it as any request to the host.
func (s *Sandbox) Redirect(from, to string) { s.redirects.Store(from, to) }

// Info is what `crawlconsole sandbox` prints as its JSON line.
type Info struct {
	// HTTP is the HTTP server's "127.0.0.1:PORT"; every sandbox name is served there.
	HTTP string `json:"http"`
	// DNS is the DNS server's "127.0.0.1:PORT" (UDP and TCP).
	DNS string `json:"dns"`
	// Truth is the URL of the ground-truth endpoint.
	Truth string `json:"truth"`
	// Port is the HTTP port every sandbox URL carries.
	Port int `json:"port"`
	// Scale is how many times faster than real time web time runs.
	Scale float64 `json:"scale"`
	// Seed is the seed the web was built from.
	Seed int64 `json:"seed"`
	// Sites lists the sites with their class, hosts, entry URL, search template, keywords.
	Sites []Site `json:"sites"`
}

// Start validates cfg, listens on its loopback addresses and serves the sandbox web
// until Close.
func Start(cfg Config) (*Sandbox, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	httpLn, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return nil, listenError("HTTP", cfg.HTTPAddr, err)
	}
	pc, dnsLn, err := listenDNS(cfg.DNSAddr)
	if err != nil {
		httpLn.Close()
		return nil, err
	}
	truthLn, err := net.Listen("tcp", cfg.TruthAddr)
	if err != nil {
		httpLn.Close()
		pc.Close()
		dnsLn.Close()
		return nil, listenError("truth", cfg.TruthAddr, err)
	}
	port := httpLn.Addr().(*net.TCPAddr).Port
	s := &Sandbox{
		cfg:      cfg,
		clock:    &webClock{realStart: time.Now(), epoch: cfg.Epoch, scale: cfg.Scale},
		httpAddr: httpLn.Addr().String(),
		truthURL: "http://" + truthLn.Addr().String() + "/truth",
	}
	s.web = buildWeb(cfg, port, s.clock)
	s.truth = newTruth(s.web)
	if cfg.AntiBot.Enabled {
		s.bot = newAntiBot(s.web)
	}
	s.load = newLoad(s.web)
	quiet := log.New(io.Discard, "", 0) // clients that hang up are the web's normal weather
	s.httpSrv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: quiet}
	s.truthSrv = &http.Server{Handler: http.HandlerFunc(s.serveTruth), ReadHeaderTimeout: 30 * time.Second, ErrorLog: quiet}
	s.dns = startDNS(pc, dnsLn, s.web, s.truth)
	go s.httpSrv.Serve(httpLn)   //nolint:errcheck // returns on Close
	go s.truthSrv.Serve(truthLn) //nolint:errcheck // returns on Close
	return s, nil
}

// Info describes the running sandbox.
func (s *Sandbox) Info() Info {
	return Info{
		HTTP: s.httpAddr, DNS: s.dns.addr, Truth: s.truthURL,
		Port: s.web.port, Scale: s.cfg.Scale, Seed: s.cfg.Seed, Sites: s.web.Sites(),
	}
}

// HTTPAddr is the "127.0.0.1:PORT" of the virtual-host HTTP server.
func (s *Sandbox) HTTPAddr() string { return s.httpAddr }

// DNSAddr is the "127.0.0.1:PORT" of the DNS server (UDP and TCP).
func (s *Sandbox) DNSAddr() string { return s.dns.addr }

// TruthURL is the URL of the ground-truth endpoint (a separate loopback listener).
func (s *Sandbox) TruthURL() string { return s.truthURL }

// Truth is the in-process ground truth.
func (s *Sandbox) Truth() *Truth { return s.truth }

// Web is the content model the sandbox serves.
func (s *Sandbox) Web() *Web { return s.web }

// Config is the configuration the sandbox runs with.
func (s *Sandbox) Config() Config { return s.cfg }

// Now is the current web time.
func (s *Sandbox) Now() time.Time { return s.clock.now() }

// RealTime converts a web time to the real wall time at which this sandbox reaches it.
func (s *Sandbox) RealTime(web time.Time) time.Time { return s.clock.realAt(web) }

// WebTime maps a real time to web time: when a crawler's clock stamped a fetch, in
// the web's time (the inverse of RealTime).
func (s *Sandbox) WebTime(real time.Time) time.Time { return s.clock.webAt(real) }

// Close stops every server; in-flight slow responses are cut. It is safe to call twice.
func (s *Sandbox) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.httpSrv.Shutdown(ctx) //nolint:errcheck // Close below cuts what Shutdown could not
		s.httpSrv.Close()
		s.truthSrv.Close()
		s.dns.close()
	})
	return nil
}

// serveTruth answers GET /truth[?since=N] with the truth as JSON.
func (s *Sandbox) serveTruth(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/truth" {
		http.NotFound(w, r)
		return
	}
	since := 0
	if v := r.URL.Query().Get("since"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			http.Error(w, "since must be a request index ≥ 0", http.StatusBadRequest)
			return
		}
		since = n
	}
	w.Header().Set("Content-Type", "application/json")
	s.truth.WriteJSON(w, since) //nolint:errcheck // the client may be gone
}

// clientIP is the source address of the connection: the identity anti-bot rules judge.
func clientIP(remoteAddr string) string {
	if host, _, err := net.SplitHostPort(remoteAddr); err == nil {
		return host
	}
	return remoteAddr
}

// exchange is one request being answered, and its truth record.
type exchange struct {
	s    *Sandbox
	rec  Request
	h    *vhost // nil for hosts outside the sandbox
	pk   uint64 // parent key for the anti-bot rule
	done bool
}

// finish closes the record: the request leaves the anti-bot rule's in-flight set and
// enters the truth. Every answer calls it right before sending its last bytes, so a
// client never sees a response end before the sandbox has recorded it (a truth read
// after a response finds it; a polite next request is never taken as overlapping).
func (x *exchange) finish(status int) {
	if x.done {
		return
	}
	x.done = true
	x.rec.Status = status
	x.rec.End = time.Now()
	if x.s.bot != nil && x.h != nil {
		x.s.bot.end(x.rec.IP, x.h, x.pk, x.rec.End)
	}
	x.s.truth.record(x.rec)
}

// ServeHTTP answers one request to a virtual host: anti-bot verdict, page or fault,
// and the truth record.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	s.truth.inFlight.Add(1)
	defer s.truth.inFlight.Add(-1)

	if s.cfg.Publishing && s.servePublishing(w, r, start) {
		return
	}
	x := &exchange{s: s, h: s.web.hostOf(r.Host)}
	p := s.web.lookup(r.Host, r.URL.Path, r.URL.RawQuery)
	if p.kind == pkDead { // reached without DNS (e.g. curl --resolve): nobody serves it
		p = page{}
	}
	x.rec = Request{Start: start, IP: clientIP(r.RemoteAddr), Kind: KindUnknown, Robots: disallowedPath(r.URL.Path)}
	if x.h != nil {
		x.rec.Host = x.h.name
	} else {
		x.rec.Host = normalizeHost(r.Host)
	}
	if p.valid() {
		x.rec.Kind = p.kindName()
	}
	if len(r.RequestURI) > 0 && r.RequestURI[0] == '/' {
		x.rec.URL = "http://" + r.Host + r.RequestURI
	} else {
		x.rec.URL = r.RequestURI
	}

	var v verdict
	if s.bot != nil && x.h != nil {
		x.pk = s.web.parentKey(p)
		v = s.bot.begin(x.rec.IP, x.h, x.pk, p.kind == pkSearch, start)
		if v.newBan != nil {
			s.truth.recordBan(*v.newBan)
		}
	}
	x.rec.Violation, x.rec.Banned, x.rec.Limited = v.violation, v.banned, v.limited
	throttled := false
	if x.h != nil && p.kind != pkRobots {
		set, banned, until, newBan := s.load.cookie(r, x.rec.IP, x.h, start)
		if set != "" {
			defer func() { s.load.given(x.rec.IP, x.h, time.Now()) }()
		}
		if c, err := r.Cookie(CookieName); err == nil {
			x.rec.Cookie = CookieOther
			if c.Value == visitorID(x.rec.IP, x.h.site.Domain) {
				x.rec.Cookie = CookieOwn
			}
		}
		if set != "" {
			w.Header().Add("Set-Cookie", set)
		}
		if newBan {
			s.truth.recordBan(Ban{IP: x.rec.IP, Host: x.h.name, At: start, Until: until, Reason: BanCookie})
		}
		if banned && !v.banned {
			v.banned, v.until, x.rec.Banned = true, until, true
		}
		if !v.banned && !v.limited {
			throttled = s.load.throttled(x.h, start)
			x.rec.Throttled = throttled
			if d := s.load.latency(x.h, start); d > 0 {
				x.rec.Slowed = d
				if !sleepCtx(r.Context(), d) {
					x.finish(0)
					return // the client gave up first
				}
			}
		}
	}
	switch {
	case v.banned:
		s.serveBan(w, x, v.until)
	case v.limited:
		serveLimited(w, x, v.retryAfter)
	case throttled:
		serveThrottled(w, x)
	default:
		if to, ok := s.redirects.Load(x.rec.Host + r.URL.Path); ok {
			w.Header().Set("Location", to.(string))
			x.finish(http.StatusFound)
			w.WriteHeader(http.StatusFound)
			return
		}
		x.rec.Fault = s.web.faultOf(p)
		s.servePage(w, r, p, x)
	}
	x.finish(0) // only if an answer gave up before sending anything
}

// Header values shared by every response (never mutated).
var (
	hdrHTML    = []string{"text/html; charset=utf-8"}
	hdrText    = []string{"text/plain; charset=utf-8"}
	hdrNoCache = []string{"no-cache"}
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// servePage renders p and sends it, applying p's fault and conditional GET.
func (s *Sandbox) servePage(w http.ResponseWriter, r *http.Request, p page, x *exchange) {
	fault := x.rec.Fault
	switch fault {
	case FaultReset:
		x.finish(0)
		resetConn(w)
		return
	case FaultSlow:
		if !sleepCtx(r.Context(), s.cfg.Faults.SlowFirstByte) {
			return // the client gave up first
		}
	}
	bp := bufPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 1<<20 {
			bufPool.Put(bp)
		}
	}()
	resp := s.web.respond((*bp)[:0], p, s.clock.now(), s.reqNo.Add(1))
	*bp = resp.body[:0]
	if s.cfg.Publishing {
		switch {
		case p.kind == pkEntry && resp.status == http.StatusOK:
			// The latest articles change the page whatever its version says.
			resp.body = s.web.injectLatest(resp.body, p.h, s.clock.now())
			resp.etag, resp.lastMod = "", time.Time{}
		case p.kind == pkRobots:
			resp.body = s.web.appendSitemapLines(resp.body, p.h)
		}
	}
	hdr := w.Header()
	switch resp.ctype {
	case hdrHTML[0]:
		hdr["Content-Type"] = hdrHTML
	case hdrText[0]:
		hdr["Content-Type"] = hdrText
	}
	hdr["Cache-Control"] = hdrNoCache
	if resp.etag != "" {
		hdr["Etag"] = []string{resp.etag}
	}
	if !resp.lastMod.IsZero() {
		hdr["Last-Modified"] = []string{resp.lastMod.UTC().Format(http.TimeFormat)}
	}
	if resp.location != "" {
		hdr["Location"] = []string{resp.location}
	}
	if resp.retryAfter > 0 {
		hdr["Retry-After"] = []string{strconv.Itoa(resp.retryAfter)}
	}
	if resp.status == http.StatusOK && notModified(r, resp) {
		x.finish(http.StatusNotModified)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	switch fault {
	case FaultTrickle:
		s.trickle(w, r, resp, x)
		return
	case FaultHuge:
		s.streamHuge(w, r, p, x)
		return
	}
	hdr["Content-Length"] = []string{strconv.Itoa(len(resp.body))}
	x.finish(resp.status)
	w.WriteHeader(resp.status)
	w.Write(resp.body) //nolint:errcheck // the client may be gone
}

// notModified implements conditional GET: If-None-Match (weak comparison) wins over
// If-Modified-Since, whose one-second resolution is HTTP's, not ours.
func notModified(r *http.Request, resp response) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if resp.etag == "" {
			return false
		}
		return etagListMatches(inm, resp.etag)
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" && !resp.lastMod.IsZero() {
		t, err := http.ParseTime(ims)
		return err == nil && !resp.lastMod.After(t)
	}
	return false
}

// etagListMatches compares an If-None-Match list with an ETag, weakly.
func etagListMatches(list, etag string) bool {
	weak := func(t string) string {
		if len(t) > 2 && t[:2] == "W/" {
			return t[2:]
		}
		return t
	}
	want := weak(etag)
	for len(list) > 0 {
		i := 0
		for i < len(list) && (list[i] == ' ' || list[i] == ',') {
			i++
		}
		list = list[i:]
		j := 0
		for j < len(list) && list[j] != ',' {
			j++
		}
		tok := list[:j]
		for len(tok) > 0 && tok[len(tok)-1] == ' ' {
			tok = tok[:len(tok)-1]
		}
		if tok == "*" || (tok != "" && weak(tok) == want) {
			return true
		}
		list = list[j:]
	}
	return false
}
