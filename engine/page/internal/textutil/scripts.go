package textutil

import "unicode"

// UnspacedScript reports whether r belongs to a script written without spaces
// between words (Han, Hiragana, Katakana, Hangul, and Thai, Lao, Khmer, Myanmar),
// by the Unicode tables; engine/page keeps its answers for the Basic Multilingual
// Plane in a table.
func UnspacedScript(r rune) bool {
	switch {
	case r < 0x0E00:
		return false
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3040 && r <= 0x30FF, r >= 0xAC00 && r <= 0xD7A3:
		return true // the common CJK ideographs, kana and Hangul syllables, without a table walk
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}
