package view

import "time"

// Telemetry is what a monitoring scrape (/metrics, engine/metrics) reads beyond the
// Snapshot: the node's role and the histograms kept by the DNS cache and the store.
// Everything in it is read from counters the engine keeps anyway; building it adds no
// work to the fetch path.
type Telemetry struct {
	Role string // "local" (one process), "master" or "worker" (M4)

	// DNSWait is the fetch-path DNS wait (M5); nil on a master, whose workers resolve.
	DNSWait *Histogram
	// StoreCommit is the store writer's batch-commit latency; nil on a worker (no store).
	StoreCommit *Histogram
	StoreBusy   time.Duration // writer time spent applying and committing since Open
	StoreQueue  int           // write operations waiting for the writer now

	// Cluster is a master's view of its workers (M4); nil elsewhere.
	Cluster *ClusterStats
}

// Histogram is a latency histogram in Prometheus's shape: Buckets maps each upper
// bound (seconds) to the observations at most that long, cumulative; Sum is in seconds.
type Histogram struct {
	Count   uint64
	Sum     float64
	Buckets map[float64]uint64
}

// Roles as Telemetry names them.
const (
	RoleLocal  = "local"
	RoleMaster = "master"
	RoleWorker = "worker"
)
