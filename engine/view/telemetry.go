package view

import (
	"fmt"
	"time"
)

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

	// StoredByAge counts the pages first stored, by how old they said they were when
	// stored (their own publication date, engine/page metadata), one count per
	// AgeBands entry; nil on a worker (the master stores).
	StoredByAge []int64

	// Render is the page renderer's state and cost; nil when pages are not
	// rendered (no browser, render.mode off, a master).
	Render *RenderStats
}

// RenderStats are the headless browser's pool and the renders' cost.
type RenderStats struct {
	Running                             bool  // a browser process is up
	Starting                            bool  // a browser is starting: none serves yet
	Stopping                            bool  // a browser is stopping (a restart, or one killed for not answering): the next starts once it is gone
	Hung                                int64 // browsers killed for not answering in time (render.start_timeout)
	Contexts, Busy, PSSMB               int   // browser contexts open, renders running, memory (PSS, MB)
	Renders, Failed, Recycled, Restarts int64 // renders with a DOM, kept plain, contexts disposed, browser restarts
	Unsettled                           int64 // renders of pages that never settled (read early or at the cap, or a script that never yielded)
	WaitedOut                           int64 // renders that found every browser page busy, none freed for a whole time cap or all going to other renders for a start and a cap (counted in Failed)
	Requests                            int64 // the rendered pages' own requests
	Seconds                             float64
	// Hosts are the hosts with the most renders (at most RenderTopHosts: the
	// series stay bounded).
	Hosts []RenderHost
}

// RenderTopHosts bounds the hosts RenderStats lists.
const RenderTopHosts = 20

// RenderHost is one host's renders and their cost.
type RenderHost struct {
	Host                      string
	Renders, Failed, Requests int64
	Seconds                   float64
	Unsettled                 int64 // its pages that never settled: its next pages render in half the time
}

// Compact is the pool's state in a few words, for the console's totals line.
func (r *RenderStats) Compact() string {
	if !r.Running {
		return fmt.Sprintf("%s, %d renders", r.idle(), r.Renders)
	}
	return fmt.Sprintf("%d ctx %d MB %d renders %d plain", r.Contexts, r.PSSMB, r.Renders, r.Failed)
}

// String is the pool's state in one line, for the console.
func (r *RenderStats) String() string {
	if r == nil {
		return "browser: off"
	}
	if !r.Running {
		return fmt.Sprintf("browser: %s · %d renders, %d kept plain", r.idle(), r.Renders, r.Failed)
	}
	return fmt.Sprintf("browser: %d contexts (%d busy) · %d MB · %d renders, %d kept plain, %d recycled",
		r.Contexts, r.Busy, r.PSSMB, r.Renders, r.Failed, r.Recycled)
}

// idle is the word for a pool with no browser serving.
func (r *RenderStats) idle() string {
	switch {
	case r.Starting:
		return "starting"
	case r.Stopping:
		return "stopping"
	}
	return "idle"
}

// AgeBands name the age bands of StoredByAge: a page stored under an hour after
// its publication, under 6 hours, a day, a week, 30 days, older, and a page that
// states no publication date. A fixed list: /metrics series stay bounded.
var AgeBands = []string{"lt_1h", "1h_6h", "6h_24h", "1d_7d", "7d_30d", "gt_30d", "undated"}

// AgeBand is the index in AgeBands of a page published at pub and stored at at (pub
// zero: undated; a page stored before its stated time counts as under an hour).
func AgeBand(pub, at time.Time) int {
	if pub.IsZero() {
		return len(AgeBands) - 1
	}
	age := at.Sub(pub)
	for i, limit := range []time.Duration{time.Hour, 6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour} {
		if age < limit {
			return i
		}
	}
	return len(AgeBands) - 2
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
