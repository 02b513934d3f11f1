package engine

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"testing"
)

// gcSettings reads the process's GOGC and soft memory limit.
func gcSettings() (percent, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// A crawl collects at gc_percent (above 100 under a soft limit of half the
// memory the process may use); when gc_percent is not set the process's pace
// stands (Go's 100, or the operator's GOGC), and the process gets its own settings
// back when the crawl stops. Not parallel: the
// settings are the process's.
func TestCrawlCollectsAtItsGCPercent(t *testing.T) {
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	w := newMiniWeb(t, 2, 5, 0)
	mem := int64(physicalMemory() / 2)
	if mem == 0 {
		mem = math.MaxInt64
	}
	for _, c := range []struct {
		name        string
		option      int
		gogc        string // the environment's GOGC ("" unset), the process's pace from the start
		wantPercent int64
		wantLimit   int64
	}{
		{"default", 0, "", 100, math.MaxInt64},
		{"gc_percent 300", 300, "", 300, mem},
		{"gc_percent 80", 80, "", 80, math.MaxInt64},
		{"GOGC set, gc_percent not", 0, "150", 150, math.MaxInt64},
		{"GOGC set and gc_percent", 400, "150", 400, mem},
	} {
		t.Run(c.name, func(t *testing.T) {
			process := 100
			if c.gogc != "" {
				os.Setenv("GOGC", c.gogc)
				defer os.Unsetenv("GOGC")
				process, _ = strconv.Atoi(c.gogc)
			}
			debug.SetGCPercent(process)
			o := testOptions(t, w)
			o.GCPercent = c.option
			e := startEngine(t, o)
			percent, limit := gcSettings()
			<-e.Done()
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if percent != c.wantPercent || limit != c.wantLimit {
				t.Errorf("while crawling: GOGC %d, memory limit %d; want %d and %d", percent, limit, c.wantPercent, c.wantLimit)
			}
			if percent, limit := gcSettings(); percent != int64(process) || limit != math.MaxInt64 {
				t.Errorf("after the crawl: GOGC %d, memory limit %d; want the process's %d and no limit back", percent, limit, process)
			}
		})
	}
}

// Two crawls in one process (a master and its in-process worker): the first to
// start sets the pace, which the second does not change, the first to stop leaves
// the other's pace alone, the last puts the process's back.
func TestGCPaceHeldUntilTheLastCrawlStops(t *testing.T) {
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	a, b := holdGC(300), holdGC(500)
	if percent, _ := gcSettings(); percent != 300 {
		t.Errorf("a second crawl started: GOGC %d, want the first's 300", percent)
	}
	a()
	a() // twice is once
	if percent, _ := gcSettings(); percent != 300 {
		t.Errorf("one crawl of two stopped: GOGC %d, want 300", percent)
	}
	b()
	if percent, limit := gcSettings(); percent != 100 || limit != math.MaxInt64 {
		t.Errorf("both stopped: GOGC %d, memory limit %d; want 100 and no limit", percent, limit)
	}
}
