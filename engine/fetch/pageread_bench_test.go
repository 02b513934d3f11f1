package fetch

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// BenchmarkReadPage is what a fetched page costs once its body is in: its links and
// its change signature, over the sandbox's pages (the throughput bench's load), read
// in one pass (readPage) and, as a baseline, in two. Each body is made new (a number
// in its headline) so that revisit's cache of recent texts does not answer: a crawl
// meets each page once.
func BenchmarkReadPage(b *testing.B) {
	pages := sandboxPages(b, 3000, false)
	var buf []byte
	n := 0 // never repeats across runs
	fresh := func(i int) testPage {
		p := pages[i%len(pages)]
		n++
		buf = append(buf[:0], p.body...)
		if j := bytes.Index(buf, []byte("<h1>")); j >= 0 {
			buf = append(append(buf[:j+4], strconv.Itoa(n)+" "...), p.body[j+4:]...)
		}
		p.body = buf
		return p
	}
	b.Run("one-pass", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p := fresh(i)
			_, parsed := readPage(p.body, p.contentType, "crawlconsole")
			parsed.Sign(p.body, p.contentType)
		}
	})
	b.Run("two-pass", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p := fresh(i)
			extractLinks(p.body, "crawlconsole")
			page.Sign(p.body, p.contentType)
		}
	})
}
