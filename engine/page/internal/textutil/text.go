package textutil

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// CollapseSpace trims s and folds each run of white space into one space.
func CollapseSpace(s string) string {
	return CollapseBytes(unsafe.Slice(unsafe.StringData(s), len(s))) // read, never written
}

// CollapseBytes is CollapseSpace(string(b)) in one allocation: the string is the
// buffer the text is collapsed into, which nothing else holds. Titles, headlines
// and element texts of every page parsed come here.
func CollapseBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	out := AppendCollapsed(make([]byte, 0, len(b)), b)
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// AppendCollapsed appends s to dst trimmed, each run of white space (Unicode
// spaces and NO-BREAK SPACE) folded into one space.
func AppendCollapsed(dst, s []byte) []byte {
	start := len(dst)
	space := false
	for i := 0; i < len(s); {
		// The run of characters at i that are neither white space nor invalid bytes
		// is copied at once, with the single spaces between its words: a ' ' after
		// a character of the run and before an ASCII one that is no space is what
		// the fold would write there.
		j := i
	run:
		for j < len(s) {
			if j+8 <= len(s) {
				n := plainASCII8(binary.LittleEndian.Uint64(s[j:]), j == i)
				if j += n; n == 8 {
					continue
				}
				// (the byte at j stopped the eight: it is read below)
			}
			switch asciiClass[s[j]] {
			case asciiPlain:
				j++
			case asciiSpace:
				if j == i || j+1 == len(s) || asciiClass[s[j+1]] != asciiPlain {
					break run
				}
				j += 2
			case asciiOtherSpace:
				break run
			default:
				// The valid two- and three-byte characters from j that are no
				// space, read without going back to the eight-byte test (a page
				// past ASCII is most of them in a row): one is no space unless
				// its first byte is a space's (C2, E1 to E3), and of those only a
				// few are (SpaceRune).
				for j+2 < len(s) {
					c0, c1 := s[j], s[j+1]
					if c0-0xC3 <= 0xDF-0xC3 && c1&0xC0 == 0x80 {
						j += 2
						continue
					}
					if c2 := s[j+2]; c0&0xF0 == 0xE0 && c1&0xC0 == 0x80 && c2&0xC0 == 0x80 &&
						(c0 != 0xE0 || c1 >= 0xA0) && (c0 != 0xED || c1 < 0xA0) &&
						(c0-0xE1 > 0xE3-0xE1 || !SpaceRune(rune(c0&0x0F)<<12|rune(c1&0x3F)<<6|rune(c2&0x3F))) {
						j += 3
						continue
					}
					break
				}
				if j == len(s) || s[j] < utf8.RuneSelf {
					continue
				}
				r, n := DecodeRune(s[j:])
				if SpaceRune(r) || r == utf8.RuneError && n == 1 {
					break run
				}
				j += n
			}
		}
		if j > i {
			if space {
				dst = append(dst, ' ')
				space = false
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = DecodeRune(s[i:])
		}
		i += n
		if r < utf8.RuneSelf || SpaceRune(r) {
			space = len(dst) > start
			continue
		}
		if space {
			dst = append(dst, ' ')
			space = false
		}
		dst = utf8.AppendRune(dst, r) // an invalid byte reads as U+FFFD
	}
	return dst
}

// plainASCII8 is how many of eight bytes of a run (little-endian in x, the run's
// first when first) are copied as they are, from the first: ASCII that is no
// white space, and single spaces followed by such a byte within the eight (the
// byte after them is not read). Most of an English paragraph goes eight bytes a
// step so. Below 0x80, adding a byte's worth sets a byte's high bit without
// carrying into the next: x + (0x80-'!') has it from '!' up, (x ^ ' ') + 0x7F
// everywhere but at a space.
func plainASCII8(x uint64, first bool) int {
	const low, high = 0x0101010101010101, 0x8080808080808080
	ascii := ^x & high
	x &^= high // each byte below 0x80: the sums below carry into no other
	plain := (x + (0x80-'!')*low) & ascii
	space := ^(x ^ ' '*low + 0x7F*low) & ascii
	other := high &^ plain // white space, a control byte or a byte past ASCII
	stop := other&^space | space&(other>>8) | space&(0x80<<56)
	if first {
		stop |= space & 0x80 // a space opening the run
	}
	return bits.TrailingZeros64(stop) >> 3 // 8 when nothing stops the run
}

// Byte classes of AppendCollapsed.
const (
	asciiPlain      uint8 = iota // an ASCII character that is no white space
	asciiSpace                   // ' '
	asciiOtherSpace              // the other ASCII white space (ASCIISpace)
	nonASCII                     // a byte of a multi-byte character, or invalid
)

// asciiClass is the class of each byte.
var asciiClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = nonASCII
		case c == ' ':
			t[c] = asciiSpace
		case ASCIISpace(byte(c)):
			t[c] = asciiOtherSpace
		}
	}
	return t
}()

// SpaceRune is unicode.IsSpace for runes above ASCII (NO-BREAK SPACE among them),
// without its table walk: the Unicode White_Space runes are these few.
func SpaceRune(r rune) bool {
	switch r {
	case 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// ASCIISpace reports the ASCII white space CollapseSpace folds.
func ASCIISpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// ClipBytes cuts s to at most n bytes, at a character boundary.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// LowerASCII appends b lower-cased (ASCII letters) to dst.
func LowerASCII(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
