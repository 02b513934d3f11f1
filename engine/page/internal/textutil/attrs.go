package textutil

import "strings"

// Attr is one attribute of a start tag as golang.org/x/net/html's tokenizer gives
// it: the key lower-cased, the value unescaped. Both are valid only while the
// tokenizer is on that tag.
type Attr struct{ Key, Val []byte }

// FirstAttr returns the first attribute of that name, trimmed.
func FirstAttr(attrs []Attr, name string) (string, bool) {
	for _, a := range attrs {
		if string(a.Key) == name {
			return strings.TrimSpace(string(a.Val)), true
		}
	}
	return "", false
}

// LinkAttrs reads a <link>'s href, type and rel (the last of each, untrimmed).
func LinkAttrs(attrs []Attr) (href, typ, rel string) {
	for _, a := range attrs {
		switch string(a.Key) {
		case "href":
			href = string(a.Val)
		case "type":
			typ = string(a.Val)
		case "rel":
			rel = string(a.Val)
		}
	}
	return
}

// HasToken reports whether a space-separated list (a rel attribute) holds tok, in
// any case.
func HasToken(list, tok string) bool {
	for f := range strings.FieldsSeq(list) { // Fields' words, without their slice
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}
