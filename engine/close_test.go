package engine

import (
	"testing"
	"time"
)

// Stopping a crawl mid-flight, at any moment, closes its store cleanly: nothing is
// written after Close began. A link insert committed by Stop's flush used to place its
// task on a new lane (the crawl spreads over 24 hosts, one lane each), whose first
// write, LaneOpened, could come after Close began: Close returned "store is closed"
// and the demo exited 1 (seen once in TestMetricsFlagServes; here within 30 stops).
func TestCloseMidCrawlIsClean(t *testing.T) {
	t.Parallel()
	w := newMiniWeb(t, 24, 40, 0)
	for i := range 30 {
		o := testOptions(t, w)
		o.Lanes.Max = 64
		o.Lanes.DelayMin, o.Lanes.DelayMax = 0, time.Millisecond
		e, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Start(); err != nil {
			t.Fatal(err)
		}
		start := w.hits.Load()
		waitFor(t, "some pages fetched", func() bool { return w.hits.Load() >= start+int64(3+i*3) })
		if err := e.Close(); err != nil {
			t.Fatalf("stop %d: Close after a stop mid-crawl: %v", i, err)
		}
	}
}
