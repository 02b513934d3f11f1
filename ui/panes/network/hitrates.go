package network

import (
	"math"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// The DNS view carries running totals only (M5: lookups, positive and negative hits,
// misses since the start). The pane keeps a short history of what happened between
// successive views, so the sparklines show the hit rates as they move now, not the
// shares since the start, which barely move after the first minutes.

// hitSample is what the lookups between two DNS views found.
type hitSample struct {
	at                     time.Time // the later view's time
	lookups, pos, neg, mis int64
}

// hitHistory is the DNS pane's memory of hit rates, oldest first.
type hitHistory struct {
	capacity int
	lastAt   time.Time     // time of the newest view taken
	last     view.DNSStats // its counters
	have     bool
	samples  []hitSample
}

// hitRateKind picks one of the three shares of lookups (M5).
type hitRateKind uint8

const (
	ratePositive hitRateKind = iota
	rateNegative
	rateMiss
)

// add takes a view into the history. The engine refreshes the view about once a
// second while the console pulls snapshots several times a second, so a view seen
// before (same time) is skipped; counters going back mean a new crawl, and the
// history starts again.
func (h *hitHistory) add(v *view.DNSView) {
	if h.have && !v.At.After(h.lastAt) {
		return
	}
	s, p := v.Stats, h.last
	switch {
	case !h.have:
	case s.Lookups < p.Lookups || s.PositiveHits < p.PositiveHits || s.NegativeHits < p.NegativeHits || s.Misses < p.Misses:
		h.samples = h.samples[:0]
	default:
		if len(h.samples) == h.capacity {
			n := copy(h.samples, h.samples[1:])
			h.samples = h.samples[:n]
		}
		h.samples = append(h.samples, hitSample{at: v.At, lookups: s.Lookups - p.Lookups,
			pos: s.PositiveHits - p.PositiveHits, neg: s.NegativeHits - p.NegativeHits, mis: s.Misses - p.Misses})
	}
	h.lastAt, h.last, h.have = v.At, v.Stats, true
}

func (s *hitSample) count(k hitRateKind) int64 {
	switch k {
	case ratePositive:
		return s.pos
	case rateNegative:
		return s.neg
	default:
		return s.mis
	}
}

// series is one share per sample, NaN for an interval without lookups.
func (h *hitHistory) series(k hitRateKind) []float64 {
	out := make([]float64, len(h.samples))
	for i := range h.samples {
		s := &h.samples[i]
		if s.lookups == 0 {
			out[i] = math.NaN()
			continue
		}
		out[i] = float64(s.count(k)) / float64(s.lookups)
	}
	return out
}

// recent is the share of kind among the lookups of the last window (before the
// newest view); ok is false when there were none.
func (h *hitHistory) recent(k hitRateKind, window time.Duration) (share float64, ok bool) {
	if len(h.samples) == 0 {
		return 0, false
	}
	from := h.samples[len(h.samples)-1].at.Add(-window)
	var n, hit int64
	for i := len(h.samples) - 1; i >= 0 && h.samples[i].at.After(from); i-- {
		n += h.samples[i].lookups
		hit += h.samples[i].count(k)
	}
	if n == 0 {
		return 0, false
	}
	return float64(hit) / float64(n), true
}

// shareSparkline draws the newest w shares on a fixed 0..100% scale (unlike the
// header's pages/s line, scaled to its peak: a hit rate of 95% must look nearly
// full, not full). Intervals without lookups, and zero shares, are blank.
func shareSparkline(vals []float64, w int) string {
	if w <= 0 {
		return ""
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	out := make([]rune, 0, w)
	for range w - len(vals) {
		out = append(out, ' ')
	}
	for _, v := range vals {
		i := 0
		if !math.IsNaN(v) && v > 0 {
			// Eighths rounded down, so only a perfect interval draws a full bar
			// (94% and 100% differ at a glance); any share above zero shows.
			i = min(max(int(v*8), 1), len(pane.SparkRunes)-1)
		}
		out = append(out, pane.SparkRunes[i])
	}
	return string(out)
}
