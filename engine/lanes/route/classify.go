package route

import (
	"net/http"
	"net/url"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// Verdict classifies a fetch outcome on either route with the crawl's one
// classifier: through an egress, the egress says which failures are the proxy's;
// the direct route is a node with one egress that never has proxy faults.
func Verdict(judge *egress.Classifier, link *Link, host string, res *fetch.Result, ferr error) egress.Verdict {
	var r egress.Response
	if link.Eg != nil {
		var resp *http.Response
		var body []byte
		if res != nil && ferr == nil {
			u, _ := url.Parse(res.FinalURL)
			resp = &http.Response{StatusCode: res.Status, Header: res.Header, ContentLength: int64(len(res.Body)),
				Request: &http.Request{URL: u}}
			body = res.Body // the judge reads what it needs of it (blockpage's bounds)
		}
		r = link.Eg.Response(host, resp, body, ferr)
	} else {
		r = egress.Response{Host: host, Err: ferr}
		if res != nil && ferr == nil {
			r = classified(res)
			r.Host = host
		}
	}
	if res != nil && ferr == nil {
		r.BodyLen, r.URL, r.Links = int64(len(res.Body)), res.FinalURL, len(res.Links)
		if res.Parsed != nil {
			r.Text = res.Parsed.PageText // the fetcher's pass: the page is not tokenized again
		}
		if r.URL == "" {
			r.URL = res.URL
		}
	}
	return judge.Classify(r)
}

// classified is what the classifier reads of a fetched response on the direct
// route: status, headers and body (blockpage.Judge scans the first 32 KiB for
// markers and extracts main text from the first 256 KiB).
func classified(res *fetch.Result) egress.Response {
	return egress.Response{Status: res.Status, Header: res.Header, Body: res.Body, BodyLen: int64(len(res.Body))}
}

// RotationAction says what the rotation did about a refusal from egress from, for
// the refusal's log line and stored evidence.
func RotationAction(from string, d egress.Decision) string {
	switch d.Action {
	case egress.Retry:
		return "pair " + from + " banned; retried via " + d.Egress
	case egress.DeferHost:
		return "pair " + from + " banned; every egress refused: host disabled until " + d.Until.Format(time.TimeOnly)
	}
	return "pair " + from + " banned"
}

// RenderedVerdict judges the page a render built (res.Render.DOM): a shell whose
// script draws a captcha or a block notice is refused as the same page sent by the
// server would be. The plain fetch's status and headers go with the DOM; its links
// are counted again by the judge, and the host's template of ordinary pages learns
// nothing (the plain fetch taught it already).
func RenderedVerdict(judge *egress.Classifier, host string, res *fetch.Result) egress.Verdict {
	if res == nil || res.Render == nil || res.Render.DOM == nil {
		return egress.Verdict{Class: egress.OK}
	}
	r := egress.Response{Host: host, Status: res.Status, Header: res.Header, Body: res.Render.DOM,
		BodyLen: int64(len(res.Render.DOM))}
	if res.Parsed != nil {
		r.Text = res.Parsed.PageText // Reread parsed the DOM
	}
	return judge.Classify(r)
}
