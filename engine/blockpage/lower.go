package blockpage

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// The judge runs on every page fetched, and lowering its first 8 KiB with
// bytes.ToLower allocated a fresh copy each time: a tenth of a crawl's judge CPU was
// that allocation and its garbage. The copy is now written into a pooled buffer.

// lowerBufs recycles the lower-cased copies of scanned bodies (at most scanMax bytes,
// a little more when lowering lengthens a rune).
var lowerBufs = sync.Pool{New: func() any { b := make([]byte, 0, scanMax+64); return &b }}

// appendLower appends the lower-case form of s to dst, exactly as bytes.ToLower
// forms it: ASCII bytes directly, other runes through unicode.ToLower, and an
// invalid byte as U+FFFD (bytes.Map's rule), so markers match as before.
func appendLower(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += n
	}
	return dst
}
