-- refusals: what the crawl punished as an anti-bot refusal, and on what evidence
-- (issue 20): one row per punished answer, so that `show URL` can say why a URL was
-- refused, an egress rotated or a host disabled. at is Unix ns (UTC). vendor is the
-- anti-bot vendor recognised ('' for none); evidence is the classifier's reason
-- (headers, cookies, markers, status, weighing); action is what followed
-- ("rotated to e2", "host disabled until ...", "lane backs off").
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
