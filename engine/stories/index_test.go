package stories

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// flip returns fp with d distinct random bits flipped.
func flip(r *rand.Rand, fp uint64, d int) uint64 {
	for _, b := range r.Perm(64)[:d] {
		fp ^= 1 << b
	}
	return fp
}

// TestIndexFindsEveryNearDuplicate: whatever bits differ, a fingerprint within
// MaxDistance of one held is found, at its distance, and one farther is not;
// the answers agree with comparing against every fingerprint.
func TestIndexFindsEveryNearDuplicate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var x Index
	held := make([]uint64, 20000)
	for i := range held {
		held[i] = r.Uint64()
		x.Add(held[i], uint32(i))
	}
	for i := 0; i < 4000; i++ {
		want := r.IntN(len(held))
		d := r.IntN(MaxDistance + 3) // 0..5 bits
		q := flip(r, held[want], d)
		brute, bestD := -1, MaxDistance+1
		for j, h := range held {
			if bd := bits.OnesCount64(h ^ q); bd < bestD {
				brute, bestD = j, bd
			}
		}
		val, dist, ok := x.Nearest(q)
		if brute < 0 {
			if ok {
				t.Fatalf("query %d bits from #%d: found #%d at %d bits, brute force finds none within %d", d, want, val, dist, MaxDistance)
			}
			continue
		}
		if !ok || dist != bestD {
			t.Fatalf("query %d bits from #%d: Nearest = #%d at %d (ok %v), brute force #%d at %d", d, want, val, dist, ok, brute, bestD)
		}
		n := 0
		x.Within(q, func(v uint32, dd int) bool {
			if dd > MaxDistance || bits.OnesCount64(held[v]^q) != dd {
				t.Fatalf("Within gave #%d at %d bits", v, dd)
			}
			n++
			return true
		})
		if n == 0 {
			t.Fatalf("Within found nothing where Nearest found #%d", val)
		}
	}
}

// TestIndexEmpty: an empty index answers nothing without allocating its tables.
func TestIndexEmpty(t *testing.T) {
	var x Index
	if _, _, ok := x.Nearest(42); ok || x.Len() != 0 {
		t.Fatal("an empty index found something")
	}
}

// BenchmarkIndexNearest: one lookup among a million fingerprints.
func BenchmarkIndexNearest(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var x Index
	held := make([]uint64, 1_000_000)
	for i := range held {
		held[i] = r.Uint64()
		x.Add(held[i], uint32(i))
	}
	queries := make([]uint64, 4096)
	for i := range queries {
		queries[i] = flip(r, held[r.IntN(len(held))], 3)
	}
	i := 0
	for b.Loop() {
		if _, _, ok := x.Nearest(queries[i%len(queries)]); !ok {
			b.Fatal("a near-duplicate not found")
		}
		i++
	}
}

// TestIndexAddOpensBucketsFromASlab: while most adds open new buckets (a crawl's
// first tens of thousands of pages), an add does not allocate one array a table;
// the first entries share slabs.
func TestIndexAddOpensBucketsFromASlab(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var x Index
	x.Add(r.Uint64(), 0) // the tables themselves
	i := uint32(1)
	allocs := testing.AllocsPerRun(2000, func() {
		x.Add(r.Uint64(), i)
		i++
	})
	// 4 new buckets an add cost 4 allocations before; now a slab every 128 adds
	// and a bucket's second entry (about 3% of these adds' buckets).
	if allocs > 0.5 {
		t.Fatalf("%.2f allocations an add, want at most 0.5", allocs)
	}
}
