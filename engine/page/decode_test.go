package page

import (
	"testing"
	"unicode/utf8"
)

// TestDecodeRune: every lead byte that is not ASCII, with every one or two bytes
// after it (then a third, or nothing), decodes as the standard library decodes it.
func TestDecodeRune(t *testing.T) {
	buf := make([]byte, 0, 8)
	for lead := utf8.RuneSelf; lead < 256; lead++ {
		for c1 := -1; c1 < 256; c1++ {
			for c2 := -1; c2 < 256; c2++ {
				if c1 < 0 && c2 >= 0 {
					continue
				}
				buf = append(buf[:0], 'x', byte(lead))
				if c1 >= 0 {
					buf = append(buf, byte(c1))
				}
				if c2 >= 0 {
					buf = append(buf, byte(c2))
				}
				for _, tail := range []string{"", "\x80", "a"} {
					s := string(append(buf, tail...))
					r, n := decodeRune(s, 1)
					wr, wn := utf8.DecodeRuneInString(s[1:])
					if r != wr || n != wn {
						t.Fatalf("% x: %U %d, utf8 %U %d", s[1:], r, n, wr, wn)
					}
				}
			}
		}
	}
}
