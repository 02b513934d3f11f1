package textutil

import (
	"testing"
	"unicode/utf8"
)

// TestDecodeRune: every sequence of three bytes (and of two, and one) decodes as
// utf8 decodes it.
func TestDecodeRune(t *testing.T) {
	var b [3]byte
	for v := range 1 << 24 {
		b[0], b[1], b[2] = byte(v>>16), byte(v>>8), byte(v)
		for _, s := range [][]byte{b[:], b[:2], b[:1]} {
			if len(s) < 3 && v&(1<<(8*(3-len(s)))-1) != 0 {
				continue // shorter slices once per prefix
			}
			r, n := DecodeRune(s)
			wr, wn := utf8.DecodeRune(s)
			if r != wr || n != wn {
				t.Fatalf("DecodeRune(% x) = %U %d, want %U %d", s, r, n, wr, wn)
			}
			if r, n := DecodeRuneInString(string(s)); r != wr || n != wn {
				t.Fatalf("DecodeRuneInString(% x) = %U %d, want %U %d", s, r, n, wr, wn)
			}
		}
	}
	for _, s := range []string{"", "😀", "\xf0\x9f\x98", "a😀"} {
		r, n := DecodeRuneInString(s)
		if wr, wn := utf8.DecodeRuneInString(s); r != wr || n != wn {
			t.Errorf("DecodeRuneInString(%q) = %U %d, want %U %d", s, r, n, wr, wn)
		}
	}
}
