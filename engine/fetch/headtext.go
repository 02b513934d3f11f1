package fetch

import (
	"net/http"
	"slices"
	"strings"
)

// The stored form of a response's or request's header fields: what an export, a
// log or `show` writes out, with the fields that carry credentials redacted.

// Redacted replaces the value of a header field that carries credentials.
const Redacted = "[redacted]"

// RedactHeader reports whether a header field carries credentials or session state
// that must never be written out (an export, a log): cookies (RFC 6265) and
// credentials for the server or a proxy (RFC 9110 §11.6). It is the one list every
// writer of stored headers uses.
func RedactHeader(name string) bool {
	// What http.CanonicalHeaderKey(name) equal to one of them means, without
	// canonicalizing every field of every response: the same letters and dashes
	// in any case (a name with any other byte is left as it is by the
	// canonicalization, and so equals none of them).
	for _, r := range redactedNames {
		if len(name) == len(r) && asciiEqualFold(name, r) {
			return true
		}
	}
	return false
}

var redactedNames = [...]string{"Cookie", "Set-Cookie", "Set-Cookie2", "Authorization", "Proxy-Authorization"}

// asciiEqualFold says a and b (of one length) are equal but for the case of ASCII
// letters.
func asciiEqualFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// HeadText is h in wire form ("Name: value" CRLF per field, sorted by name), the
// values of RedactHeader fields replaced by Redacted.
func HeadText(h http.Header) string {
	var room [32]string // a response's fields, mostly: the names sorted without an allocation
	keys := room[:0]
	n := 0
	for k, vs := range h {
		keys = append(keys, k)
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n)
	for _, k := range keys {
		redact := RedactHeader(k)
		for _, v := range h[k] {
			if redact {
				v = Redacted
			}
			// A field value cannot hold CR or LF on the wire; net/http's parser
			// never yields them, but the text must stay one field per line.
			if strings.IndexByte(v, '\r') >= 0 || strings.IndexByte(v, '\n') >= 0 {
				v = strings.Map(func(r rune) rune {
					if r == '\r' || r == '\n' {
						return ' '
					}
					return r
				}, v)
			}
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteString("\r\n")
		}
	}
	return b.String()
}
