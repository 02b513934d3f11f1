package textutil

import "unicode/utf8"

// AppendRun appends one run of an element's text to b, which holds its runs before
// it, with a space between unless the two meet inside a script written without
// spaces and no line break (brk: a <br> or a block's start) comes between. Runs are
// cut by inline markup, which in Chinese or Japanese falls inside words (ruby:
// "<ruby>子<rt>こ</rt></ruby>ども" is "子ども", not "子 ども"); elsewhere a space keeps
// two adjacent links' names apart. The headline the main text starts with and the
// metadata's element texts are joined so, the same words either way.
func AppendRun[T string | []byte](b []byte, run T, brk bool) []byte {
	if len(b) > 0 && (brk || !closeUp(b, run)) {
		b = append(b, ' ')
	}
	return append(b, run...)
}

// closeUp reports whether text ending in b continues into run with no space: both
// sides in a script written without spaces, CJK punctuation or full-width forms
// (「」。、（）).
func closeUp[T string | []byte](b []byte, run T) bool {
	last, _ := utf8.DecodeLastRune(b)
	var buf [utf8.UTFMax]byte
	first, _ := utf8.DecodeRune(buf[:copy(buf[:], run)])
	return closeUpRune(last) && closeUpRune(first)
}

func closeUpRune(r rune) bool {
	return UnspacedScript(r) || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}
