package lanes

import (
	"context"
	"fmt"
	"net/http"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/robots"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Renderer renders the fetched pages that need a browser (engine/render.Service).
// nil on the Runner: no page is rendered.
type Renderer interface {
	// Page renders res's page when it needs it, sending each of the page's own
	// requests with send; nil: not rendered. A Rendering without a DOM says why
	// the page is kept as fetched.
	Page(ctx context.Context, egress string, res *fetch.Result, send func(context.Context, *http.Request) (*fetch.Result, error)) *fetch.Rendering
}

// render hands a fetched HTML page to the Renderer; a rendered DOM replaces what
// the page's links and parse were read from (fetch.Fetcher.Reread), the body the
// server sent stays for the archive. A failed render leaves the page as fetched,
// with the reason.
func (r *Runner) render(lane int, link *route.Link, t frontier.Task, rules *robots.Rules, res *fetch.Result) {
	if r.Render == nil || res == nil || res.Body == nil || res.Discovered != nil {
		return
	}
	r.Mu.Lock()
	egIdx := r.Index(link.Name)
	r.Mu.Unlock()
	send := func(ctx context.Context, req *http.Request) (*fetch.Result, error) {
		// The page's own requests are requests to their host like any other:
		// robots (the page's host's rules, or the other host's), the SSRF guard
		// (the egress's dialer), the host gate and its adaptive gap.
		host := req.URL.Hostname()
		if r.Opts.EtiquetteFor(host).Robots {
			hr := rules
			if host != t.Host || hr == nil {
				var err error
				if hr, err = r.robotsFor(link, req.URL); err != nil {
					return nil, err
				}
			}
			if !hr.Allowed(req.URL.RequestURI()) {
				return nil, fmt.Errorf("robots.txt disallows %s", req.URL)
			}
		}
		tk, err := r.Gate.AcquireWith(ctx, Wait{}, egIdx, host, t.ParentHash)
		if err != nil {
			return nil, err
		}
		res, err := link.F.Resource(ctx, req)
		r.Gate.Finish(tk, ResponseOf(res, err))
		return res, err
	}
	rd := r.Render.Page(r.Ctx, link.Name, res, send)
	if rd == nil {
		return
	}
	res.Render = rd
	if rd.DOM == nil {
		r.Front.Logf(view.LevelInfo, lane, t.Host, "%s kept as fetched: %s", t.URL, rd.Note)
		return
	}
	link.F.Reread(res)
}
