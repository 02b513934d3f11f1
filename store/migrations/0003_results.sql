-- 0003_results: site/keyword collection (M3, seed 003). Times are Unix ns (UTC),
-- costs are nanoseconds of fetch time.
--
-- results: the pages a round collected, written in one batch at the round's end,
-- grouped by site (news) and site+keyword (social). A news page is a result for
-- every keyword its main text contains; a social search page and the posts it lists
-- are results for the keyword searched. kind is the page type: news, search or post.
-- A page collected again in a later round keeps one row per keyword, updated.
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

-- costs: the cost table a node keeps (seed 003 tables 8/9): site (keyword '') or
-- site+keyword -> fetch cost and pages of the last round that touched it, and that
-- round's end. Load balancing weighs sites by these costs.
CREATE TABLE costs (
    site    TEXT    NOT NULL,
    keyword TEXT    NOT NULL DEFAULT '',
    cost    INTEGER NOT NULL DEFAULT 0,
    pages   INTEGER NOT NULL DEFAULT 0,
    round   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (site, keyword)
) WITHOUT ROWID;
