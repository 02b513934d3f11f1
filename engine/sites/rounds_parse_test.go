package sites

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
)

// A news page's keywords are read from the fetcher's parse of it: collecting the
// round's results does not tokenize the page a second time, and finds the keyword
// its main text holds.
func TestCollectReadsTheFetchersParse(t *testing.T) {
	para := strings.Repeat("The council voted on the harbour budget after a long debate. ", 6)
	body := []byte(`<html><head><title>Harbour</title></head><body><article><h1>Harbour budget</h1><p>` +
		para + `</p><p>` + para + `</p></article></body></html>`)
	const ct = "text/html; charset=utf-8"
	_, parsed := page.Read(body, ct, "")
	res := &fetch.Result{Status: 200, Header: http.Header{"Content-Type": {ct}}, Body: body, Parsed: parsed}
	site := config.SiteOptions{Name: "herald", Kind: config.SiteNews, Entry: "https://herald.example/", Keywords: []string{"harbour"}}
	book := New([]config.SiteOptions{site}, nil, nil)
	r := NewRounds(nil)
	task := frontier.Task{URL: "https://herald.example/a/1", Host: "herald.example"}
	before := page.TokenizerPasses()
	r.Collect(book, book.Named("herald"), task, res, time.Time{}, time.Now())
	if n := page.TokenizerPasses() - before; n != 0 {
		t.Errorf("collecting the page tokenized it %d more times, want none (the fetcher's parse has its text)", n)
	}
	_, flat, _ := r.End(time.Now())
	if len(flat) != 1 || flat[0].Keyword != "harbour" || flat[0].Kind != ResultNews {
		t.Fatalf("results %+v, want one news result for harbour", flat)
	}
}
