package front

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/store"
)

// pageMeta is a fetched page's metadata (engine/page Metadata) from the parse that
// found its links: a worker's result carries it, one process reads it from the
// fetcher's parse. at bounds plausible dates (a page's date after it is an error).
func pageMeta(t frontier.Task, res *fetch.Result, at time.Time) page.Metadata {
	if res.Signed != nil {
		if res.Signed.Meta != nil {
			return *res.Signed.Meta
		}
		return page.Metadata{}
	}
	m, _ := parsedMeta(t, res, at)
	return m
}

// ParsedMeta reads the metadata of a 2xx page from the fetcher's parse; nil when
// there is no parse or nothing in it.
func ParsedMeta(t frontier.Task, res *fetch.Result, at time.Time) *page.Metadata {
	if m, ok := parsedMeta(t, res, at); ok {
		return &m
	}
	return nil
}

// parsedMeta is ParsedMeta as a value, zero and false for its nil: a page stored in
// this process needs no copy of its metadata on the heap.
func parsedMeta(t frontier.Task, res *fetch.Result, at time.Time) (page.Metadata, bool) {
	if res.Parsed == nil || res.Status/100 != 2 {
		return page.Metadata{}, false
	}
	u := res.FinalURL
	if u == "" {
		u = t.URL
	}
	m := res.Parsed.Meta(u, at)
	if metaEmpty(m) {
		return page.Metadata{}, false
	}
	return m, true
}

// metaEmpty reports whether a page gave no metadata the store keeps (storeMeta's
// nil), without formatting its dates into a row first.
func metaEmpty(m page.Metadata) bool {
	return m.Published.IsZero() && m.Modified.IsZero() && m.Headline.Value == "" && len(m.Authors) == 0 &&
		m.Language.Value == "" && m.Canonical.Value == ""
}

// storeMeta is the store's row of a page's metadata; nil when the page gave none.
func storeMeta(m page.Metadata) *store.PageMeta {
	if metaEmpty(m) {
		return nil
	}
	return &store.PageMeta{
		Published: m.Published.String(), PublishedFrom: string(m.Published.From), PublishedAt: m.Published.Time,
		Modified: m.Modified.String(), ModifiedFrom: string(m.Modified.From),
		Headline: m.Headline.Value, HeadlineFrom: string(m.Headline.From),
		Authors: m.Authors, AuthorsFrom: string(m.AuthorsFrom),
		Language: m.Language.Value, LanguageFrom: string(m.Language.From),
		Canonical: m.Canonical.Value, CanonicalFrom: string(m.Canonical.From),
	}
}
