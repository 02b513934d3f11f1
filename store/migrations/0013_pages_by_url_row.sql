-- 0013_pages_by_url_row: a stored page's row is keyed by its URL's row id
-- (pages.id = urls.seq) instead of by its URL's text. The unique index on pages.url
-- goes: storing a page wrote a random leaf of it (URLs in text order are scattered)
-- to the WAL at each commit, while page ids now follow the order URLs were
-- discovered in, which is near the order they are fetched in, so a batch's pages
-- share their leaves. A page is still stored once per URL (id is the key); reads by
-- URL go through the unique index on urls.url, which the store writes anyway. url
-- stays in the row, as it was (exports and queries read it).
--
-- A page whose URL has no urls row (none should: pages.url referenced urls.url) gets
-- one, processed, first.
INSERT INTO urls(url, state) SELECT url, 2 FROM pages WHERE url NOT IN (SELECT url FROM urls);
CREATE TABLE pages_by_seq (
    id             INTEGER PRIMARY KEY,   -- urls.seq of url
    url            TEXT    NOT NULL,
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
INSERT INTO pages_by_seq SELECT u.seq, p.url, p.fetched_at, p.status, p.content_type, p.bytes,
    p.stored_bytes, p.body_codec, p.body, p.duration_ms, p.lane, p.egress, p.etag, p.last_modified,
    p.simhash, p.final_url, p.published, p.published_from, p.published_at, p.modified,
    p.modified_from, p.headline, p.headline_from, p.authors, p.authors_from, p.language,
    p.language_from, p.canonical, p.canonical_from
    FROM pages AS p JOIN urls AS u ON u.url = p.url ORDER BY u.seq;
DROP TABLE pages;
ALTER TABLE pages_by_seq RENAME TO pages;
CREATE INDEX pages_fetch ON pages(fetched_at, bytes, stored_bytes);
