package page

import (
	"testing"
	"time"
)

// FuzzMeta: any body's metadata is read without a crash, its dates are plausible
// (1990 to a day after now) and its lists bounded.
func FuzzMeta(f *testing.F) {
	for _, s := range []string{
		article(`<script type="application/ld+json">{"@graph":[{"@type":"NewsArticle","datePublished":"2024-03-05","author":[{"name":"A"}]}]}</script>`, ""),
		`<html lang="ja"><h1>見出し</h1><div class="date">令和6年3月5日 10時20分</div><time datetime="2024-03-05T10:20:00+09:00">`,
		`<script type="application/ld+json">{"datePublished": "2024-03-05",}</script><script>x={"createdAt":"2021-01-01"}</script>`,
		`<meta property="article:published_time" content="Tue, 05 Mar 2024 10:20:30 GMT+2"><p>March 5th, 2024 9:05 a.m. PST</p>`,
		`<a rel="author" href="/a">By Ana Ruiz and Tom Li</a><link rel=canonical href="//x/2024/3/5/y">`,
	} {
		f.Add([]byte(s), "https://example.com/2024/03/05/x")
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	minDate := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC) // the metadata's earliest plausible date
	const maxAuthors = 10                                  // the most authors it reads
	f.Fuzz(func(t *testing.T, body []byte, pageURL string) {
		md := Parse(body, "text/html", nil).Meta(pageURL, now)
		for _, d := range []Date{md.Published, md.Modified} {
			if !d.IsZero() && (d.Time.Before(minDate) || d.Time.After(now.Add(24*time.Hour))) {
				t.Fatalf("implausible date %s from %s", d, d.From)
			}
			if !d.IsZero() {
				if back, ok := ParseDate(d.String(), d.From); !ok || back.String() != d.String() {
					t.Fatalf("date %q does not read back (%v)", d.String(), back)
				}
			}
		}
		if len(md.Authors) > maxAuthors || len(md.Headline.Value) > 4096 {
			t.Fatalf("%d authors, headline of %d bytes", len(md.Authors), len(md.Headline.Value))
		}
	})
}
