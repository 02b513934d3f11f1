package export_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestJSONLFeedsAndSitemapsAreNoArticles: the feeds and sitemaps a crawl stored (as
// discovery fetched them, here three feeds and three sitemaps of two real sites, with
// their servers' Content-Types) are exported with their title but no text, story or
// publication date: read as HTML pages, their markup was their text, their build
// date a publication date, and each site's documents, alike in their markup, made
// one "story" in the export of the real-feed corpus. An article beside them keeps
// its story.
func TestJSONLFeedsAndSitemapsAreNoArticles(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	corpus := filepath.Join("..", "discover", "testdata", "realworld")
	// Each with the Content-Type the corpus' manifest gives it, one as text/html.
	types := map[string]string{
		"feeds/hugegraph-blog-index.xml": "text/xml", "feeds/hugegraph-blog-news-index.xml": "application/rss+xml",
		"feeds/hugegraph-blog-releases-index.xml":            "text/plain",
		"sitemaps/rbsitemaps-termscout-industry-sitemap.xml": "application/xml", "sitemaps/rbsitemaps-termscout-page-sitemap.xml": "text/xml",
		"sitemaps/hugegraph-en-sitemap.xml": "text/html",
		// A text sitemap, and feeds that start with a long comment.
		"sitemaps/saop-sitemap.txt": "text/plain", "sitemaps/tbltools-sitemap.txt": "text/plain",
		"feeds/chardet-weblabor.hu.xml": "application/rss+xml", "feeds/chardet-weblabor.hu.2.xml": "application/xml",
	}
	docs := slices.Sorted(maps.Keys(types))
	path := filepath.Join(t.TempDir(), "crawl.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		body, err := os.ReadFile(filepath.Join(corpus, d))
		if err != nil {
			t.Fatal(err)
		}
		st.SavePage(store.Page{URL: "http://a.test/" + d, FetchedAt: at.Add(time.Duration(i) * time.Minute), Status: 200,
			ContentType: types[d], Body: body}, nil, nil)
	}
	article := "http://a.test/2026/11/01/cold-wave"
	storedPage(st, article, syndicatedPage("Wire", "Cold wave warning issued", []string{
		"The national weather service issued a cold wave warning on Friday, saying temperatures across the central and eastern regions would fall by more than ten degrees over the next three days.",
		"Forecasters urged residents to protect themselves against the cold, and asked road authorities to prepare for ice and snow on highways, while farmers were told to keep greenhouses warm.",
	}), at.Add(time.Hour))
	out := reopenedJSONL(t, st, path)
	lines := map[string]export.PageLine{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var l export.PageLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		lines[l.URL] = l
	}
	for _, d := range docs {
		l, ok := lines["http://a.test/"+d]
		if !ok {
			t.Fatalf("%s not exported", d)
		}
		if l.Story != "" || l.Text != "" || l.Published != "" || l.Headline != "" {
			t.Errorf("%s exported as an article: story %q, published %q, headline %q, text %.60q", d, l.Story, l.Published, l.Headline, l.Text)
		}
	}
	if l := lines["http://a.test/feeds/hugegraph-blog-index.xml"]; l.Title != "HugeGraph – Blog" {
		t.Errorf("a feed's title %q, want its channel's (HugeGraph – Blog)", l.Title)
	}
	if lines[article].Story == "" || lines[article].Text == "" {
		t.Errorf("the article lost its story or text: %+v", lines[article])
	}
}
