package config

import (
	"fmt"
	"math"

	"golang.org/x/sys/unix"
)

// Memory bounds for the sizes an operator sets (a typo in dedupe.expected_urls
// would otherwise allocate gigabytes at start-up). Each structure the options
// size up front is estimated and refused, naming the setting, when it would take more
// than half of this machine's memory.

// bytesPerQueuedURL and bytesPerLRUEntry are rough in-memory costs of one queued task
// (URL, host, bookkeeping on the lane board) and one LRU entry of the dedupe.
const (
	bytesPerQueuedURL = 400
	bytesPerLRUEntry  = 32 // engine/frontier recentHashes: a 16-byte entry and up to four 4-byte table slots (a power of two, at least two an entry)
)

// bloomBytes is the size of a Bloom filter for n items at false-positive rate p.
func bloomBytes(n uint, p float64) float64 {
	return -float64(n) * math.Log(p) / (math.Ln2 * math.Ln2) / 8
}

// physicalMemory is this machine's memory in bytes, 0 when unknown.
func physicalMemory() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}

// checkMemory refuses sizes whose structures would take more than half of mem bytes
// (0: unknown, nothing is refused).
func (o *Options) checkMemory(mem uint64) error {
	if mem == 0 {
		return nil
	}
	limit := float64(mem) / 2
	gib := func(b float64) string { return fmt.Sprintf("%.1f GiB", b/(1<<30)) }
	for _, c := range []struct {
		name  string
		bytes float64
	}{
		{fmt.Sprintf("dedupe.expected_urls %d (at false_positive %g)", o.Dedupe.ExpectedURLs, o.Dedupe.FalsePositive),
			bloomBytes(o.Dedupe.ExpectedURLs, o.Dedupe.FalsePositive)},
		{fmt.Sprintf("dedupe.lru_size %d", o.Dedupe.LRUSize), float64(o.Dedupe.LRUSize) * bytesPerLRUEntry},
		{fmt.Sprintf("queue_memory %d", o.QueueMemory), float64(o.QueueMemory) * bytesPerQueuedURL},
	} {
		if c.bytes > limit {
			return fmt.Errorf("%s would take about %s, more than half of this machine's %s: lower it", c.name, gib(c.bytes), gib(float64(mem)))
		}
	}
	return nil
}
