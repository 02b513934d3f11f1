package page

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCollapseTitle: a document title collapses as strings.Fields and Join did, on
// random mixes of words, Unicode spaces and invalid bytes.
func TestCollapseTitle(t *testing.T) {
	pieces := []string{" ", "\n", "\t", "\u00a0", "\u3000", "\u2009", "\u0085", "\u200b", "word", "本市", "é", "\xff", "\xe4\xb8", "\ufffd", "\x1c"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		var b []byte
		for range rng.IntN(10) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		if got, want := collapseTitle(b), strings.Join(strings.Fields(string(b)), " "); got != want {
			t.Fatalf("collapseTitle(%q) = %q, want %q", b, got, want)
		}
	}
}
