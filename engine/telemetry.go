package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/dnscache"
)

// Telemetry gathers the scrape-time figures; cheap (a few atomic loads and, on a
// master, one pass over the workers under the engine lock).
func (e *Engine) Telemetry() Telemetry {
	t := Telemetry{Role: e.role.name()}
	e.role.telemetry(e, &t)
	t.Cluster = e.crew.clusterStats()
	t.Render = e.renderTelemetry()
	return t
}

func histogramOf(c dnscache.Cumulative) Histogram {
	return Histogram{Count: c.Count, Sum: c.Sum, Buckets: c.Buckets}
}
