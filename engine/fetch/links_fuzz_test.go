package fetch

import (
	"strings"
	"testing"
)

// FuzzExtractLinks: any body (broken HTML, binary, invalid UTF-8) gives links or none,
// never a panic, and every link is a value of an href the body holds.
func FuzzExtractLinks(f *testing.F) {
	for _, s := range []string{`<html><head><base href="/d/"><link rel=canonical href="/c"></head><a href="a">x</a><area href=/m>`,
		`<a href="javascript:x">`, `<a href='unterminated`, "\x00\xff\xfe<a href=x>", `<svg><a href="s"/></svg>`,
		strings.Repeat("<div>", 10000), `<a href="` + strings.Repeat("x", 100000) + `">`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p := extractLinks(body, "crawlconsole")
		if n := len(p.links) + len(p.nofollow); n > len(body) {
			t.Fatalf("%d links from %d bytes", n, len(body))
		}
	})
}
