package engine

import "github.com/crawlconsole/crawlconsole/engine/view"

// Telemetry gathers the scrape-time figures; cheap (a few atomic loads and, on a
// master, one pass over the workers under the engine lock).
func (e *Engine) Telemetry() view.Telemetry {
	t := view.Telemetry{Role: e.role.name()}
	e.role.telemetry(e, &t)
	t.Cluster = e.crew.ClusterStats()
	t.Render = e.lanes.RenderTelemetry()
	return t
}
