package fetch

import (
	"reflect"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// FuzzExtractLinks: any body (broken HTML, binary, invalid UTF-8) gives links or none,
// never a panic, and every link is a value of an href the body holds; read in the
// page model's pass (readPage), it gives what the scan before it gave over the bytes
// that pass reads (linksAsRead), and the signature Sign computes from the body.
func FuzzExtractLinks(f *testing.F) {
	for _, s := range []string{`<html><head><base href="/d/"><link rel=canonical href="/c"></head><a href="a">x</a><area href=/m>`,
		`<a href="javascript:x">`, `<a href='unterminated`, "\x00\xff\xfe<a href=x>", `<svg><a href="s"/></svg>`,
		strings.Repeat("<div>", 10000), `<a href="` + strings.Repeat("x", 100000) + `">`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p := extractLinks(body, "crawlconsole")
		if n := len(p.Links) + len(p.Nofollow); n > len(body) {
			t.Fatalf("%d links from %d bytes", n, len(body))
		}
		if want := extractLinksOld(body, "crawlconsole"); !reflect.DeepEqual(p, want) {
			t.Fatalf("extractLinks %+v, the old scan %+v", p, want)
		}
		for _, ct := range []string{"text/html; charset=utf-8", ""} {
			got, parsed := readPage(body, ct, "crawlconsole")
			if want := linksAsRead(body, ct); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: readPage %+v, the old scan %+v", ct, got, want)
			}
			if ct == "" {
				continue // the signature of a sniffed type is read the same way
			}
			sig, text, ok := parsed.Sign(body, ct)
			if wantSig, wantText, wantOK := page.Sign(body, ct); sig != wantSig || text != wantText || ok != wantOK {
				t.Fatalf("%s: signature from the shared pass %+v/%v, from the body %+v/%v", ct, sig, ok, wantSig, wantOK)
			}
		}
	})
}
