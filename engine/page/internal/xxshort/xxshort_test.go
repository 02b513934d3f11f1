package xxshort

import (
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestShortSums checks the sums written out for two characters of three bytes
// against xxhash's, over every three-byte character's bytes in turn.
func TestShortSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for range 200_000 {
		var a, b [3]byte
		for i := range 3 {
			a[i], b[i] = byte(rng.Uint32()), byte(rng.Uint32())
		}
		as, bs := string(a[:]), string(b[:])
		if got, want := Pair33(as, bs), xxhash.Sum64String(as+bs); got != want {
			t.Fatalf("Pair33(%q, %q) = %x, xxhash %x", as, bs, got, want)
		}
		if got, want := Spaced33(as, bs), xxhash.Sum64String(as+" "+bs); got != want {
			t.Fatalf("Spaced33(%q, %q) = %x, xxhash %x", as, bs, got, want)
		}
		if got, want := Spaced33(a[:], bs), xxhash.Sum64String(as+" "+bs); got != want {
			t.Fatalf("Spaced33([]byte %q, %q) = %x, xxhash %x", as, bs, got, want)
		}
	}
}
