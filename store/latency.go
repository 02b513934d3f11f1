package store

import (
	"sync/atomic"
	"time"
)

// commitBounds are the upper bounds (seconds) of the commit-latency histogram: from a
// fast WAL append (sub-millisecond) to a stalled disk (seconds).
var commitBounds = [...]float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// commitHist counts the writer's batch commits by duration: lock-free, one
// observation per batch (not per write), read at scrape time.
type commitHist struct {
	buckets [len(commitBounds) + 1]atomic.Int64 // the last one: above every bound
	sum     atomic.Int64                        // ns
}

func (h *commitHist) observe(d time.Duration) {
	i := 0
	for i < len(commitBounds) && d.Seconds() > commitBounds[i] {
		i++
	}
	h.buckets[i].Add(1)
	h.sum.Add(int64(d))
}

// Latency is a histogram in Prometheus's shape: observations at most each upper
// bound (seconds), cumulative, with their count and sum (seconds).
type Latency struct {
	Count   uint64
	Sum     float64
	Buckets map[float64]uint64
}

// CommitLatency is how long the writer's batch commits took (the COMMIT of a batch:
// its WAL append), since Open. Slow commits are what back the write queue up.
func (s *Store) CommitLatency() Latency {
	h := &s.w.commits
	l := Latency{Sum: float64(h.sum.Load()) / float64(time.Second), Buckets: make(map[float64]uint64, len(commitBounds))}
	var seen uint64
	for i, b := range commitBounds {
		seen += uint64(h.buckets[i].Load())
		l.Buckets[b] = seen
	}
	l.Count = seen + uint64(h.buckets[len(commitBounds)].Load())
	return l
}

// WriteQueue is how many write operations wait for the writer goroutine right now.
func (s *Store) WriteQueue() int {
	if s.w.ops == nil {
		return 0
	}
	return len(s.w.ops)
}
