package engine

import (
	"encoding/json"

	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/store"
)

// saveRenderVerdicts keeps what the decider learned in st (the front's stop).
func (e *Engine) saveRenderVerdicts(st *store.Store) {
	var vs render.Verdicts
	if e.lanes.Renderer != nil {
		vs = e.lanes.Renderer.Decider.Verdicts()
	} else {
		vs = e.verdicts.snapshot(st) // a master's: its workers' and the last run's
	}
	if len(vs) == 0 {
		return
	}
	if b, err := json.Marshal(vs); err == nil {
		st.SetMeta(render.VerdictsKey, b)
	}
}

// Renderer is the crawl's page renderer, nil when pages are not rendered.
func (e *Engine) Renderer() *render.Service { return e.lanes.Renderer }
