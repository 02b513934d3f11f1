package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// A crawl from the home pages of real sites stores what their real feeds and
// sitemaps list: one document of each kind, encoding and Content-Type of the
// real-world corpus, served on loopback as their sites serve them (text/plain,
// octet-stream and text/html labels, GB2312, windows-1251 and Shift_JIS, image
// sitemaps, text sitemaps, relative links). The goals: at least 99% of the
// listed URLs stored, no document that gave the crawl nothing.
func TestRealFeedsPartIsFound(t *testing.T) {
	t.Parallel() // its own sandbox and temporary store; it waits on the crawl running dry
	dir := filepath.Join("..", realCorpusDefault)
	if realCorpusMissing(dir) {
		t.Skipf("the real-world corpus is not in this checkout (%s/MANIFEST.tsv is missing): nothing to crawl", dir)
	}
	docs, err := sandbox.LoadRealCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	part := realPart(docs)
	// The crawl ends when it runs dry (a few seconds on a quiet box); the limit only
	// bounds a crawl that never does, so that a loaded box's slowness decides nothing.
	r, err := realCrawl(dir, part, 8, enginetest.CrawlPatience)
	if err != nil {
		t.Fatal(err)
	}
	if !r.idle {
		t.Errorf("the crawl of %d documents did not run dry in %v", len(part), enginetest.CrawlPatience)
	}
	listed, stored := r.totals()
	lost := r.lost()
	if r.foundShare() >= realGoalFound && len(lost) == 0 {
		return
	}
	var b strings.Builder
	lines := 0
	line := func(s string) {
		if lines++; lines <= 60 {
			b.WriteString("\n  " + s)
		}
	}
	for _, d := range lost {
		line("lost " + d.doc.File + " (" + d.doc.Kind + ", " + d.doc.Encoding + ", " + d.doc.ContentType + "): " + d.why)
	}
	for _, d := range r.docs {
		for _, m := range d.misses {
			line("not stored " + m.url + " of " + d.doc.File + ": " + m.why)
		}
	}
	if lines > 60 {
		fmt.Fprintf(&b, "\n  ... and %d more (go run ./bench realfeeds -part -trace)", lines-60)
	}
	t.Errorf("%d documents: found_share %.4f (%d of %d listed URLs stored, goal ≥ %.2f), documents_lost %d (goal 0):%s",
		len(part), r.foundShare(), stored, listed, realGoalFound, len(lost), b.String())
}
