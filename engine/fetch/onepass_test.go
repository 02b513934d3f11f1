package fetch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/blockpage"
	"github.com/crawlconsole/crawlconsole/engine/page"
)

// TestOnePassPerFetchedPage: every reader of a fetched HTML page — its links and
// directives, its <link rel=alternate> feeds for discovery, the block-page judge's
// main text, the change signature — takes what it needs from one tokenizer pass over
// it, whether the page is UTF-8, in another encoding, undecodable, a challenge page
// the judge weighs, or an error page. Reading them apart tokenized a page in another
// encoding twice (links from the raw bytes, text from the decoded ones) and a page
// the judge weighed twice (the judge extracted its text again).
func TestOnePassPerFetchedPage(t *testing.T) {
	para := strings.Repeat("A paragraph of the article, long enough to be scored as one. ", 6)
	article := `<html><head><title>t</title><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head>` +
		`<body><article><h1>Headline</h1><p>` + para + `<a href="/next">next</a></p><p>` + para + `</p></article></body></html>`
	challenge := `<html><head><title>Just a moment...</title></head><body><p>Please verify you are human.</p><a href="/next">help</a></body></html>`
	pages := map[string]struct {
		status int
		ct     string
		body   string
		feeds  int
		block  bool
	}{
		"/utf8":      {200, "text/html; charset=utf-8", article, 1, false},
		"/cp1251":    {200, "text/html; charset=windows-1251", strings.Replace(article, "Headline", "\xcf\xf0\xe8\xe2\xe5\xf2", 1), 1, false},
		"/undecoded": {200, "text/html", "<p>" + strings.Repeat("\xc4\xe3\xba\xc3", 50) + `</p><a href="/next">x</a>`, 0, false},
		"/challenge": {200, "text/html; charset=utf-8", challenge, 0, true},
		"/gone":      {404, "text/html; charset=utf-8", challenge, 0, false},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := pages[r.URL.Path]
		w.Header().Set("Content-Type", p.ct)
		w.WriteHeader(p.status)
		fmt.Fprint(w, p.body)
	}))
	defer srv.Close()
	cfg := Config{UserAgent: "crawlconsole-test", ConnectTimeout: 2 * time.Second, RequestTimeout: 5 * time.Second,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}, KeepParse: true}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	for path, want := range pages {
		t.Run(path, func(t *testing.T) {
			before := page.TokenizerPasses()
			res, err := f.Fetch(srv.URL+path, nil)
			if err != nil || res.Status != want.status {
				t.Fatalf("fetch: %v, status %d", err, res.Status)
			}
			if len(res.Links) != 1 || res.Links[0] != "/next" || len(res.Feeds) != want.feeds {
				t.Fatalf("links %q, feeds %q; want [/next] and %d feed", res.Links, res.Feeds, want.feeds)
			}
			// The engine's readers, in its order: the judge on every answer, then
			// the signature of a page it stores.
			a := blockpage.Answer{URL: res.FinalURL, Status: res.Status, Header: res.Header, Body: res.Body,
				BodyLen: int64(len(res.Body)), Links: len(res.Links)}
			if res.Parsed != nil {
				a.Text = res.Parsed.PageText
			}
			if v := blockpage.Judge(a, nil); v.Refusal() != want.block {
				t.Fatalf("judge: %v, want a refusal: %v", v, want.block)
			}
			if res.Status == 200 {
				res.Parsed.Sign(res.Body, res.Header.Get("Content-Type"))
			}
			if n := page.TokenizerPasses() - before; n != 1 {
				t.Fatalf("the page was tokenized %d times, want once", n)
			}
		})
	}
}
