package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/store"
)

// saveCaptures stores each hop of a response as it crossed the wire (store.Capture):
// what `crawlconsole export --format warc` writes as request, response and revisit
// records. Every response is kept — pages, redirects, 4xx, refusals and 304s — except
// the ones the crawl chose not to read (a content type it does not crawl, binary
// content labelled as text). On a distributed crawl this runs on the master with
// the exchanges the worker sent.
//
// With keepPage the final exchange is not stored but returned: it goes with the page
// (store.Page.Capture), in the page's transaction and sharing its compressed body.
func (e *Engine) saveCaptures(o Outcome, keepPage bool) *store.Capture {
	res := o.Res
	if res == nil || len(res.Exchanges) == 0 || o.Kind == fetch.KindContentType || o.Kind == fetch.KindBinary {
		return nil
	}
	last := len(res.Exchanges) - 1
	for i, ex := range res.Exchanges {
		c := store.Capture{
			URL: ex.URL, FetchedAt: ex.At, Status: ex.Status, StatusLine: ex.StatusLine,
			RequestHead: ex.RequestHead, ResponseHead: ex.ResponseHead, RemoteIP: ex.RemoteIP,
			Decoded: ex.Decoded, Body: ex.Body, Lane: o.Lane, Egress: o.Egress, Node: o.Node,
			Refetch: o.prev != nil,
		}
		if ex.BodyCut {
			c.Truncated = "length"
		}
		if i == last {
			c.Body = res.Body
			if o.Kind == fetch.KindTooLarge {
				c.Truncated = "length" // cut at fetch.max_body_bytes: nothing of it is kept
			}
		}
		if c.FetchedAt.IsZero() {
			c.FetchedAt = o.At
		}
		if c.FetchedAt.IsZero() {
			c.FetchedAt = e.now()
		}
		if i == last && keepPage {
			return &c
		}
		e.st.SaveCapture(c)
	}
	return nil
}
