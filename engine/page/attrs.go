package page

import (
	"bytes"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/htmltoken"
)

// The tokenizer's TagAttr copies each key and value twice (a NUL replacement that
// copies even when there is no NUL, then the unescaping), two allocations an
// attribute on every tag the tree or a sink reads. Most tags hold nothing those
// copies are for: no '&' to unescape, no NUL, no '\r' to fold, no upper-case key to
// lower. Their attributes are read here from the tag's raw bytes, which the
// tokenizer leaves as they came, by the tokenizer's own rules (readTag,
// readTagAttrKey, readTagAttrVal in golang.org/x/net/html): the same keys and
// values, empty values nil as TagAttr gives them (TestRawAttrsAreTagAttrs). Any
// other tag is read with TagAttr.

// tagAttrs appends the current start tag's attributes to dst, valid until the
// tokenizer's next token.
func tagAttrs(z *htmltoken.Tokenizer, dst []Attr) []Attr {
	if out, ok := rawAttrs(z.Raw(), dst); ok {
		return out
	}
	for more := true; more; {
		var a Attr
		if a.Key, a.Val, more = z.TagAttr(); len(a.Key) == 0 {
			break
		}
		dst = append(dst, a)
	}
	return dst
}

// isTagSpace is the tokenizer's white space inside a tag.
func isTagSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

// rawAttrs appends the attributes of the start tag raw ("<name ...>", ended by its
// '>') to dst, slices of raw; ok is false, and dst as it was, for a tag that needs
// TagAttr's copies.
func rawAttrs(raw []byte, dst []Attr) (_ []Attr, ok bool) {
	if bytes.IndexByte(raw, '&') >= 0 || bytes.IndexByte(raw, 0) >= 0 || bytes.IndexByte(raw, '\r') >= 0 {
		return dst, false
	}
	start, n := len(dst), len(raw)
	fail := func() ([]Attr, bool) {
		clear(dst[start:])
		return dst[:start], false
	}
	skipSpace := func(i int) int {
		for i < n && isTagSpace(raw[i]) {
			i++
		}
		return i
	}
	// The name: from after "<" up to white space (read), '/' or '>' (not read).
	i := 1
	for ; i < n; i++ {
		if c := raw[i]; isTagSpace(c) {
			i++
			break
		} else if c == '/' || c == '>' {
			break
		}
	}
	for i = skipSpace(i); ; i = skipSpace(i) {
		if i >= n {
			return fail() // no '>': not a tag the tokenizer returned
		}
		if raw[i] == '>' {
			return dst, true
		}
		// The key: up to white space, '/', '>' or an '=' that is not its first byte.
		ks := i
		for ; i < n; i++ {
			c := raw[i]
			if c == '=' && i == ks {
				continue
			}
			if c == '=' || isTagSpace(c) || c == '/' || c == '>' {
				break
			}
			if 'A' <= c && c <= 'Z' {
				return fail() // TagAttr lowers it in a copy
			}
		}
		ke := i
		// The value: after white space, '=' and white space, quoted or up to white
		// space or '>'. A '/' there ends the attribute, read.
		vs, ve := i, i
		if i = skipSpace(i); i >= n {
			return fail()
		}
		switch c := raw[i]; {
		case c == '/':
			i++
		case c == '=':
			if i = skipSpace(i + 1); i >= n {
				return fail()
			}
			switch q := raw[i]; q {
			case '>':
			case '\'', '"':
				j := bytes.IndexByte(raw[i+1:], q)
				if j < 0 {
					return fail()
				}
				vs, ve = i+1, i+1+j
				i = ve + 1
			default:
				vs = i
				for i++; i < n && !isTagSpace(raw[i]) && raw[i] != '>'; i++ {
				}
				ve = i
				if i < n && raw[i] != '>' {
					i++ // the white space after the value is read with it
				}
			}
		}
		if ke == ks || seenKey(dst[start:], raw[ks:ke]) {
			continue // no name, or a repeat: the tokenizer keeps the first
		}
		a := Attr{Key: raw[ks:ke:ke]}
		if ve > vs {
			a.Val = raw[vs:ve:ve]
		}
		dst = append(dst, a)
	}
}

// seenKey reports whether attrs hold key.
func seenKey(attrs []Attr, key []byte) bool {
	for _, a := range attrs {
		if bytes.Equal(a.Key, key) {
			return true
		}
	}
	return false
}
