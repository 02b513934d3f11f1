package blockpage_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/blockpage"
)

// BenchmarkJudgeOrdinaryPage is the judge's cost on the common case, an ordinary
// 30 KiB page with links and no challenge keyword: one marker pass, no text
// extraction.
func BenchmarkJudgeOrdinaryPage(b *testing.B) {
	body := []byte("<html><head><title>City news</title></head><body>" +
		strings.Repeat(`<p>The council met on Tuesday to discuss the budget. <a href="/x">more</a></p>`, 400) + "</body></html>")
	a := blockpage.Answer{URL: "http://news.test/a", Host: "news.test", Status: 200,
		Header: http.Header{"Content-Type": {"text/html"}}, Body: body, BodyLen: int64(len(body)), Links: 400}
	h := blockpage.NewHosts()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		blockpage.Judge(a, h)
	}
}
