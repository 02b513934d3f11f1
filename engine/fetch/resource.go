package fetch

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
)

// Rendering is what rendering a page in a browser (engine/render) made of it. The
// page's Body stays what the server sent (the archive's response); DOM is what
// the page's script built, and the page's links, parse and signature come from it.
type Rendering struct {
	DOM      []byte        `json:"-"`
	Requests int           `json:"requests,omitempty"` // the page's own requests sent through the egress
	Blocked  int           `json:"blocked,omitempty"`  // requests refused (images, third parties, caps)
	Took     time.Duration `json:"took,omitempty"`
	// Note says why a page that was to be rendered is kept as fetched (the render
	// failed: time cap, request cap, navigation away, crash), or how a render
	// ended early; empty for a clean render.
	Note string `json:"note,omitempty"`
	// Section and Dynamic are the verdict the render taught its section
	// (engine/render.Verdicts: the section's key and whether its pages need
	// rendering); Section is empty when the render taught nothing.
	Section string `json:"section,omitempty"`
	Dynamic bool   `json:"dynamic,omitempty"`
	// Sub are the page's own requests and their responses as they crossed the
	// wire, each with its body (Exchange.Body), for the archive.
	Sub []Exchange `json:"-"`
}

// PageBody is the body the page is read from: the rendered DOM when the page was
// rendered, else Body.
func (r *Result) PageBody() []byte {
	if r.Render != nil && r.Render.DOM != nil {
		return r.Render.DOM
	}
	return r.Body
}

// domType is the media type a rendered DOM is read as: serialized, it is UTF-8
// whatever the document was.
const domType = "text/html; charset=utf-8"

// PageType is the Content-Type PageBody is read with.
func (r *Result) PageType() string {
	if r.Render != nil && r.Render.DOM != nil {
		return domType
	}
	return r.Header.Get("Content-Type")
}

// Reread reads the page's links and parse again from its rendered DOM (r.Render),
// so that every reader (links, discovery, block-page judge, signature) sees the
// page as the browser built it.
func (f *Fetcher) Reread(r *Result) {
	if r.Render == nil || r.Render.DOM == nil {
		return
	}
	ct := domType
	var p pageLinks
	if f.cfg.KeepParse {
		p, r.Parsed = readPage(r.Render.DOM, ct, f.token)
	} else {
		p = extractLinks(r.Render.DOM, f.token)
	}
	r.Links, r.NofollowLinks, r.Base, r.Canonical, r.Feeds = p.Links, p.Nofollow, p.Base, p.Canonical, p.Feeds
	r.FeedsDropped = p.FeedsDropped
	r.Robots.NoIndex = r.Robots.NoIndex || p.Robots.NoIndex
	r.Robots.NoFollow = r.Robots.NoFollow || p.Robots.NoFollow
}

// Resource sends one request a rendered page makes (a script, a stylesheet, an API
// call) through this egress: its transport (the SSRF guard on every dial), cookie
// jar, User-Agent and body cap, any content type. A redirect to another host is
// not followed (the 3xx is the answer). The exchange is recorded (Result.Exchanges,
// each with its body) for the archive.
func (f *Fetcher) Resource(ctx context.Context, req *http.Request) (*Result, error) {
	req = req.Clone(ctx)
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	log := &exchangeLog{}
	defer log.release()
	id := f.exchanges.add(log)
	defer f.exchanges.remove(id)
	req.Header.Set(exchangeHeader, id)
	c := &http.Client{
		Transport: &bodyCapper{rt: f.transport, pause: f.cfg.RedirectPause, limit: int64(f.cfg.MaxBodyBytes), exchanges: &f.exchanges},
		Jar:       f.robots.Jar,
		Timeout:   f.cfg.RequestTimeout,
		CheckRedirect: func(next *http.Request, via []*http.Request) error {
			if len(via) > f.cfg.MaxRedirects || next.URL.Host != via[0].URL.Host {
				return http.ErrUseLastResponse
			}
			return f.pauseRedirect(next)
		},
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return nil, &Error{Kind: Kind(err), URL: req.URL.String(), Err: err, Exchanges: log.received(Kind(err))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	res := &Result{URL: req.URL.String(), FinalURL: resp.Request.URL.String(), Status: resp.StatusCode,
		Header: RedactHeaders(resp.Header), Body: body, Duration: time.Since(start)}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	res.ContentType = strings.ToLower(mt)
	if err != nil {
		var fe *Error
		if !errors.As(err, &fe) {
			err = &Error{Kind: Kind(err), URL: res.URL, Err: err}
		}
		return res, err
	}
	res.Exchanges = log.exchanges()
	if n := len(res.Exchanges); n > 0 {
		res.Exchanges[n-1].Body = body
	}
	return res, nil
}
