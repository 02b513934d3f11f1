-- 0002_revisit: adaptive revisit state (M2, seed 001), one row per fetched page.
-- Times and durations are nanoseconds (times: Unix ns, UTC); hash is the uint64
-- SimHash stored as the int64 with the same bits.
--
-- t, x, last, next and hash are the seed's five parameters; first is the first fetch,
-- from which the page class's active window counts (seed 003). next is set to a huge
-- value (2200-01-01) while the page waits in the crawl queue, and for good once its
-- window has closed. freq and price are the estimator policy's budget share, summed
-- at start (EstimatorPolicy.Restore); policy holds the rest of its state (the recent
-- visit history), opaque to the store.
--
-- WITHOUT ROWID: the table is keyed by url, so a lookup is one B-tree descent, and
-- the index on next carries the key with it: "the first m URLs by ascending next",
-- the scheduler's only question, reads the index alone, however many pages there are.
CREATE TABLE revisit (
    url      TEXT    NOT NULL PRIMARY KEY,
    class    TEXT    NOT NULL DEFAULT '',
    first    INTEGER NOT NULL DEFAULT 0,
    t        INTEGER NOT NULL DEFAULT 0,
    x        INTEGER NOT NULL DEFAULT 1,
    last     INTEGER NOT NULL DEFAULT 0,
    next     INTEGER NOT NULL DEFAULT 0,
    hash     INTEGER NOT NULL DEFAULT 0,
    has_hash INTEGER NOT NULL DEFAULT 0,
    fetches  INTEGER NOT NULL DEFAULT 0,
    distance INTEGER NOT NULL DEFAULT -1,
    freq     REAL    NOT NULL DEFAULT 0,
    price    REAL    NOT NULL DEFAULT 0,
    policy   BLOB
) WITHOUT ROWID;
CREATE INDEX revisit_next ON revisit(next);
