package textutil

import (
	"unicode/utf8"
)

// CollapseSpace trims s and folds each run of white space into one space.
func CollapseSpace(s string) string {
	return string(AppendCollapsed(make([]byte, 0, len(s)), []byte(s)))
}

// AppendCollapsed appends s to dst trimmed, each run of white space (Unicode
// spaces and NO-BREAK SPACE) folded into one space.
func AppendCollapsed(dst, s []byte) []byte {
	start := len(dst)
	space := false
	for i := 0; i < len(s); {
		// The run of characters at i that are neither white space nor invalid bytes
		// is copied at once.
		j := i
		for j < len(s) {
			if c := s[j]; c < utf8.RuneSelf {
				if ASCIISpace(c) {
					break
				}
				j++
				continue
			}
			r, n := utf8.DecodeRune(s[j:])
			if SpaceRune(r) || r == utf8.RuneError && n == 1 {
				break
			}
			j += n
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
			r, n = utf8.DecodeRune(s[i:])
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
