package engine

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// setupRender gives the lanes a renderer when a browser is found and render.mode
// is not off; without a browser the crawl says so once and fetches plainly. The
// verdicts an earlier run kept come from kept, the role's store (none on a worker).
func (e *Engine) setupRender(kept *store.Store) {
	o := e.opts.Render
	if strings.EqualFold(o.Mode, "off") {
		return
	}
	pool, err := render.NewPool(render.Config{Browser: o.Browser, Contexts: o.Contexts, Timeout: o.Timeout,
		MaxRequests: o.MaxRequests, MemoryMB: o.MemoryMB, Block: o.Block, AllowHosts: o.AllowHosts})
	if err != nil {
		if o.Browser != "" || !errors.Is(err, render.ErrNoBrowser) {
			e.logf(view.LevelWarn, 0, "", "%v; pages are fetched without rendering", err)
		}
		return
	}
	opts := o
	d := &render.Decider{RecheckEvery: o.RecheckEvery, ModeFor: func(host string) render.Mode {
		m, _ := render.ParseMode(opts.RenderModeFor(host))
		return m
	}}
	e.renderer = render.NewService(pool, d)
	e.renderer.Jar = e.run.Jar
	e.renderer.ScrollFor = opts.RenderScrollFor
	e.run.Render = e.renderer
	if kept != nil {
		if b, err := kept.GetMeta(renderVerdictsKey); err == nil {
			var vs render.Verdicts
			if json.Unmarshal(b, &vs) == nil {
				d.Restore(vs)
			}
		}
	}
}

// renderVerdictsKey is the store meta key of the sections' render verdicts, kept
// across runs so that a restarted crawl does not learn its hosts again.
const renderVerdictsKey = "render_verdicts"

// saveRenderVerdicts keeps what the decider learned in st (the front's stop).
func (e *Engine) saveRenderVerdicts(st *store.Store) {
	var vs render.Verdicts
	if e.renderer != nil {
		vs = e.renderer.Decider.Verdicts()
	} else {
		vs = e.verdicts.snapshot(st) // a master's: its workers' and the last run's
	}
	if len(vs) == 0 {
		return
	}
	if b, err := json.Marshal(vs); err == nil {
		st.SetMeta(renderVerdictsKey, b)
	}
}

// Renderer is the crawl's page renderer, nil when pages are not rendered.
func (e *Engine) Renderer() *render.Service { return e.renderer }

// closeRender ends the browser (after the lanes stopped).
func (e *Engine) closeRender() {
	if e.renderer != nil {
		e.renderer.Pool.Close()
	}
}

// renderTelemetry is the renderer's pool and cost for /metrics and the console.
func (e *Engine) renderTelemetry() *view.RenderStats {
	if e.renderer == nil {
		return nil
	}
	st := e.renderer.Pool.Stats()
	r := &view.RenderStats{Running: st.Running, Contexts: st.Contexts, Busy: st.Busy, PSSMB: st.PSSMB,
		Renders: st.Renders, Failed: st.Failed, Recycled: st.Recycled, Restarts: st.Restarts, Unsettled: st.Unsettled}
	for i, h := range e.renderer.Hosts() {
		r.Requests += h.Requests
		r.Seconds += h.Time.Seconds()
		if i < view.RenderTopHosts {
			r.Hosts = append(r.Hosts, view.RenderHost{Host: h.Host, Renders: h.Renders, Failed: h.Failed, Requests: h.Requests,
				Seconds: h.Time.Seconds(), Unsettled: h.Unsettled})
		}
	}
	return r
}
