package engine

import (
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// The collector's settings are the process's, not one engine's: the first engine
// to start sets them (a master and its in-process workers, as the demo runs them,
// share the master's; another engine's gc_percent waits for a time when none runs),
// and the last to stop puts back what the process had.
var gcHeld struct {
	sync.Mutex
	engines int
	percent int   // the process's GOGC before the first engine started
	limit   int64 // its soft memory limit then
}

// holdGC sets the collector's pace for a crawl (see config.Options.GCPercent) and
// returns what puts the process's back; it may be called more than once.
func holdGC(option int) (release func()) {
	// Not set, the process's pace stands (Go's 100, or the operator's GOGC). A crawl
	// allocates some 36 KB a page and keeps little of it, so at 200 marking, which
	// walks what is kept, halves (about 4% of the crawler's CPU to 2.5%), but no
	// CPU a page came out of it beyond the noise, and the realfeeds bench's peak RSS
	// grew from 223 to 301 MB: a choice for the operator, not a default.
	percent := option
	if percent == 0 {
		return func() {}
	}
	gcHeld.Lock()
	defer gcHeld.Unlock()
	if gcHeld.engines == 0 {
		gcHeld.percent = debug.SetGCPercent(percent)
		gcHeld.limit = debug.SetMemoryLimit(-1)
		if mem := physicalMemory(); percent > 100 && gcHeld.limit == math.MaxInt64 && mem > 0 {
			// No limit set (GOMEMLIMIT or code): the heap that collecting less
			// often lets grow stays under half the memory this process may use.
			debug.SetMemoryLimit(int64(min(mem/2, math.MaxInt64)))
		}
	}
	gcHeld.engines++
	var once sync.Once
	return func() {
		once.Do(func() {
			gcHeld.Lock()
			defer gcHeld.Unlock()
			if gcHeld.engines--; gcHeld.engines == 0 {
				debug.SetGCPercent(gcHeld.percent)
				debug.SetMemoryLimit(gcHeld.limit)
			}
		})
	}
}

// physicalMemory is the memory this process may use in bytes: the machine's, or
// its container's (cgroup v2 memory.max, v1 limit_in_bytes) when that is less; 0
// when unknown.
func physicalMemory() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	mem := uint64(si.Totalram) * uint64(si.Unit)
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(f); err == nil {
			if n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < mem {
				mem = n // "max" (no limit) does not parse
			}
		}
	}
	return mem
}
