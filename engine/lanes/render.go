package lanes

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/robots"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Send sends one of a rendered page's own requests through the lane and returns
// the fetch's result.
type Send = func(context.Context, *http.Request) (*fetch.Result, error)

// Renderer renders the fetched pages that need a browser (engine/render.Service).
// nil on the Runner: no page is rendered.
type Renderer interface {
	// Plan decides whether res's page is rendered: nil when it is not, else the
	// render, which sends each of the page's own requests with send and blocks
	// until the page is rendered or kept as fetched (a Rendering without a DOM
	// says why). Plan is quick; the render is called once, on any goroutine.
	// learn: the render teaches its section's verdict, which the section's next
	// pages are decided on; the lane awaits it.
	Plan(egress string, res *fetch.Result) (render func(ctx context.Context, send Send) *fetch.Rendering, learn bool)
}

// laneRenders is how many of a lane's pages may be rendering at once while the
// lane goes on fetching: a render takes far longer than a fetch, and the lane
// must not hold its host's next request for it, but a lane whose renders fall
// behind waits for one rather than keep fetched pages piling up in memory.
const laneRenders = 3

// renderPlan hands a fetched HTML page to the Renderer: nil when it is not to be
// rendered; learn when the lane should await the render.
func (r *Runner) renderPlan(link *route.Link, res *fetch.Result) (render func(context.Context, Send) *fetch.Rendering, learn bool) {
	if r.Render == nil || res == nil || res.Body == nil || res.Discovered != nil {
		return nil, false
	}
	return r.Render.Plan(link.Name, res)
}

// renderLater runs a page's render beside the lane's next fetches and delivers the
// page when it ends: a rendered DOM replaces what the page's links and parse are
// read from (fetch.Fetcher.Reread), the body the server sent stays for the
// archive; a failed render leaves the page as fetched, with the reason. The task
// stays in hand (the crawl is not idle, a worker reports it as its own) until
// then. The lane waits here only when laneRenders of its pages are rendering.
// false: the crawl is stopping and the page was not handed over (the lane
// delivers it as fetched).
func (r *Runner) renderLater(s *Slot, link *route.Link, t frontier.Task, u *url.URL, rules *robots.Rules, o Outcome,
	render func(context.Context, Send) *fetch.Rendering) bool {
	select {
	case s.renders <- struct{}{}:
	case <-r.Ctx.Done():
		return false
	}
	r.Mu.Lock()
	r.rendering[o.Res] = t
	r.Mu.Unlock()
	r.runs.Add(1) // the lane is running: Wait cannot have returned
	go func() {
		defer r.runs.Done()
		defer func() { <-s.renders }()
		o.Kind = r.finishRender(s, link, t, rules, o.Res, render)
		r.attachRobotsSitemaps(u, rules, o.Res)
		r.Record.Deliver(o)
		r.Mu.Lock()
		delete(r.rendering, o.Res)
		r.Front.Release(t, true)
		r.Mu.Unlock()
	}()
	return true
}

// finishRender renders res's page, its own requests sent through the lane: robots
// (the page's host's rules, or the other host's), the SSRF guard (the egress's
// dialer), the host gate and its adaptive gap, the operator's holds, the worker's
// lease, as any request to their host. kind
// is the task's outcome kind: refused when the rendered page is a block page.
func (r *Runner) finishRender(s *Slot, link *route.Link, t frontier.Task, rules *robots.Rules, res *fetch.Result,
	render func(context.Context, Send) *fetch.Rendering) (kind string) {
	egIdx := link.Index
	r.Mu.Lock()
	s.Rendering++
	r.Mu.Unlock()
	send := func(ctx context.Context, req *http.Request) (*fetch.Result, error) {
		host := req.URL.Hostname()
		if r.Opts.EtiquetteFor(host).Robots {
			hr := rules
			if host != t.Host || hr == nil {
				var err error
				if hr, _, err = r.robotsFor(link, "", req.URL); err != nil {
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
		// A worker's render asks under its lease as the lane does (it may have
		// waited for a browser page past the lease's end, its host another's
		// now), and a held host gets no request, a page's own included.
		if err := r.mayLeave(ctx, host, t.Lease); err != nil {
			r.Gate.Release(tk)
			return nil, err
		}
		res, err := link.F.Resource(ctx, req)
		if ctx.Err() != nil {
			// The render ended with the request out (its time cap, one of its
			// caps, the crawl stopping): the crawler gave up on it, and its end
			// says nothing of the host's pace. Taken as the host's timeout, it
			// would back the host off (politeness.backoff_min, a minute) and
			// hold the lane's next fetch there long past the page's time cap.
			r.Gate.Release(tk)
			return res, err
		}
		r.Gate.Finish(tk, ResponseOf(res, err))
		return res, err
	}
	rd := render(r.Ctx, send)
	r.Mu.Lock()
	s.Rendering--
	if rd != nil && rd.DOM != nil {
		s.Rendered++
		s.RenderTime += rd.Took
	}
	r.Mu.Unlock()
	if rd == nil {
		return ""
	}
	res.Render = rd
	if rd.DOM == nil {
		r.Front.Logf(view.LevelInfo, s.Lane.ID, t.Host, "%s kept as fetched: %s", t.URL, rd.Note)
		return ""
	}
	link.F.Reread(res)
	return r.judgeRendered(link, t, res)
}

// judgeRendered gives the block-page judge the rendered page. A refusal ends the
// task as refused, with its evidence stored; hard evidence also tells the
// rotation, which moves the host's next tasks off the pair (the lane checks before
// each fetch). Soft evidence punishes neither the host nor the egress: the render
// is not fetched again to confirm it.
func (r *Runner) judgeRendered(link *route.Link, t frontier.Task, res *fetch.Result) string {
	v := route.RenderedVerdict(r.Judge, t.Host, res)
	if v.Class != egress.SiteBan {
		return ""
	}
	v.Reason = "rendered page: " + v.Reason
	action := "URL refused; host and egress not punished (soft evidence in the rendered page)"
	if !v.Confirm {
		action = "URL refused"
		if r.Pool != nil {
			action = route.RotationAction(link.Name, r.Pool.Report(link.Name, t.Host, v))
		}
	}
	r.punished(link, t, res, v, action)
	r.Front.Refusal()
	return fetch.KindRefused
}
