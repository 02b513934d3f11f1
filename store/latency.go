package store

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
	var l Latency
	l.Count, l.Sum, l.Buckets = s.w.commits.Cumulative()
	return l
}

// WriteQueue is how many write operations wait for the writer goroutine right now.
func (s *Store) WriteQueue() int {
	if s.w.ops == nil {
		return 0
	}
	return len(s.w.ops)
}
