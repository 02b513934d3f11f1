package page

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkPageReaders is the page side of a crawl for one page, as a first crawl
// reads it: the tokenizer pass with the link reader, the render decision's text
// length, the metadata, the signature and the story fingerprint. The fingerprint
// cache is emptied at each round of the pages, as a first crawl's pages miss it.
// One op is one page; "sandbox" is the throughput bench's kind of page (the pins'
// snapshot), "corpus" the article extraction benchmark's real pages.
func BenchmarkPageReaders(b *testing.B) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	run := func(b *testing.B, pages []pinPage) {
		b.ReportAllocs()
		i, n := 0, 0
		cpu0 := processCPU()
		for b.Loop() {
			n++
			if i == len(pages) {
				i = 0
				recent = fingerprintCache{}
			}
			p := pages[i]
			i++
			_, parsed := Read(p.Body, p.ContentType, "crawlconsole")
			parsed.PageTextLen()
			parsed.Meta("https://example.org/a/b", now)
			if _, text, ok := parsed.Sign(p.Body, p.ContentType); ok {
				StoryFingerprint(text)
			}
		}
		// CPU time, the process's (GC included): on a shared box the wall time of an
		// op says more about the neighbours than about the code.
		b.ReportMetric(float64(processCPU()-cpu0)/float64(n), "cpu-ns/op")
	}
	b.Run("sandbox", func(b *testing.B) { run(b, readSandboxSnapshot(b)) })
	b.Run("corpus", func(b *testing.B) {
		pages := pinCorpusPages(b)
		if pages == nil {
			b.Skip("article extraction benchmark absent: set CRAWLCONSOLE_CORPUS")
		}
		run(b, pages)
	})
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
