// Package latency is the store writer's commit-latency histogram: lock-free, one
// observation per batch (not per write), read at scrape time.
package latency

import (
	"sync/atomic"
	"time"
)

// Bounds are the upper bounds (seconds) of the commit-latency histogram: from a
// fast WAL append (sub-millisecond) to a stalled disk (seconds).
var Bounds = [...]float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Hist counts the writer's batch commits by duration.
type Hist struct {
	buckets [len(Bounds) + 1]atomic.Int64 // the last one: above every bound
	sum     atomic.Int64                  // ns
}

// Observe counts one commit of duration d.
func (h *Hist) Observe(d time.Duration) {
	i := 0
	for i < len(Bounds) && d.Seconds() > Bounds[i] {
		i++
	}
	h.buckets[i].Add(1)
	h.sum.Add(int64(d))
}

// Cumulative is the histogram in Prometheus's shape: the observations at most each
// upper bound (seconds), cumulative, with their count and sum (seconds).
func (h *Hist) Cumulative() (count uint64, sum float64, buckets map[float64]uint64) {
	sum = float64(h.sum.Load()) / float64(time.Second)
	buckets = make(map[float64]uint64, len(Bounds))
	var seen uint64
	for i, b := range Bounds {
		seen += uint64(h.buckets[i].Load())
		buckets[b] = seen
	}
	return seen + uint64(h.buckets[len(Bounds)].Load()), sum, buckets
}
