package fetch

import (
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// BenchmarkReadPage is what a fetched page costs once its body is in: its links and
// its change signature, over the sandbox's pages (the throughput bench's load).
func BenchmarkReadPage(b *testing.B) {
	pages := sandboxPages(b, 2000, false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pages[i%len(pages)]
		extractLinks(p.body, "crawlconsole")
		revisit.Sign(p.body, p.contentType)
	}
}
