package front

import (
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/store"
)

// saveCaptures stores each hop of a response as it crossed the wire (store.Capture):
// what `crawlconsole export --format warc` writes as request, response and revisit
// records. Every response is kept — pages, redirects, 4xx, refusals and 304s — except
// the ones the crawl chose not to read (a content type it does not crawl, binary
// content labelled as text). A fetch that failed with no response keeps the
// responses received before it failed (Outcome.Hops): a redirect loop's 3xx
// responses are in the archive, and so is a final response whose body was reset
// or timed out mid-read, with what came of it and a WARC-Truncated reason
// (Exchange.Failed). On a distributed crawl this runs on the master with
// the exchanges the worker sent.
//
// refetch says the page was stored before (its records are revisits). With
// keepPage the final exchange is not stored but returned: it goes with the page
// (store.Page.Capture), in the page's transaction and sharing its compressed body.
func (f *Front) saveCaptures(o lanes.Outcome, refetch, keepPage bool) *store.Capture {
	res, xs := o.Res, o.Hops
	if res != nil {
		xs = res.Exchanges
	}
	if len(xs) == 0 || o.Kind == fetch.KindContentType || o.Kind == fetch.KindBinary {
		return nil
	}
	if res != nil && res.Render != nil && len(xs) > 0 {
		f.saveRendering(o, xs[len(xs)-1], res.Render)
	}
	last := len(xs) - 1
	if res == nil {
		last = -1 // every hop holds its own body: none is the Result's
	}
	for i, ex := range xs {
		c := store.Capture{
			URL: ex.URL, FetchedAt: ex.At, Status: ex.Status, StatusLine: ex.StatusLine,
			RequestHead: ex.RequestHead, ResponseHead: ex.ResponseHead, RemoteIP: ex.RemoteIP,
			Decoded: ex.Decoded, Body: ex.Body, Lane: o.Lane, Egress: o.Egress, Node: o.Node,
			Refetch: refetch,
		}
		if ex.BodyCut {
			c.Truncated = fetch.TruncatedLength
			if ex.Failed != "" { // its body failed mid-read: time, disconnect, ...
				c.Truncated = ex.Failed
			}
		}
		if i == last {
			c.Body = res.Body
			if o.Kind == fetch.KindTooLarge {
				c.Truncated = fetch.TruncatedLength // cut at fetch.max_body_bytes: nothing of it is kept
			}
		}
		if c.FetchedAt.IsZero() {
			c.FetchedAt = o.At
		}
		if c.FetchedAt.IsZero() {
			c.FetchedAt = f.crawl.Now()
		}
		if i == last && keepPage {
			return &c
		}
		f.Store.SaveCapture(c)
	}
	return nil
}

// saveRendering stores what a render of the page added to the archive: each request
// the page made through the crawler, as exchanges, and the DOM the browser built,
// dated as the page's response (final) it was built from. A render that gave no
// DOM keeps its requests all the same: they crossed the wire.
func (f *Front) saveRendering(o lanes.Outcome, final fetch.Exchange, rd *fetch.Rendering) {
	at := final.At
	if at.IsZero() {
		at = o.At
	}
	for _, ex := range rd.Sub {
		c := store.Capture{
			URL: ex.URL, FetchedAt: ex.At, Status: ex.Status, StatusLine: ex.StatusLine,
			RequestHead: ex.RequestHead, ResponseHead: ex.ResponseHead, RemoteIP: ex.RemoteIP,
			Decoded: ex.Decoded, Body: ex.Body, Lane: o.Lane, Egress: o.Egress, Node: o.Node,
			Refetch: true, // a site's scripts and API answers repeat across its pages
		}
		if ex.BodyCut {
			c.Truncated = fetch.TruncatedLength
			if ex.Failed != "" {
				c.Truncated = ex.Failed
			}
		}
		if c.FetchedAt.IsZero() {
			c.FetchedAt = at
		}
		f.Store.SaveCapture(c)
	}
	if rd.DOM != nil && !at.IsZero() {
		f.Store.SaveCapture(store.Capture{URL: final.URL, FetchedAt: at, Kind: store.CaptureRendered, Body: rd.DOM,
			Lane: o.Lane, Egress: o.Egress, Node: o.Node})
	}
}
