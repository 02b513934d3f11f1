package bitvote

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestCountCountsEachBit: the bit-sliced counts are the plain ones.
func TestCountCountsEachBit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 3, 64, 1000, 5000} {
		fs := make([]uint64, n)
		for i := range fs {
			fs[i] = r.Uint64()
		}
		var got, want [64]int
		Count(fs, &got)
		for _, f := range fs {
			for ; f != 0; f &= f - 1 {
				want[bits.TrailingZeros64(f)]++
			}
		}
		if got != want {
			t.Fatalf("%d features: %v, want %v", n, got, want)
		}
	}
}
