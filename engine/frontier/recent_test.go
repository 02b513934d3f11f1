package frontier

import (
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// TestRecentHashesIsAnLRU checks the dedupe's LRU against a general-purpose one on
// random adds and lookups: the same answers, the same length, so the same hashes
// evicted in the same order. Hashes drawn from a small range, some sharing their low
// bits, make long probe runs and deletions from inside them.
func TestRecentHashesIsAnLRU(t *testing.T) {
	for _, size := range []int{1, 2, 3, 7, 64, 1000} {
		rng := rand.New(rand.NewPCG(uint64(size), 7))
		r := newRecentHashes(size)
		ref, _ := simplelru.NewLRU[uint64, struct{}](size, nil)
		draw := func() uint64 {
			h := rng.Uint64N(uint64(3 * size))
			if rng.IntN(3) == 0 {
				h <<= 40 // same low bits as others: one home slot for many
			}
			return h
		}
		for i := range 200_000 {
			h := draw()
			if rng.IntN(4) == 0 {
				if got, want := r.Contains(h), ref.Contains(h); got != want {
					t.Fatalf("size %d, step %d: Contains(%#x) = %v, want %v", size, i, h, got, want)
				}
				continue
			}
			want := ref.Contains(h)
			ref.Add(h, struct{}{})
			if got := r.Add(h); got != want {
				t.Fatalf("size %d, step %d: Add(%#x) found %v, want %v", size, i, h, got, want)
			}
			if r.Len() != ref.Len() {
				t.Fatalf("size %d, step %d: Len %d, want %d", size, i, r.Len(), ref.Len())
			}
		}
		// The order too: the least recent first, as the reference keeps them.
		var got []uint64
		for e := r.tail; e >= 0; e = r.entries[e].prev {
			got = append(got, r.entries[e].hash)
		}
		want := ref.Keys()
		if len(got) != len(want) {
			t.Fatalf("size %d: %d hashes in order, want %d", size, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("size %d: order %v, want %v", size, got, want)
			}
		}
	}
}

// BenchmarkRecentHashes is the dedupe's LRU at its default share of a shard, on
// hashes a quarter of which were added recently.
func BenchmarkRecentHashes(b *testing.B) {
	size := DefaultLRUSize / maxShards
	hashes := make([]uint64, 1<<16)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range hashes {
		if i >= 64 && rng.IntN(4) == 0 {
			hashes[i] = hashes[i-1-rng.IntN(64)]
		} else {
			hashes[i] = rng.Uint64()
		}
	}
	b.Run("recentHashes", func(b *testing.B) {
		r := newRecentHashes(size)
		for i := 0; b.Loop(); i++ {
			r.Add(hashes[i&(len(hashes)-1)])
		}
	})
	b.Run("simplelru", func(b *testing.B) {
		r, _ := simplelru.NewLRU[uint64, struct{}](size, nil)
		for i := 0; b.Loop(); i++ {
			r.Add(hashes[i&(len(hashes)-1)], struct{}{})
		}
	})
}
