package front

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
)

// The Sites pane's publish-to-store delay and the stored metadata take the page's
// own publication time from the fetcher's parse.
func TestPageMetaFromTheFetchersParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       time.Time
	}{
		{"open graph", `<head><meta property="article:published_time" content="2026-11-25T08:30:00Z"></head>`, time.Date(2026, 11, 25, 8, 30, 0, 0, time.UTC)},
		{"schema.org time", `<time itemprop="datePublished" datetime="2026-11-24">yesterday</time>`, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)},
		{"offset", `<meta itemprop="datePublished" content="2026-11-25T10:00:00+02:00">`, time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)},
		{"json-ld", `<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2026-11-25T09:00:00+01:00"}</script>`, time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)},
		{"none", `<html><body>no date here</body></html>`, time.Time{}},
		{"garbage date", `<meta property="article:published_time" content="last tuesday">`, time.Time{}},
	}
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := &fetch.Result{Status: 200, Parsed: page.Parse([]byte(c.body), "text/html", nil)}
			md := pageMeta(frontier.Task{URL: "https://news.example/a"}, res, now)
			if got := md.Published.Time; !got.Equal(c.want) {
				t.Errorf("published = %v, want %v", got, c.want)
			}
			// A worker's result carries the same metadata to the master.
			signed := &fetch.Result{Status: 200, Signed: &fetch.Signed{Meta: ParsedMeta(frontier.Task{URL: "https://news.example/a"}, res, now)}}
			if got := pageMeta(frontier.Task{}, signed, now).Published.Time; !got.Equal(c.want) {
				t.Errorf("from a worker: published = %v, want %v", got, c.want)
			}
		})
	}
}
