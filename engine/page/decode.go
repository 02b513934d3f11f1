package page

import "unicode/utf8"

// decodeRune is utf8.DecodeRuneInString(s[i:]) for a rune that is not ASCII (s[i]
// >= utf8.RuneSelf), with the two- and three-byte forms (Cyrillic, Greek, Arabic,
// CJK, Hangul, ...) decoded here: the standard library's decoder is out of line
// and general, about fifty instructions a rune, and the text walks of Sign read
// every rune of a page's main text several times. Same rune and size for any
// input (TestDecodeRune).
func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c >= 0xC2 && c < 0xF0 && i+1 < len(s) {
		c1 := s[i+1]
		if c < 0xE0 {
			if c1&0xC0 == 0x80 {
				return rune(c&0x1F)<<6 | rune(c1&0x3F), 2
			}
		} else if i+2 < len(s) {
			// E0 needs c1 >= A0 (r >= 0x800: no overlong form), ED c1 < A0 (no
			// surrogate): both read as bounds on r.
			c2 := s[i+2]
			r := rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F)
			if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
				return r, 3
			}
		}
	}
	return utf8.DecodeRuneInString(s[i:])
}
