package worker

import (
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// MaxRenderBytes caps what one report carries of a rendered page's captures (its
// DOM and its own requests' bodies): with a page body of up to
// fetch.max_body_bytes (10 MiB by default) the report stays under the transport's
// 16 MiB messages, where an oversized report loses the page itself.
const MaxRenderBytes = 4 << 20

// FitRender keeps r's render captures within limit bytes (and wire.MaxRenderExchanges
// requests): the DOM goes first, then the bodies of the page's requests from the
// last on, each kept as its heads with its body cut (the archive says the request
// was made, WARC-Truncated: length). The lane's rendering is left as it was. cut
// says what was dropped, empty when everything fit.
func FitRender(r *wire.Result, limit int) (cut string) {
	if r.Res == nil || r.Res.Render == nil {
		return ""
	}
	rd := r.Res.Render
	size := renderSize(rd)
	if size <= limit && len(rd.Sub) <= wire.MaxRenderExchanges {
		return ""
	}
	fit := *rd
	res := *r.Res
	res.Render = &fit
	r.Res = &res
	if size > limit && fit.DOM != nil {
		fit.DOM = nil
		cut = fmt.Sprintf("its rendered DOM (%d bytes)", len(rd.DOM))
	}
	if len(fit.Sub) > wire.MaxRenderExchanges {
		fit.Sub = fit.Sub[:wire.MaxRenderExchanges]
		cut = join(cut, fmt.Sprintf("%d of its %d requests", len(rd.Sub)-wire.MaxRenderExchanges, len(rd.Sub)))
	}
	if size = renderSize(&fit); size <= limit {
		return cut
	}
	fit.Sub = append([]fetch.Exchange(nil), fit.Sub...)
	bodies := 0
	for i := len(fit.Sub) - 1; i >= 0 && size > limit; i-- {
		if x := &fit.Sub[i]; len(x.Body) > 0 {
			size -= len(x.Body)
			x.Body, x.BodyCut, x.Failed = nil, true, ""
			bodies++
		}
	}
	if bodies > 0 {
		cut = join(cut, fmt.Sprintf("the bodies of %d of its requests", bodies))
	}
	return cut
}

// renderSize is about what rd's captures take in a report.
func renderSize(rd *fetch.Rendering) int {
	size := len(rd.DOM)
	for _, x := range rd.Sub {
		size += len(x.Body) + len(x.RequestHead) + len(x.ResponseHead) + len(x.URL)
	}
	return size
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + " and " + b
}
