package dnscache

import (
	"math"
	"sync/atomic"
	"time"
)

// latencyHist is a lock-free log-scale histogram of durations: one bucket for exactly
// zero (a fetch served from cache, M5's whole point), then four buckets per doubling
// from 1 µs up to about 134 s (slower waits are reported as that). Quantiles are reported as the upper edge of their bucket,
// at most 19% above the true value, never below it.
type latencyHist struct {
	zero    atomic.Int64
	buckets [histBuckets]atomic.Int64
	sum     atomic.Int64 // ns of all observations: the _sum of a Prometheus histogram
}

const (
	histPerOctave = 4
	histBuckets   = 27*histPerOctave + 1 // last edge 1 µs · 2^27 ≈ 134 s; slower waits land in it
)

// observe records one duration.
func (h *latencyHist) observe(d time.Duration) {
	if d <= 0 {
		h.zero.Add(1)
		return
	}
	h.buckets[bucketOf(d)].Add(1)
	h.sum.Add(int64(d))
}

func bucketOf(d time.Duration) int {
	us := float64(d) / float64(time.Microsecond)
	if us <= 1 {
		return 0
	}
	i := int(math.Ceil(math.Log2(us) * histPerOctave))
	return min(max(i, 0), histBuckets-1)
}

// upperEdge is the largest duration bucket i holds.
func upperEdge(i int) time.Duration {
	return time.Duration(math.Exp2(float64(i)/histPerOctave) * float64(time.Microsecond))
}

// histSnapshot is a consistent-enough copy for quantiles (counters move while copied,
// by at most the observations made meanwhile).
type histSnapshot struct {
	zero    int64
	buckets [histBuckets]int64
	total   int64
}

func (h *latencyHist) snapshot() histSnapshot {
	var s histSnapshot
	s.zero = h.zero.Load()
	s.total = s.zero
	for i := range h.buckets {
		s.buckets[i] = h.buckets[i].Load()
		s.total += s.buckets[i]
	}
	return s
}

// quantile returns the q-quantile (0 < q ≤ 1); zero when nothing was observed or
// when at least that share of observations were zero.
func (s histSnapshot) quantile(q float64) time.Duration {
	if s.total == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(s.total)))
	seen := s.zero
	if seen >= rank {
		return 0
	}
	for i, n := range s.buckets {
		seen += n
		if seen >= rank {
			return upperEdge(i)
		}
	}
	return upperEdge(histBuckets - 1)
}

// HistBucket is one non-empty bucket of a latency histogram: the count of
// observations at most UpToMs milliseconds (and above the previous bucket's edge).
type HistBucket struct {
	UpToMs float64 `json:"le_ms"`
	Count  int64   `json:"count"`
}

// buckets lists the non-empty buckets, the zero bucket (UpToMs 0) first.
func (s histSnapshot) list() []HistBucket {
	var out []HistBucket
	if s.zero > 0 {
		out = append(out, HistBucket{UpToMs: 0, Count: s.zero})
	}
	for i, n := range s.buckets {
		if n > 0 {
			out = append(out, HistBucket{UpToMs: ms(upperEdge(i)), Count: n})
		}
	}
	return out
}

// ms converts to float milliseconds, the unit of every latency in stats and views.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Cumulative is a histogram in Prometheus's shape: observations at most each upper
// bound (seconds), cumulative, with their count and sum (seconds).
type Cumulative struct {
	Count   uint64
	Sum     float64
	Buckets map[float64]uint64
}

// cumulative gives the histogram at one bound per doubling (0, 1 µs, 2 µs, ... 67 s):
// edges of the fine buckets, so each count is exact, and few enough for a scrape. The
// last fine bucket also holds every slower wait, so its edge is no true bound: those
// waits count in the total (+Inf) only.
func (h *latencyHist) cumulative() Cumulative {
	s := h.snapshot()
	c := Cumulative{Count: uint64(s.total), Sum: float64(h.sum.Load()) / float64(time.Second),
		Buckets: make(map[float64]uint64, histBuckets/histPerOctave+2)}
	seen := uint64(s.zero)
	c.Buckets[0] = seen
	for i, n := range s.buckets {
		seen += uint64(n)
		if i%histPerOctave == 0 && i < histBuckets-1 {
			c.Buckets[upperEdge(i).Seconds()] = seen
		}
	}
	return c
}

// WaitHistogram is the fetch-path wait (M5) as a cumulative histogram, for /metrics.
func (c *Cache) WaitHistogram() Cumulative { return c.wait.cumulative() }
