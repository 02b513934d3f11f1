package store

import (
	"strings"
	"testing"
	"time"
)

func TestPageMetaKeptWithThePageAndOlderStoresRead(t *testing.T) {
	s, path := openTemp(t, Options{})
	pub := time.Date(2024, 3, 5, 9, 30, 0, 0, time.FixedZone("", 3600))
	meta := &PageMeta{Published: "2024-03-05T09:30:00+01:00", PublishedFrom: "json-ld datePublished", PublishedAt: pub,
		Headline: "Flood waters recede", HeadlineFrom: "h1", Authors: []string{"Ana Ruiz", "Tom Li"}, AuthorsFrom: "json-ld author",
		Language: "en", LanguageFrom: "lang attribute", Canonical: "https://news.example/flood", CanonicalFrom: "link canonical"}
	s.SavePage(Page{URL: "https://news.example/flood", FetchedAt: time.Now(), Status: 200, Body: []byte("<h1>x</h1>"), Meta: meta}, nil, nil)
	s.SavePage(Page{URL: "https://news.example/plain", FetchedAt: time.Now(), Status: 200, Body: []byte("x")}, nil, nil)
	mustFlush(t, s)
	got, err := s.PageMeta("https://news.example/flood")
	if err != nil || got == nil {
		t.Fatalf("PageMeta: %v, %v", got, err)
	}
	if got.Published != meta.Published || !got.PublishedAt.Equal(pub) || strings.Join(got.Authors, ";") != "Ana Ruiz;Tom Li" ||
		got.Headline != meta.Headline || got.LanguageFrom != "lang attribute" || got.Canonical != meta.Canonical {
		t.Errorf("PageMeta = %+v, want %+v", got, meta)
	}
	if m, err := s.PageMeta("https://news.example/plain"); m != nil || err != nil {
		t.Errorf("a page stored without metadata: %+v, %v", m, err)
	}
	// A refetch whose copy has no metadata does not keep the old copy's.
	s.ReplacePage(Page{URL: "https://news.example/flood", FetchedAt: time.Now(), Status: 200, Body: []byte("y")}, nil, nil)
	mustFlush(t, s)
	if m, _ := s.PageMeta("https://news.example/flood"); m != nil {
		t.Errorf("after a refetch without metadata: %+v", m)
	}
	s.ReplacePage(Page{URL: "https://news.example/flood", FetchedAt: time.Now(), Status: 200, Body: []byte("z"), Meta: meta}, nil, nil)
	mustFlush(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// A store written before page_meta existed (schema 8) opens, migrates, and reads
	// its pages as before, with no metadata known. (What later migrations added
	// goes too.)
	db := rawDB(t, path)
	for _, q := range []string{beforeRevisitSeq, beforeCaptureSeq, beforePageRow, beforeFold, `ALTER TABLE captures DROP COLUMN kind`, `DROP TABLE page_meta`, `PRAGMA user_version = 8`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s2 := reopen(t, path)
	if p, err := s2.Page("https://news.example/flood"); err != nil || string(p.Body) != "z" {
		t.Errorf("page of the older store: %q, %v", p.Body, err)
	}
	if m, err := s2.PageMeta("https://news.example/flood"); m != nil || err != nil {
		t.Errorf("metadata of the older store: %+v, %v", m, err)
	}
}
