-- 0001_init: the crawl's durable state. Times are Unix nanoseconds (UTC), 0 = unset.
-- Hashes (parent_hash, simhash) are uint64 stored as the int64 with the same bits.

-- One row per URL ever discovered. The UNIQUE index on url is the final dedupe truth
-- (M4: LRU and Bloom in the frontier only filter; a Bloom false positive is settled
-- here). seq is the rowid: assigned on insert, monotonic, never reused (rows are never
-- deleted), so the queue is read in discovery order.
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
);

-- (state, seq): the work queue in discovery order (state = 0 AND seq > cursor walks
-- it without sorting), counts by state, and crash recovery (state = 1), all without
-- a table scan.
CREATE INDEX urls_state ON urls(state);

-- One row per fetched page; url UNIQUE is what makes "no page is stored twice" hold.
-- body is compressed (body_codec: 0 raw, 1 zlib); stored_bytes = length(body).
CREATE TABLE pages (
    id             INTEGER PRIMARY KEY,
    url            TEXT    NOT NULL UNIQUE REFERENCES urls(url),
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
    final_url      TEXT    NOT NULL DEFAULT ''
);
-- Covering index for Counts/Stats (count, sizes, first/last fetch): the table itself
-- is mostly body bytes, so summing over it would read every body. fetched_at grows
-- with time, so this index is appended to, not scattered.
CREATE INDEX pages_fetch ON pages(fetched_at, bytes, stored_bytes);

-- Lane history (M1). Lane numbers are reused across runs, so each opening is its own
-- row; retired_at = 0 while the lane is open.
CREATE TABLE lanes (
    rec        INTEGER PRIMARY KEY,
    id         INTEGER NOT NULL,
    opened_at  INTEGER NOT NULL,
    retired_at INTEGER NOT NULL DEFAULT 0,
    egress     TEXT    NOT NULL DEFAULT '',
    pages      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX lanes_open ON lanes(id) WHERE retired_at = 0;

-- Operator-visible events; pruned to Options.MaxEvents newest rows.
CREATE TABLE events (
    id    INTEGER PRIMARY KEY,
    at    INTEGER NOT NULL,
    level INTEGER NOT NULL DEFAULT 0,
    lane  INTEGER NOT NULL DEFAULT 0,
    host  TEXT    NOT NULL DEFAULT '',
    msg   TEXT    NOT NULL DEFAULT ''
);

-- Small key/value space for other subsystems (crawl settings, cursors, ...).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB
) WITHOUT ROWID;
