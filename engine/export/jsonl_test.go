package export_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestJSONLExportOfASandboxCrawl: one valid JSON object per stored page, with the
// fields a JSONL reader relies on; the main text is the one revisit fingerprints, the links
// are absolute, the Chinese site's text is there, the egress is named by its name.
func TestJSONLExportOfASandboxCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls a sandbox web")
	}
	db, _ := crawlFixture(t)
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	counts, err := st.Counts()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	passes := page.TokenizerPasses()
	rep, err := export.JSONL(st, &out, export.JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Links, main text and title of a stored page come from one tokenizer pass.
	if n := page.TokenizerPasses() - passes; int64(n) != counts.Pages {
		t.Errorf("%d tokenizer passes for %d pages, want one a page", n, counts.Pages)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 16<<20)
	n, han, withLinks, withMeta := 0, 0, 0, 0
	for sc.Scan() {
		line := sc.Bytes()
		if !utf8.Valid(line) {
			t.Errorf("line %d is not UTF-8", n)
		}
		var raw map[string]any
		if err := json.Unmarshal(line, &raw); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		for _, k := range []string{"url", "final_url", "status", "fetched_at", "content_type", "title", "text",
			"links", "simhash", "story", "class", "site", "keyword", "node", "egress",
			"published", "modified", "headline", "authors", "language", "canonical", "meta_from"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("line %d has no %q", n, k)
			}
		}
		var l export.PageLine
		json.Unmarshal(line, &l)
		n++
		if _, err := time.Parse(time.RFC3339, l.FetchedAt); err != nil {
			t.Errorf("%s: fetched_at %q: %v", l.URL, l.FetchedAt, err)
		}
		if l.Egress != "rec" || strings.Contains(l.Egress, "127.0.0.1") {
			t.Errorf("%s: egress %q, want its name", l.URL, l.Egress)
		}
		p, err := st.Page(l.URL)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := page.PageText(p.Body, p.ContentType); l.Text != strings.ToValidUTF8(want, "\uFFFD") {
			t.Errorf("%s: text is not revisit's main text:\n%q\nwant\n%q", l.URL, l.Text, want)
		}
		if l.Status == 200 && l.Class == "" {
			t.Errorf("%s: no class", l.URL)
		}
		for _, link := range l.Links {
			if !strings.HasPrefix(link, "http://") {
				t.Errorf("%s: link %q is not absolute", l.URL, link)
			}
		}
		if len(l.Links) > 0 {
			withLinks++
		}
		// The metadata the crawl stored is the one the export reads from the body,
		// each field with its source.
		if m, err := st.PageMeta(l.URL); err != nil {
			t.Fatal(err)
		} else if m != nil {
			withMeta++
			if m.Published != l.Published || m.Headline != l.Headline || m.Language != l.Language ||
				m.LanguageFrom != l.MetaFrom["language"] || m.PublishedFrom != l.MetaFrom["published"] {
				t.Errorf("%s: stored metadata %+v, exported %q %q %q from %v", l.URL, m, l.Published, l.Headline, l.Language, l.MetaFrom)
			}
		}
		if l.Status == 200 && strings.Contains(l.ContentType, "html") && (l.Headline == "" || l.Language == "" || l.MetaFrom["language"] == "") {
			t.Errorf("%s: headline %q, language %q (from %q): want both from the page's <h1> and lang", l.URL, l.Headline, l.Language, l.MetaFrom["language"])
		}
		if strings.ContainsFunc(l.Text, func(r rune) bool { return unicode.Is(unicode.Han, r) }) && l.Title != "" {
			han++
		}
	}
	if int64(n) != counts.Pages || rep.Pages != n || rep.Warnings != 0 {
		t.Errorf("%d lines, report %+v, store has %d pages", n, rep, counts.Pages)
	}
	if withMeta == 0 {
		t.Errorf("no page of %d has metadata in the store", n)
	}
	if han == 0 || withLinks == 0 {
		t.Errorf("%d Chinese pages with a title, %d pages with links; want some of each", han, withLinks)
	}
}
