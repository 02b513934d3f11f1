-- 0015_pages_found_by_url_row: a URL's row says where its page is (urls.page, the
-- page's row id; 0 while none is stored), and the unique index on pages.url goes.
-- Storing a first page wrote a random leaf of that index at each commit (URLs in
-- text order are scattered); the urls row it now writes instead is the one the
-- fetch marks processed anyway. Page rows keep their appended ids (a page lands at
-- the end of the table, never mid-table), and keep url (exports read it). A page is
-- still stored once per URL: the writer inserts one only when urls.page is 0.
--
-- (Versions 13 and 14 are skipped: a development build used them for another
-- layout, and such a store is refused rather than read as this one.)
ALTER TABLE urls ADD COLUMN page INTEGER NOT NULL DEFAULT 0;
CREATE TABLE pages_by_row (
    id             INTEGER PRIMARY KEY,
    url            TEXT    NOT NULL REFERENCES urls(url),
    fetched_at     INTEGER NOT NULL,
    status         INTEGER NOT NULL,
    content_type   TEXT    NOT NULL DEFAULT '',
    bytes          INTEGER NOT NULL DEFAULT 0,
    stored_bytes   INTEGER NOT NULL DEFAULT 0,
    body_codec     INTEGER NOT NULL DEFAULT 0,
    body           BLOB,
    duration_ms    INTEGER NOT NULL DEFAULT 0,
    lane           INTEGER NOT NULL DEFAULT 0,
    egress         TEXT    NOT NULL DEFAULT '',
    etag           TEXT    NOT NULL DEFAULT '',
    last_modified  TEXT    NOT NULL DEFAULT '',
    simhash        INTEGER NOT NULL DEFAULT 0,
    final_url      TEXT    NOT NULL DEFAULT '',
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
);
INSERT INTO pages_by_row SELECT id, url, fetched_at, status, content_type, bytes, stored_bytes,
    body_codec, body, duration_ms, lane, egress, etag, last_modified, simhash, final_url,
    published, published_from, published_at, modified, modified_from, headline, headline_from,
    authors, authors_from, language, language_from, canonical, canonical_from
    FROM pages ORDER BY id;
UPDATE urls SET page = p.id FROM pages AS p WHERE p.url = urls.url;
DROP TABLE pages;
ALTER TABLE pages_by_row RENAME TO pages;
CREATE INDEX pages_fetch ON pages(fetched_at, bytes, stored_bytes);
