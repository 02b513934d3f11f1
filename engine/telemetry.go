package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/dnscache"
)

// Telemetry gathers the scrape-time figures; cheap (a few atomic loads and, on a
// master, one pass over the workers under the engine lock).
func (e *Engine) Telemetry() Telemetry {
	t := Telemetry{Role: RoleLocal}
	switch e.role {
	case roleMaster:
		t.Role = RoleMaster
	case roleWorker:
		t.Role = RoleWorker
	}
	if e.dns != nil && e.role != roleMaster {
		h := histogramOf(e.dns.WaitHistogram())
		t.DNSWait = &h
	}
	if e.st != nil {
		l := e.st.CommitLatency()
		h := Histogram{Count: l.Count, Sum: l.Sum, Buckets: l.Buckets}
		t.StoreCommit = &h
		t.StoreBusy = e.st.WriterBusy()
		t.StoreQueue = e.st.WriteQueue()
	}
	t.Cluster = e.crew.clusterStats()
	t.Render = e.renderTelemetry()
	if e.role != roleWorker {
		t.StoredByAge = make([]int64, len(e.c.storedByAge))
		for i := range e.c.storedByAge {
			t.StoredByAge[i] = e.c.storedByAge[i].Load()
		}
	}
	return t
}

func histogramOf(c dnscache.Cumulative) Histogram {
	return Histogram{Count: c.Count, Sum: c.Sum, Buckets: c.Buckets}
}
