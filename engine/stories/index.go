package stories

import (
	"math/bits"
)

// The near-duplicate lookup of Manku, Jain and Das Sarma ("Detecting
// Near-Duplicates for Web Crawling", WWW 2007): two 64-bit SimHash fingerprints
// at Hamming distance k or less agree exactly on at least one of k+1 disjoint
// blocks of their bits (pigeonhole). With MaxDistance = 3 the 64 bits are cut
// into four 16-bit blocks and each block keys a table; a lookup reads one bucket
// in each table and compares only the fingerprints there, instead of every
// fingerprint held. Manku's tables are sorted and permuted so the block comes
// first; here each table is an array of 2^16 buckets indexed by the block, the
// same candidates found without a sort, and an insert is an append.
//
// The buckets hold the fingerprints themselves, not references to them, so a
// lookup scans four short contiguous runs of memory: at N fingerprints a bucket
// holds N/65536 on average (15 at a million, 150 at ten million). Memory: 4
// tables × 16 bytes (the fingerprint and a 32-bit value, padded) per fingerprint,
// with the growth slack of appends, plus 4 × 65536 bucket headers (6 MiB)
// allocated on the first insert and at most 4 MiB of first-entry slots left
// behind by buckets that grew (see Add). `go run ./bench stories` measures both.

// MaxDistance is the largest Hamming distance at which two fingerprints are
// near-duplicates: Manku et al. found k = 3 right for 64-bit SimHash over eight
// billion pages.
const MaxDistance = 3

// tables is MaxDistance+1: one table per block of the pigeonhole.
const tables = MaxDistance + 1

// blockBits is the width of one block.
const blockBits = 64 / tables

// Index finds, among the fingerprints added, one within MaxDistance bits of a
// query. Each fingerprint carries a 32-bit value (a page or story number). It is
// not safe for concurrent use; the Book around it locks.
type Index struct {
	t    [tables][]bucket // nil until the first Add
	n    int
	slab []entry // unused slots that a bucket's first entry takes, see Add
}

// slabSize is how many first entries one allocation holds.
const slabSize = 512

// bucket is the fingerprints of one table whose block has one value, with their
// values, in insertion order.
type bucket []entry

// entry is one fingerprint and its value.
type entry struct {
	fp  uint64
	val uint32
}

// block is the b-th 16-bit block of fp.
func block(fp uint64, b int) uint32 { return uint32(fp>>(b*blockBits)) & (1<<blockBits - 1) }

// Add puts fp in the index with its value.
func (x *Index) Add(fp uint64, val uint32) {
	if x.t[0] == nil {
		for i := range x.t {
			x.t[i] = make([]bucket, 1<<blockBits)
		}
	}
	for i := range x.t {
		b := &x.t[i][block(fp, i)]
		if *b == nil {
			// Until the index holds some 65,536 fingerprints most adds open new
			// buckets: their first entries come out of one slab (a slot of
			// capacity one, so a second entry moves the bucket to an array of
			// its own, leaving the slot unused: at most 16 bytes a bucket, 4 MiB
			// in all).
			if len(x.slab) == 0 {
				x.slab = make([]entry, slabSize)
			}
			x.slab[0] = entry{fp, val}
			*b, x.slab = bucket(x.slab[:1:1]), x.slab[1:]
			continue
		}
		*b = append(*b, entry{fp, val})
	}
	x.n++
}

// Len is the number of fingerprints added.
func (x *Index) Len() int { return x.n }

// Nearest returns the value of the fingerprint nearest to fp within MaxDistance
// bits (of those at that distance, the smallest value: values given in order, the
// earliest added) and the distance; ok is false when none is that near.
func (x *Index) Nearest(fp uint64) (val uint32, dist int, ok bool) {
	if x.t[0] == nil {
		return 0, 0, false
	}
	dist = MaxDistance + 1
	for i := range x.t {
		for _, e := range x.t[i][block(fp, i)] {
			d := bits.OnesCount64(e.fp ^ fp)
			if d < dist || d == dist && e.val < val {
				val, dist, ok = e.val, d, true
			}
		}
	}
	return val, dist, ok
}

// Within calls fn with the value and distance of every fingerprint within
// MaxDistance bits of fp, once each, until fn returns false.
func (x *Index) Within(fp uint64, fn func(val uint32, dist int) bool) {
	if x.t[0] == nil {
		return
	}
	for i := range x.t {
		for _, e := range x.t[i][block(fp, i)] {
			d := bits.OnesCount64(e.fp ^ fp)
			if d > MaxDistance || seenInEarlierTable(e.fp, fp, i) {
				continue
			}
			if !fn(e.val, d) {
				return
			}
		}
	}
}

// seenInEarlierTable reports whether a candidate c found in table i was already
// found in a table before it: it agrees with fp on an earlier block too.
func seenInEarlierTable(c, fp uint64, i int) bool {
	for e := 0; e < i; e++ {
		if block(c, e) == block(fp, e) {
			return true
		}
	}
	return false
}
