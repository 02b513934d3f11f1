package fetch

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Exchange is one HTTP request and its response as they crossed the wire: what a
// WARC request/response record pair is made of (ISO 28500:2017 §6.3, the
// application/http block is the message "as sent/received"). A fetch that followed
// same-host redirects has one Exchange per hop, the final response last.
type Exchange struct {
	URL string `json:"url"` // the request's target (a redirect hop's own URL)
	// RequestHead is the request line and header fields as written to the
	// connection, CRLF-terminated, with credentials redacted (RedactHeader). The
	// request line is in origin form, as the origin server sees it, also when it
	// went through an HTTP proxy.
	RequestHead string `json:"req,omitempty"`
	// Status and StatusLine are the response's status and status line, e.g. 200
	// and "HTTP/1.1 200 OK"; At is when its header arrived.
	Status     int       `json:"status,omitempty"`
	StatusLine string    `json:"status_line,omitempty"`
	At         time.Time `json:"at,omitzero"`
	// ResponseHead is the response's header fields as received, in wire form
	// ("Name: value" CRLF per field, net/http's canonical names sorted, as
	// http.Header.Write puts them; Transfer-Encoding already undone), credentials
	// redacted. Unlike Result.Header it still holds Content-Encoding and
	// Content-Length of the coded body: Decoded says which codings the fetcher
	// removed. Text, not a map: it travels to a master with each result, and a
	// string costs the wire codec a fraction of what a header map does.
	ResponseHead string `json:"resp,omitempty"`
	// RemoteIP is the address of the connection the request went out on: the
	// server's, or the proxy's when the egress is a proxy.
	RemoteIP string `json:"ip,omitempty"`
	// Decoded lists the content codings the fetcher undid (e.g. "gzip"); the body
	// kept is the decoded one. A redirect hop's body is decoded like the final
	// page's; one that could not be (a corrupt gzip stream) is kept as received,
	// Decoded empty: its Content-Encoding still describes it.
	Decoded string `json:"decoded,omitempty"`
	// Body is what was read of a redirect hop's body (the HTTP client reads at most
	// a few KiB of it, decoded); empty for the final response, whose body is
	// Result.Body. BodyCut says the hop's body had more than was read.
	//
	// A fetch that failed after its final response's status and headers came (the
	// body reset or timed out mid-read, an unsupported or corrupt Content-Encoding)
	// keeps that response too (Error.Exchanges), with the bytes received as Body,
	// BodyCut set and Failed saying why it ended: a WARC-Truncated reason, "time",
	// "disconnect" or "unspecified" (TruncatedReason). Failed is empty otherwise.
	Body    []byte `json:"body,omitempty"`
	BodyCut bool   `json:"body_cut,omitempty"`
	Failed  string `json:"body_failed,omitempty"`
}

// WARC-Truncated reasons (WARC 1.1 §5.14) for a body that did not come whole.
const (
	TruncatedLength      = "length"      // more than was read (a cap, or the client stopped)
	TruncatedTime        = "time"        // the request timed out mid-body
	TruncatedDisconnect  = "disconnect"  // the connection was reset or closed mid-body
	TruncatedUnspecified = "unspecified" // any other failure (a content coding not undone)
)

// TruncatedReason is the WARC-Truncated reason for a body whose read failed with an
// error of this kind.
func TruncatedReason(kind string) string {
	switch kind {
	case KindTimeout:
		return TruncatedTime
	case KindReset:
		return TruncatedDisconnect
	}
	return TruncatedUnspecified
}

// exchangeHeader carries a fetch's id from Fetch down to bodyCapper, which records
// each hop under it and strips it before the request is written. colly gives a
// request no context of its own, and the HTTP client copies a request's headers
// onto the requests of the redirects it follows, so every hop carries the id.
const exchangeHeader = "X-Crawlconsole-Exchange"

// redirectBodyMax bounds what is kept of a redirect hop's body.
const redirectBodyMax = 64 << 10

// exchangeLog collects the hops of one fetch.
type exchangeLog struct {
	mu   sync.Mutex
	hops []*hopRecord
	// first backs hops for the fetch's first hop, the only one of most fetches:
	// no slice of its own to allocate.
	first [1]*hopRecord
	// ctx, when set, is the fetch's context with its deadline (the request
	// timeout, redirects and body included): every hop goes out under it.
	ctx context.Context
	// whole says the fetch takes its final response's body from the log
	// (wholeBody), read whole below the client (teeBody.whole).
	whole bool
}

// urlOf returns u spelt out: the last hop's Exchange.URL when u is that hop's
// request URL (the response's, as colly hands it up), without spelling it again.
func (l *exchangeLog) urlOf(u *url.URL) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.hops); n > 0 && l.hops[n-1].u == u {
		return l.hops[n-1].ex.URL // set before the hop went out, never written after
	}
	return u.String()
}

// wholeBody returns the final hop's body when it was read whole (teeBody.whole),
// as the fetch's own copy (the hop's goes back to the pool); ok is false when it
// was not, and the client's reader has the body.
func (l *exchangeLog) wholeBody() (body []byte, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.hops) == 0 {
		return nil, false
	}
	h := l.hops[len(l.hops)-1]
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.whole {
		return nil, false
	}
	if h.tee.own {
		return h.tee.bytes(), true // read into the fetch's own buffer (never nil)
	}
	// Never nil, as the client's reader answers an empty body.
	return append([]byte{}, h.tee.bytes()...), true
}

type hopRecord struct {
	mu   sync.Mutex // the transport writes headers on its own goroutine
	ex   Exchange
	head strings.Builder
	// tee is what was read of the body as the client got it (decoded, capped, like
	// a final page's body). wire, kept only while a content coding is undone, is
	// what was read of it as received: if decoding fails (undecodable), that is the
	// body kept, its coding left on. A redirect's is kept up to redirectBodyMax
	// bytes, a final response's up to the body cap: it is archived only if the
	// fetch fails after the response came (failed), and dropped otherwise.
	tee, wire   *hopBody
	undecodable bool
	// failed is the kind of the error that ended reading the body (or refused it:
	// an unsupported coding) before its end; "" when none did.
	failed string
	// whole says tee holds the whole body, read at once to its end
	// (teeBody.whole).
	whole bool
	u     *url.URL // the hop's request URL, which ex.URL spells
	// trace records the hop as the transport writes it (traceHop); in the
	// record, one allocation with it.
	trace httptrace.ClientTrace
	// What a hop's round trip makes once, in the same allocation: the pacer of
	// its replays (traceHop), its body as the client reads it (received, tee) and
	// the readers the client reads it through (bodyCapper.RoundTrip).
	pace    replayPause
	teeBody hopBody
	capped  cappedBody
	teeRead teeBody
}

// hopBody is what was read of a hop's body, up to max bytes.
type hopBody struct {
	buf *bytes.Buffer // from hopBufs on the first byte kept; back there at release
	max int
	cut bool // more came than was kept, or the reader stopped before the end
	// own says buf is no pooled buffer but one made for this body, read whole to
	// the length its response announced (teeBody.size): the fetch takes it as its
	// body (exchangeLog.wholeBody), and it never goes back to hopBufs.
	own bool
}

// hopBufs recycles hop body copies: a final response's is kept only in case its
// body fails, so each fetch would otherwise allocate a page's worth for nothing.
var hopBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledHopBuf bounds what a recycled buffer may hold on to (a rare big page's
// copy is left to the collector).
const maxPooledHopBuf = 1 << 20

// write keeps p (the caller checked the room).
func (b *hopBody) write(p []byte) {
	if b.buf == nil {
		b.buf = hopBufs.Get().(*bytes.Buffer)
	}
	b.buf.Write(p)
}

func (b *hopBody) len() int {
	if b.buf == nil {
		return 0
	}
	return b.buf.Len()
}

func (b *hopBody) bytes() []byte {
	if b.buf == nil {
		return nil
	}
	return b.buf.Bytes()
}

// release gives b's buffer back; what b kept is gone.
func (b *hopBody) release() {
	if b == nil || b.buf == nil {
		return
	}
	if !b.own && b.buf.Cap() <= maxPooledHopBuf {
		b.buf.Reset()
		hopBufs.Put(b.buf)
	}
	b.buf = nil
}

// body returns what of h's body is archived, with the codings it was decoded from,
// whether it is cut and, if reading it failed, why (Exchange.Failed). A body that
// did not decode is kept as received: its own cut flag tells whether it is whole.
// Caller holds h.mu.
func (h *hopRecord) body() (b []byte, decoded string, cut bool, failed string) {
	kept := h.tee
	decoded = h.ex.Decoded
	if h.undecodable && h.wire != nil {
		kept, decoded = h.wire, ""
	} else if h.failed != "" {
		cut, failed = true, TruncatedReason(h.failed)
	}
	return bytes.Clone(kept.bytes()), decoded, cut || kept.cut, failed
}

// release gives the hops' body copies back to hopBufs, once exchanges or received
// has copied out what is archived (the fetch is over: nothing reads them after).
func (l *exchangeLog) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.hops {
		h.mu.Lock()
		h.tee.release()
		h.wire.release()
		h.mu.Unlock()
	}
}

func (l *exchangeLog) add(h *hopRecord) {
	l.mu.Lock()
	if l.hops == nil {
		l.hops = l.first[:0]
	}
	l.hops = append(l.hops, h)
	l.mu.Unlock()
}

// exchanges returns the recorded hops; the last one's body is dropped (it is the
// Result's body).
func (l *exchangeLog) exchanges() []Exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Exchange, 0, len(l.hops))
	for i, h := range l.hops {
		h.mu.Lock()
		ex := h.ex
		ex.RequestHead = h.head.String()
		if h.tee != nil && i < len(l.hops)-1 {
			// (A redirect's body may fail mid-read: the client goes on, Failed says.)
			ex.Body, ex.Decoded, ex.BodyCut, ex.Failed = h.body()
		}
		h.mu.Unlock()
		out = append(out, ex)
	}
	return out
}

// received returns the hops answered with a response, each with what was read of
// its body: what a fetch that failed without a Result (a redirect loop, too many
// redirects, a reset on a later hop, a final body reset or timed out mid-read)
// received. A hop that failed before its status and headers came is left out; one
// whose body failed is kept with what came of it, cut, Failed saying why: for the
// hop the fetch ended on, the reason of kind, the fetch's error kind (the error
// its body read saw can be less telling: the client's timeout reaches the
// transport's body as a cancellation).
func (l *exchangeLog) received(kind string) []Exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Exchange
	for i, h := range l.hops {
		h.mu.Lock()
		if h.tee != nil { // a response came (hopRecord.received)
			ex := h.ex
			ex.RequestHead = h.head.String()
			ex.Body, ex.Decoded, ex.BodyCut, ex.Failed = h.body()
			if ex.Failed != "" && i == len(l.hops)-1 {
				ex.Failed = TruncatedReason(kind)
			}
			out = append(out, ex)
		}
		h.mu.Unlock()
	}
	return out
}

// traceHop starts recording req's hop: the request line now, the header fields and
// the connection's address as the transport writes and dials (the trace it
// returns). pause, when set, paces a replay on a new connection from the same hook
// (replayPause, under ctx).
func traceHop(req *http.Request, log *exchangeLog, pause func() time.Duration, ctx context.Context) (*hopRecord, *httptrace.ClientTrace) {
	h := &hopRecord{ex: Exchange{URL: req.URL.String()}, u: req.URL}
	var pace *replayPause
	if pause != nil {
		h.pace = replayPause{pause: pause, ctx: ctx}
		pace = &h.pace
	}
	uri := req.URL.RequestURI()
	lineLen := len(req.Method) + 1 + len(uri) + len(" HTTP/1.1\r\n")
	h.head.Grow(lineLen + 256)
	h.head.WriteString(req.Method) // the request line, spelt into the head
	h.head.WriteByte(' ')
	h.head.WriteString(uri)
	h.head.WriteString(" HTTP/1.1\r\n")
	h.trace = httptrace.ClientTrace{
		GotConn: func(ci httptrace.GotConnInfo) {
			if pace != nil {
				pace.gotConn()
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			// A replay on a new connection (net/http retries an idempotent
			// request) writes the head again: keep the last one. (On the first
			// connection the head is the request line alone.)
			if h.head.Len() != lineLen {
				line := h.head.String()[:lineLen] // Reset leaves what it spelt as it is
				h.head.Reset()
				h.head.Grow(lineLen + 256)
				h.head.WriteString(line)
			}
			if ci.Conn != nil {
				h.ex.RemoteIP = remoteIP(ci.Conn.RemoteAddr())
			}
		},
		WroteHeaderField: func(key string, value []string) {
			if strings.HasPrefix(key, ":") { // HTTP/2 pseudo-header: in the request line
				return
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			for _, v := range value {
				if RedactHeader(key) {
					v = Redacted
				}
				h.head.WriteString(key)
				h.head.WriteString(": ")
				h.head.WriteString(v)
				h.head.WriteString("\r\n")
			}
		},
	}
	log.add(h)
	return h, &h.trace
}

// remoteIP is the host part of a connection's remote address ("" when it has
// none): a TCP address's IP spelt directly, without the address's host:port text
// to split again.
func remoteIP(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok && ta.Zone == "" {
		if len(ta.IP) == 0 {
			return ""
		}
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return ""
	}
	return host
}

// received records the response of a hop, before its body is decoded. Its body is
// recorded as it is read (teeBody, set up by bodyCapper), a redirect's up to
// redirectBodyMax bytes, any other's up to finalMax (the body cap).
func (h *hopRecord) received(res *http.Response, codings []string, finalMax int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	status := res.Status // "200 OK"
	if status == "" {
		status = strconv.Itoa(res.StatusCode) + " " + http.StatusText(res.StatusCode)
	}
	h.ex.Status, h.ex.StatusLine, h.ex.At = res.StatusCode, res.Proto+" "+status, time.Now()
	h.ex.ResponseHead = HeadText(res.Header)
	h.ex.Decoded = strings.Join(reversed(codings), ", ")
	limit := redirectBodyMax
	if res.StatusCode/100 != 3 {
		limit = finalMax
	}
	h.teeBody = hopBody{max: limit}
	h.tee = &h.teeBody
	if len(codings) > 0 {
		h.wire = &hopBody{max: limit}
	}
}

// reversed returns codings in the order they were applied (as the header lists them).
func reversed(cs []string) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[len(cs)-1-i] = c
	}
	return out
}

// teeBody keeps up to b.max bytes of what is read from a hop's body into b: above
// the decoder (the body as the client reads it, decoded), or below it (wire: the
// body as received). Above the decoder, an error that ends the read is the hop's
// failure (hopRecord.failed).
//
// With whole set, the first Read reads the body to its end into b and the reader
// above gets no byte of it, only its end (or the error that ended it): the fetch
// takes the body from the hop (exchangeLog.wholeBody).
type teeBody struct {
	io.ReadCloser
	h       *hopRecord
	b       *hopBody
	decoded bool // above the decoder: a decoding error marks the hop undecodable
	whole   bool
	// size is the body's length as its response announced it (Content-Length,
	// no coding undone), -1 when unknown: a whole read of a known length goes
	// into a buffer made to that size, which the fetch then keeps as its body,
	// instead of a pooled buffer the fetch copies the body out of.
	size int64
	eof  bool
	err  error // what ended a whole read
}

func (t *teeBody) Read(p []byte) (int, error) {
	if t.whole {
		return 0, t.readWhole()
	}
	n, err := t.ReadCloser.Read(p)
	if err == io.EOF {
		t.eof = true
	}
	if n > 0 || (err != nil && err != io.EOF) {
		t.h.mu.Lock()
		if n > 0 {
			room := t.b.max - t.b.len()
			if room < n {
				t.b.cut = true
				if room > 0 {
					t.b.write(p[:room])
				}
			} else {
				t.b.write(p[:n])
			}
		}
		if t.decoded && err != nil && err != io.EOF {
			t.h.failed = Kind(err)
			if t.h.failed == KindEncoding {
				t.h.undecodable = true
			}
		}
		t.h.mu.Unlock()
	}
	return n, err
}

// readWhole reads the body to its end into b (once) and returns io.EOF, or the
// error that ended it, recorded as the hop's failure like any other read's.
func (t *teeBody) readWhole() error {
	if t.eof {
		return io.EOF
	}
	if t.err != nil {
		return t.err
	}
	var buf *bytes.Buffer
	var err error
	own := t.size >= 0 && t.size <= int64(t.b.max)
	if own {
		var b []byte
		b, err = readSized(t.ReadCloser, int(t.size))
		buf = bytes.NewBuffer(b)
	} else {
		buf = hopBufs.Get().(*bytes.Buffer)
		buf.Reset()
		_, err = buf.ReadFrom(t.ReadCloser) // straight into the buffer, no chunk in between
	}
	t.h.mu.Lock()
	defer t.h.mu.Unlock()
	t.b.release()
	t.b.buf, t.b.own = buf, own
	if buf.Len() > t.b.max { // (the body cap below stops it first)
		buf.Truncate(t.b.max)
		t.b.cut = true
	}
	if err != nil {
		t.err = err
		t.h.failed = Kind(err)
		if t.h.failed == KindEncoding {
			t.h.undecodable = true
		}
		return err
	}
	t.eof = true
	t.h.whole = !t.b.cut
	return io.EOF
}

// sizedReadUpFront bounds what readSized allocates before the body arrives.
const sizedReadUpFront = 256 << 10

// readSized reads r to its end into a slice made for size bytes, with room for one
// more so that the end is seen without growing it (it grows if r has more).
func readSized(r io.Reader, size int) ([]byte, error) {
	// The announcement is the server's word, not bytes: a slice of it is made up
	// front (most pages fit in it), and the rest grows with what arrives, so that a
	// host announcing megabytes and sending a few bytes, on every lane, costs no more
	// than it sends.
	b := make([]byte, 0, min(size, sizedReadUpFront)+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

func (t *teeBody) Close() error {
	// The client closes a redirect's body after reading at most a few KiB of it: if
	// it stopped before the end, the body kept is cut.
	if !t.eof {
		t.h.mu.Lock()
		t.b.cut = true
		t.h.mu.Unlock()
	}
	return t.ReadCloser.Close()
}
