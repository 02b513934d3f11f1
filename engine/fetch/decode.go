package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// acceptEncoding is what the fetcher asks for. Setting it ourselves stops net/http
// from decompressing on its own, so every content coding passes through decodeBody.
const acceptEncoding = "gzip, deflate, zstd"

// maxCodings bounds stacked content codings ("gzip, gzip, ..."): each layer is
// streamed, so this only limits the work of a silly header, not memory.
const maxCodings = 3

// zstdMaxWindow bounds the window a zstd frame may ask the decoder to allocate
// (the format allows up to 3.75 TiB; RFC 8878 recommends decoders accept 8 MiB).
const zstdMaxWindow = 8 << 20

// bodyCapper is the one place where response bodies are decoded and capped, below
// colly and the robots client: it decodes Content-Encoding gzip, deflate and zstd
// itself, streaming, and counts the decoded bytes as they are read, so a body small
// on the wire cannot inflate past the cap before anything looks at its size. The
// response it returns is marked Uncompressed, with Content-Encoding removed, so
// nothing above it decompresses again: colly's own gunzip (taken when the
// Content-Type merely contains "gzip" or the path ends in .xml.gz, and bounded only
// on wire bytes) never runs, and such bodies are kept as received. A coding it does
// not implement (br, compress, ...) fails the request with KindEncoding.
type bodyCapper struct {
	rt http.RoundTripper
	// pause paces a request net/http replays on a new connection (replayPause);
	// nil: no pacing.
	pause func() time.Duration
	limit int64 // decoded bytes a body may have
	// docLimit, when above limit, is what a body whose Content-Type says XML or
	// gzip (a feed's or sitemap's) may have instead (Config.MaxDocumentBytes).
	docLimit int64
	// truncate ends the body with EOF at the limit instead of failing with
	// KindTooLarge (robots.txt: RFC 9309 asks to parse the first 500 KiB).
	truncate bool
	// exchanges, when set, holds the exchange logs of the fetches under way by id
	// (exchangeHeader): each hop is recorded as it crosses the wire.
	exchanges *exchangeBook
	// types is the fetcher's memory of Content-Type values (docLimit reads each
	// response's), shared with its header callback, which reads the same value;
	// nil parses each.
	types *mediaTypes
}

func (b *bodyCapper) RoundTrip(req *http.Request) (*http.Response, error) {
	req, hop, log := b.prepare(req)
	var deadline context.Context
	if log != nil {
		deadline = log.ctx
	}
	res, err := b.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	codings, err := contentCodings(res.Header.Values("Content-Encoding"))
	limit, raise, mt := b.limit, int64(0), ""
	if b.docLimit > limit {
		mt = b.types.mediaType(res.Header.Get("Content-Type"))
		if discoveryType(mt) {
			limit = b.docLimit
		} else if sniffType(mt) {
			raise = b.docLimit // if its start says feed or sitemap (cappedBody.read)
		}
	}
	if raise > 0 && len(codings) == 0 && res.ContentLength >= 0 && res.ContentLength <= limit {
		// The client ends the body at its announced length, within the limit:
		// there is no cap to raise, nor a start to keep (cappedBody.head) for it.
		raise = 0
	}
	if hop != nil {
		hop.received(res, codings, int(max(limit, raise)))
	}
	teed := hop != nil && hop.tee != nil
	if err != nil {
		if teed {
			hop.mu.Lock()
			hop.tee.cut = true // none of it read: archived as a head with a cut body
			hop.failed = KindEncoding
			hop.mu.Unlock()
		}
		res.Body.Close()
		return nil, &Error{Kind: KindEncoding, URL: req.URL.String(), Err: err}
	}
	if teed && hop.wire != nil {
		// The body as received, kept in case it does not decode.
		res.Body = &teeBody{ReadCloser: res.Body, h: hop, b: hop.wire, size: -1}
	}
	var body io.Reader = res.Body
	if len(codings) > 0 {
		body = &lazyDecoder{src: res.Body, codings: codings}
		res.Header.Del("Content-Encoding")
		res.Header.Del("Content-Length")
		res.ContentLength = -1
	}
	res.Uncompressed = true
	capped := cappedBody{r: body, closer: res.Body, left: limit, truncate: b.truncate, limit: limit, url: req.URL, deadline: deadline,
		raise: raise, mt: mt}
	if hop != nil {
		hop.capped = capped
		res.Body = &hop.capped
	} else {
		c := capped // (allocated here only: a hop's is in its record)
		res.Body = &c
	}
	if teed {
		// A hop's body is kept as the client reads it: decoded and capped like a
		// final page's, so that its Exchange.Decoded is true of it. A final
		// response's copy is archived only if reading it fails (exchangeLog.received).
		t := &hop.teeRead
		*t = teeBody{ReadCloser: res.Body, h: hop, b: hop.tee, decoded: true, size: res.ContentLength}
		// A page's body is read whole into the hop's copy and handed to the fetch
		// from there (exchangeLog.wholeBody): colly reads a body with io.ReadAll,
		// which grows it through a chain of ever larger buffers and copies it into
		// a last one, beside the copy kept here. Not a redirect's (colly's
		// answer for a 3xx it is handed is what it read), nor a body colly would
		// re-encode to UTF-8 (collyKeepsBody).
		t.whole = log.whole && res.StatusCode/100 != 3 && collyKeepsBody(res.Header.Get("Content-Type"))
		res.Body = t
	}
	return res, nil
}

// collyKeepsBody says whether colly hands a body with this Content-Type up as it
// was read: it re-encodes one whose charset is named and is not UTF-8 (colly's
// Response.fixCharset, with charset detection off as the fetcher leaves it).
func collyKeepsBody(contentType string) bool {
	ct := strings.ToLower(contentType)
	for _, media := range [...]string{"image/", "video/", "audio/", "font/"} {
		if strings.Contains(ct, media) {
			return true
		}
	}
	return !strings.Contains(ct, "charset") || strings.Contains(ct, "utf-8") || strings.Contains(ct, "utf8")
}

// prepare returns the request as it goes out: without the exchange id and with
// our Accept-Encoding, traced when its fetch's exchanges are recorded (hop, in log)
// or its replays paced, under its fetch's deadline when the fetch has one
// (exchangeLog.ctx). One copy of the request and one client trace at most.
//
// A request carrying an exchange id has a header map of the fetch's own: built for
// this fetch by Fetch or Resource, or for this hop by the HTTP client (a redirect's
// fields copied from the copy it took of the first request's before sending it).
// Nothing reads the id from it after this, so the id is taken out in place, where
// a copy would build the map again each request. Any other request's header is
// the caller's, and gets a copy when a field is to be added.
func (b *bodyCapper) prepare(req *http.Request) (out *http.Request, hop *hopRecord, log *exchangeLog) {
	var id string
	if v := req.Header[exchangeHeader]; len(v) > 0 {
		id = v[0]
		delete(req.Header, exchangeHeader)
	}
	hdr := req.Header
	copied := hdr.Get("Accept-Encoding") == ""
	if copied {
		hdr = make(http.Header, len(req.Header)+1)
		maps.Copy(hdr, req.Header)
		hdr["Accept-Encoding"] = acceptEncodingValue
	}
	ctx := req.Context()
	log = b.exchanges.get(id)
	if log != nil && log.ctx != nil {
		ctx = log.ctx
	}
	var trace *httptrace.ClientTrace
	if log != nil {
		hop, trace = traceHop(req, log, b.pause, ctx)
	} else if b.pause != nil {
		pace := &replayPause{pause: b.pause, ctx: ctx}
		trace = &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { pace.gotConn() }}
	}
	if trace == nil && !copied {
		return req, nil, nil
	}
	if trace != nil {
		ctx = httptrace.WithClientTrace(ctx, trace)
	}
	out = req.WithContext(ctx)
	out.Header = hdr
	return out, hop, log
}

// contentCodings lists the codings to undo, outermost (last applied) first.
func contentCodings(vals []string) ([]string, error) {
	var cs []string
	for _, v := range vals {
		for c := range strings.SplitSeq(v, ",") {
			switch c = strings.ToLower(strings.TrimSpace(c)); c {
			case "", "identity":
			case "gzip", "x-gzip", "deflate", "zstd":
				cs = append(cs, c)
			default:
				return nil, fmt.Errorf("unsupported Content-Encoding %q", c)
			}
		}
	}
	if len(cs) > maxCodings {
		return nil, fmt.Errorf("%d stacked content codings (at most %d)", len(cs), maxCodings)
	}
	for i, j := 0, len(cs)-1; i < j; i, j = i+1, j-1 {
		cs[i], cs[j] = cs[j], cs[i]
	}
	return cs, nil
}

// lazyDecoder builds its decoders on the first Read, so that reading a header of a
// compressed stream happens while the body is read (under the request timeout,
// counted like any other body error), not inside RoundTrip.
type lazyDecoder struct {
	src     io.Reader
	codings []string
	r       io.Reader
	closers []io.Closer
	err     error
}

func (d *lazyDecoder) Read(p []byte) (int, error) {
	if d.r == nil && d.err == nil {
		// An empty body (304, 204, HEAD: the headers still name the coding) is
		// empty, not a corrupt stream.
		r := bufio.NewReader(d.src)
		if _, err := r.Peek(1); err == io.EOF {
			return 0, io.EOF
		}
		var src io.Reader = r
		for _, c := range d.codings {
			var err error
			if src, err = d.layer(c, src); err != nil {
				d.err = &Error{Kind: KindEncoding, Err: fmt.Errorf("%s body: %w", c, err)}
				break
			}
		}
		d.r = src
	}
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = &Error{Kind: KindEncoding, Err: fmt.Errorf("decoding %s body: %w", strings.Join(d.codings, "+"), err)}
	}
	return n, err
}

func (d *lazyDecoder) layer(c string, r io.Reader) (io.Reader, error) {
	switch c {
	case "gzip", "x-gzip":
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, &Error{Kind: KindEncoding, Err: err}
		}
		d.closers = append(d.closers, z)
		return z, nil
	case "deflate":
		// RFC 9110 "deflate" is zlib-wrapped; some servers send raw deflate.
		br := bufio.NewReader(r)
		if h, err := br.Peek(2); err == nil && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 && h[0]&0x0f == 8 {
			z, err := zlib.NewReader(br)
			if err != nil {
				return nil, &Error{Kind: KindEncoding, Err: err}
			}
			d.closers = append(d.closers, z)
			return z, nil
		}
		z := flate.NewReader(br)
		d.closers = append(d.closers, z)
		return z, nil
	case "zstd":
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderMaxMemory(zstdMaxWindow))
		if err != nil {
			return nil, &Error{Kind: KindEncoding, Err: err}
		}
		d.closers = append(d.closers, closerFunc(func() error { z.Close(); return nil }))
		return z, nil
	}
	return nil, fmt.Errorf("unsupported content coding %q", c)
}

func (d *lazyDecoder) close() {
	for _, c := range d.closers {
		c.Close()
	}
	d.closers = nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// cappedBody passes at most limit decoded bytes; a body with more fails with
// KindTooLarge (or, with truncate, ends there).
type cappedBody struct {
	r        io.Reader
	closer   io.Closer
	left     int64
	limit    int64
	truncate bool
	url      *url.URL // for errors only: a body read to its end never formats it
	// deadline is the fetch's context when the fetch set its own deadline
	// (exchangeLog.ctx): a read it cut short fails as a timeout, whatever the
	// layer below made of the cancelled read (a decoder reports it as a corrupt
	// stream). nil: the HTTP client's Timeout, if any, says so itself.
	deadline context.Context
	// raise, when above limit, is the cap a body labelled as what feeds and
	// sitemaps are also served under (text/plain, text/html, octet-stream) takes at
	// the limit if its first sniffLen bytes (head) say it is one; mt is its label.
	raise int64
	mt    string
	head  []byte
}

func (c *cappedBody) Read(p []byte) (int, error) {
	n, err := c.read(p)
	if err != nil && err != io.EOF && c.deadline != nil && c.deadline.Err() == context.DeadlineExceeded {
		err = &Error{Kind: KindTimeout, URL: c.url.String(), Err: fmt.Errorf("request timed out while reading the body: %w", err)}
	}
	return n, err
}

func (c *cappedBody) read(p []byte) (int, error) {
	if c.left <= 0 && c.raise > c.limit && discoveryCandidate(c.mt, c.head) {
		c.left, c.limit, c.raise = c.raise-c.limit, c.raise, 0
	}
	if c.left <= 0 {
		if c.truncate {
			return 0, io.EOF
		}
		// At the limit: the body is too large only if there is more to come.
		var one [1]byte
		for {
			n, err := c.r.Read(one[:])
			if n > 0 {
				return 0, &Error{Kind: KindTooLarge, URL: c.url.String(), Err: fmt.Errorf("decoded body exceeds the %d-byte limit", c.limit)}
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.raise > 0 && len(c.head) < sniffLen {
		c.head = append(c.head, p[:min(n, sniffLen-len(c.head))]...)
	}
	return n, err
}

func (c *cappedBody) Close() error {
	if d, ok := c.r.(*lazyDecoder); ok {
		d.close()
	}
	return c.closer.Close()
}
