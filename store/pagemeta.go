package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// PageMeta is a stored page's metadata (columns of its pages row): what engine/page's
// Metadata read from the page, as text, each field beside its source tag. Meanings
// belong to engine/page; the store keeps them.
type PageMeta struct {
	Published, PublishedFrom string    // as precisely as the page gave it: 2024-03-05, ...T10:20:00, ...T10:20:00+01:00
	PublishedAt              time.Time // the publication instant (zero: none)
	Modified, ModifiedFrom   string
	Headline, HeadlineFrom   string
	Authors                  []string
	AuthorsFrom              string
	Language, LanguageFrom   string
	Canonical, CanonicalFrom string
}

// empty reports whether there is nothing to store.
func (m *PageMeta) empty() bool {
	return m.Published == "" && m.Modified == "" && m.Headline == "" && len(m.Authors) == 0 &&
		m.Language == "" && m.Canonical == ""
}

// pageMetaColumns are the metadata columns of a pages row, in metaArgs' order.
const pageMetaColumns = `published, published_from, published_at, modified, modified_from,
	headline, headline_from, authors, authors_from, language, language_from, canonical, canonical_from`

// pageMetaValues are pageMetaColumns' parameters, ?16 to ?28 (after pageValues').
var pageMetaValues = params(16, 13)

// pageMetaUpdates is what a replaced page sets: the new copy's metadata, empty when
// it has none (the old copy's does not stay).
const pageMetaUpdates = `published = excluded.published, published_from = excluded.published_from,
	published_at = excluded.published_at, modified = excluded.modified, modified_from = excluded.modified_from,
	headline = excluded.headline, headline_from = excluded.headline_from, authors = excluded.authors,
	authors_from = excluded.authors_from, language = excluded.language, language_from = excluded.language_from,
	canonical = excluded.canonical, canonical_from = excluded.canonical_from`

// appendMetaArgs appends m's values for pageMetaColumns; nil or empty metadata is
// stored as empty columns.
func appendMetaArgs(args []any, m *PageMeta) []any {
	if m == nil || m.empty() {
		return append(args, "", "", int64(0), "", "", "", "", "", "", "", "", "", "")
	}
	var at int64
	if !m.PublishedAt.IsZero() {
		at = m.PublishedAt.UnixNano()
	}
	return append(args, m.Published, m.PublishedFrom, at, m.Modified, m.ModifiedFrom, m.Headline,
		m.HeadlineFrom, strings.Join(m.Authors, "\n"), m.AuthorsFrom, m.Language, m.LanguageFrom,
		m.Canonical, m.CanonicalFrom)
}

// PageMeta returns url's stored metadata, or nil (no error) when none was kept (a
// page without any, or one stored by a crawlconsole before metadata).
func (s *Store) PageMeta(url string) (*PageMeta, error) {
	var m PageMeta
	var at int64
	var authors string
	err := s.rdb.QueryRowContext(context.Background(), `SELECT published, published_from, published_at,
		modified, modified_from, headline, headline_from, authors, authors_from, language, language_from,
		canonical, canonical_from FROM pages WHERE id = (SELECT page FROM urls WHERE url = ?)`, url).Scan(&m.Published, &m.PublishedFrom, &at,
		&m.Modified, &m.ModifiedFrom, &m.Headline, &m.HeadlineFrom, &authors, &m.AuthorsFrom,
		&m.Language, &m.LanguageFrom, &m.Canonical, &m.CanonicalFrom)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.readErr(err)
	}
	if authors == "" && m.empty() {
		return nil, nil // a page stored without metadata
	}
	if at != 0 {
		m.PublishedAt = time.Unix(0, at).UTC()
	}
	if authors != "" {
		m.Authors = strings.Split(authors, "\n")
	}
	return &m, nil
}
