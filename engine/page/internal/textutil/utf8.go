package textutil

import "unicode/utf8"

// DecodeRune is utf8.DecodeRune, with the two- and three-byte forms, all the
// letters of the Basic Multilingual Plane, read in place: utf8's own reads every
// character past ASCII in a call that costs as much again as the decoding. Text
// readers call it for each such character of a page.
func DecodeRune(b []byte) (rune, int) {
	if len(b) >= 3 {
		c0, c1, c2 := b[0], b[1], b[2]
		if c0-0xC2 <= 0xDF-0xC2 && c1&0xC0 == 0x80 {
			return rune(c0&0x1F)<<6 | rune(c1&0x3F), 2
		}
		if c0&0xF0 == 0xE0 && c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && (c0 != 0xE0 || c1 >= 0xA0) && (c0 != 0xED || c1 < 0xA0) {
			return rune(c0&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F), 3
		}
	}
	return utf8.DecodeRune(b)
}

// DecodeRuneInString is DecodeRune of a string (utf8.DecodeRuneInString).
func DecodeRuneInString(s string) (rune, int) {
	if len(s) >= 3 {
		c0, c1, c2 := s[0], s[1], s[2]
		if c0-0xC2 <= 0xDF-0xC2 && c1&0xC0 == 0x80 {
			return rune(c0&0x1F)<<6 | rune(c1&0x3F), 2
		}
		if c0&0xF0 == 0xE0 && c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && (c0 != 0xE0 || c1 >= 0xA0) && (c0 != 0xED || c1 < 0xA0) {
			return rune(c0&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F), 3
		}
	}
	return utf8.DecodeRuneInString(s)
}
