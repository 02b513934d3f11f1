package store

import (
	"math"
	"testing"
	"time"
)

// TestCommitLatency: the writer's commit histogram is cumulative at its bounds, a
// commit slower than the last bound counts in the total only, and a real store's
// commits land in it.
func TestCommitLatency(t *testing.T) {
	s := &Store{w: &writer{}}
	for _, d := range []time.Duration{300 * time.Microsecond, 2 * time.Millisecond, 20 * time.Second} {
		s.w.commits.Observe(d)
	}
	l := s.CommitLatency()
	if l.Count != 3 || math.Abs(l.Sum-20.0023) > 1e-9 {
		t.Fatalf("count %d sum %v, want 3 and 20.0023", l.Count, l.Sum)
	}
	for le, want := range map[float64]uint64{0.0005: 1, 0.001: 1, 0.0025: 2, 10: 2} {
		if got := l.Buckets[le]; got != want {
			t.Errorf("le=%v: %d, want %d", le, got, want)
		}
	}

	st, _ := openTemp(t, Options{})
	st.AddURLs([]URL{{URL: "http://a.example/", Host: "a.example"}}, nil)
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	if l := st.CommitLatency(); l.Count == 0 || st.WriteQueue() != 0 {
		t.Fatalf("after a flushed write: %d commits observed, %d queued", l.Count, st.WriteQueue())
	}
}
