-- 0018_revisit_by_url_row: a page's revisit row is keyed by its URL's row id
-- (revisit.seq = urls.seq) instead of by its URL's text. Keyed by text, the row a
-- first fetch writes (the largest after the page's own) went to a random leaf of
-- the table at each commit: 1.14 WAL frames a stored page in a throughput crawl,
-- the most of any table. Seqs follow discovery order, which a crawl's fetches
-- roughly follow, so a batch's rows share a few leaves. Reads by URL go through the
-- unique index on urls.url; url stays in the row, and the due order's index is
-- (next, url), so "the first m URLs by ascending next" still reads that index alone.
--
-- Revisit state whose URL has no urls row (a page fetched always has one) gets one,
-- processed, first, under its host as url.Hostname reads it (the per-host figures
-- group by it): the authority after "://", without userinfo and port, an IPv6
-- literal without its brackets.
WITH a AS (SELECT url, substr(url, instr(url, '://') + 3) AS rest FROM revisit
           WHERE url NOT IN (SELECT url FROM urls)),
     b AS (SELECT url, substr(rest, 1, min(instr(rest || '/', '/'), instr(rest || '?', '?'), instr(rest || '#', '#')) - 1) AS hp FROM a),
     c AS (SELECT url, substr(hp, instr(hp, '@') + 1) AS h FROM b)
INSERT INTO urls(url, state, host)
SELECT url, 2, CASE WHEN h LIKE '[%' THEN substr(h, 2, instr(h, ']') - 2)
                    WHEN instr(h, ':') > 0 THEN substr(h, 1, instr(h, ':') - 1)
                    ELSE h END FROM c;
CREATE TABLE revisit_by_seq (
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
INSERT INTO revisit_by_seq SELECT u.seq, r.url, r.class, r.first, r.t, r.x, r.last, r.next, r.hash,
    r.has_hash, r.fetches, r.distance, r.freq, r.price, r.policy, r.fresh, r.age, r.behind,
    r.has_change, r.text_digest, r.title_digest, r.page_digest, r.fallback, r.reason, r.change_at,
    r.change_distance, r.change_reason, r.prev_text
    FROM revisit AS r JOIN urls AS u ON u.url = r.url ORDER BY u.seq;
DROP TABLE revisit;
ALTER TABLE revisit_by_seq RENAME TO revisit;
CREATE INDEX revisit_next ON revisit(next, url);
CREATE INDEX revisit_behind ON revisit(url) WHERE behind = 1;
