-- page_meta: a stored page's metadata as its one parse read it (engine/page
-- Metadata): publication and modification dates, headline, authors, language and
-- canonical URL, each beside the place it was read from (its source tag). One row
-- per page with metadata, in its own table so that a database of an older crawl stays
-- readable: a page without a row has no metadata known.
--
-- published and modified are written as precisely as the page gave them
-- (2024-03-05, 2024-03-05T10:20:00, 2024-03-05T10:20:00+01:00); published_at is the
-- publication instant in Unix nanoseconds (UTC; the wall clock as written when the
-- page named no zone), 0 when none, for date windows and age bands. authors are
-- newline-separated.
CREATE TABLE page_meta (
    url            TEXT    NOT NULL PRIMARY KEY,
    published      TEXT    NOT NULL DEFAULT '',
    published_from TEXT    NOT NULL DEFAULT '',
    published_at   INTEGER NOT NULL DEFAULT 0,
    modified       TEXT    NOT NULL DEFAULT '',
    modified_from  TEXT    NOT NULL DEFAULT '',
    headline       TEXT    NOT NULL DEFAULT '',
    headline_from  TEXT    NOT NULL DEFAULT '',
    authors        TEXT    NOT NULL DEFAULT '',
    authors_from   TEXT    NOT NULL DEFAULT '',
    language       TEXT    NOT NULL DEFAULT '',
    language_from  TEXT    NOT NULL DEFAULT '',
    canonical      TEXT    NOT NULL DEFAULT '',
    canonical_from TEXT    NOT NULL DEFAULT ''
) WITHOUT ROWID;
