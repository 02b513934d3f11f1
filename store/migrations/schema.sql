-- The schema a new crawlconsole database is made with, in one step: what the
-- numbered migrations beside it make, in the order SQLite lists it, written by
-- go test ./store -run TestANewDatabaseHasTheMigratedSchema -update-schema
-- after a new migration. Never edited by hand: the test fails if it and the
-- migrations' end differ. The migrations say why each table and column is so.

CREATE TABLE urls (
    seq            INTEGER PRIMARY KEY,
    url            TEXT    NOT NULL UNIQUE,
    host           TEXT    NOT NULL DEFAULT '',
    parent_hash    INTEGER NOT NULL DEFAULT 0,
    depth          INTEGER NOT NULL DEFAULT 0,
    class          TEXT    NOT NULL DEFAULT '',
    site           TEXT    NOT NULL DEFAULT '',
    keyword        TEXT    NOT NULL DEFAULT '',
    state          INTEGER NOT NULL DEFAULT 0,   -- 0 unprocessed, 1 in progress, 2 processed, 3 failed, 4 deferred
    lane           INTEGER NOT NULL DEFAULT 0,   -- M1: the lane (thread) the URL was given
    attempts       INTEGER NOT NULL DEFAULT 0,
    err_kind       TEXT    NOT NULL DEFAULT '',
    discovered_at  INTEGER NOT NULL DEFAULT 0,
    updated_at     INTEGER NOT NULL DEFAULT 0,
    deferred_until INTEGER NOT NULL DEFAULT 0
, page INTEGER NOT NULL DEFAULT 0);

CREATE INDEX urls_state ON urls(state);

CREATE TABLE lanes (
    rec        INTEGER PRIMARY KEY,
    id         INTEGER NOT NULL,
    opened_at  INTEGER NOT NULL,
    retired_at INTEGER NOT NULL DEFAULT 0,
    egress     TEXT    NOT NULL DEFAULT '',
    pages      INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX lanes_open ON lanes(id) WHERE retired_at = 0;

CREATE TABLE events (
    id    INTEGER PRIMARY KEY,
    at    INTEGER NOT NULL,
    level INTEGER NOT NULL DEFAULT 0,
    lane  INTEGER NOT NULL DEFAULT 0,
    host  TEXT    NOT NULL DEFAULT '',
    msg   TEXT    NOT NULL DEFAULT ''
);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB
) WITHOUT ROWID;

CREATE TABLE results (
    url        TEXT    NOT NULL,
    keyword    TEXT    NOT NULL DEFAULT '',
    site       TEXT    NOT NULL,
    kind       TEXT    NOT NULL DEFAULT '',
    host       TEXT    NOT NULL DEFAULT '',
    cost       INTEGER NOT NULL DEFAULT 0,
    fetched_at INTEGER NOT NULL DEFAULT 0,
    round      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (url, keyword)
) WITHOUT ROWID;

CREATE INDEX results_site ON results(site, keyword, round);

CREATE TABLE costs (
    site    TEXT    NOT NULL,
    keyword TEXT    NOT NULL DEFAULT '',
    cost    INTEGER NOT NULL DEFAULT 0,
    pages   INTEGER NOT NULL DEFAULT 0,
    round   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (site, keyword)
) WITHOUT ROWID;

CREATE TABLE refusals (
    id       INTEGER PRIMARY KEY,
    url      TEXT    NOT NULL,
    at       INTEGER NOT NULL,
    host     TEXT    NOT NULL DEFAULT '',
    egress   TEXT    NOT NULL DEFAULT '',
    status   INTEGER NOT NULL DEFAULT 0,
    vendor   TEXT    NOT NULL DEFAULT '',
    evidence TEXT    NOT NULL DEFAULT '',
    action   TEXT    NOT NULL DEFAULT ''
);

CREATE INDEX refusals_url ON refusals(url);

CREATE TABLE captures (
    id             INTEGER PRIMARY KEY,
    url            TEXT    NOT NULL,
    fetched_at     INTEGER NOT NULL,
    status         INTEGER NOT NULL DEFAULT 0,
    status_line    TEXT    NOT NULL DEFAULT '',
    request_head   TEXT    NOT NULL DEFAULT '',
    response_head  TEXT    NOT NULL DEFAULT '',
    remote_ip      TEXT    NOT NULL DEFAULT '',
    decoded        TEXT    NOT NULL DEFAULT '',
    truncated      TEXT    NOT NULL DEFAULT '',
    payload_digest TEXT    NOT NULL DEFAULT '',
    bytes          INTEGER NOT NULL DEFAULT 0,
    body_codec     INTEGER NOT NULL DEFAULT 0,
    body           BLOB,
    refers_to      INTEGER,
    in_page        INTEGER NOT NULL DEFAULT 0,
    lane           INTEGER NOT NULL DEFAULT 0,
    egress         TEXT    NOT NULL DEFAULT '',
    node           TEXT    NOT NULL DEFAULT ''
, kind TEXT NOT NULL DEFAULT '', seq INTEGER);

CREATE TABLE "pages" (
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

CREATE INDEX pages_fetch ON pages(fetched_at, bytes, stored_bytes);

CREATE INDEX captures_url ON captures(url, payload_digest) WHERE seq IS NULL;

CREATE INDEX captures_seq ON captures(seq, payload_digest) WHERE seq IS NOT NULL;

CREATE TABLE "revisit" (
    seq             INTEGER PRIMARY KEY,   -- urls.seq of url
    url             TEXT    NOT NULL,
    class           TEXT    NOT NULL DEFAULT '',
    first           INTEGER NOT NULL DEFAULT 0,
    t               INTEGER NOT NULL DEFAULT 0,
    x               INTEGER NOT NULL DEFAULT 1,
    last            INTEGER NOT NULL DEFAULT 0,
    next            INTEGER NOT NULL DEFAULT 0,
    hash            INTEGER NOT NULL DEFAULT 0,
    has_hash        INTEGER NOT NULL DEFAULT 0,
    fetches         INTEGER NOT NULL DEFAULT 0,
    distance        INTEGER NOT NULL DEFAULT -1,
    freq            REAL    NOT NULL DEFAULT 0,
    price           REAL    NOT NULL DEFAULT 0,
    policy          BLOB,
    fresh           REAL    NOT NULL DEFAULT -1,
    age             REAL    NOT NULL DEFAULT 0,
    behind          INTEGER NOT NULL DEFAULT 0,
    has_change      INTEGER NOT NULL DEFAULT 0,
    text_digest     INTEGER NOT NULL DEFAULT 0,
    title_digest    INTEGER NOT NULL DEFAULT 0,
    page_digest     INTEGER NOT NULL DEFAULT 0,
    fallback        INTEGER NOT NULL DEFAULT 0,
    reason          INTEGER NOT NULL DEFAULT 0,
    change_at       INTEGER NOT NULL DEFAULT 0,
    change_distance INTEGER NOT NULL DEFAULT -1,
    change_reason   INTEGER NOT NULL DEFAULT 0,
    prev_text       TEXT    NOT NULL DEFAULT ''
);

CREATE INDEX revisit_next ON revisit(next, url);

CREATE INDEX revisit_behind ON revisit(url) WHERE behind = 1;

INSERT INTO meta VALUES('store.body_codecs', '0 raw, 1 zlib, 2 zstd, 3 s2');
