-- 0005_captures: every HTTP exchange as it crossed the wire, for the WARC export
-- (ISO 28500 request/response/revisit records). pages keeps the newest copy of a
-- page for the crawl; captures keeps each fetch, redirects, 4xx and 304 included.
-- Times are Unix ns (UTC).
--
-- request_head: request line and header fields as sent, CRLF-terminated; status_line
-- and response_head (header fields as received, CRLF-terminated): the response
-- before the fetcher decoded its Content-Encoding (decoded names the codings it
-- undid). Cookies and credentials are redacted before they are stored.
-- body: the body as decoded (body_codec as in pages), NULL when refers_to is set:
-- then an earlier capture of the same URL holds a body with the same payload_digest
-- (a WARC revisit, identical-payload-digest), so a page refetched a hundred times
-- unchanged is kept once. NULL too when in_page = 1: the capture's body is the one
-- pages holds for the URL (a page's newest copy is stored once); before pages gets
-- a different body, the old one is moved into the capture. bytes is the body's length; truncated is WARC-Truncated's
-- reason ('length') when the body kept is not the whole body.
-- Pages stored before this migration have no capture: the export rebuilds what it
-- can of them from pages (see README, "Data out").
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
);
-- (url, payload_digest): the writer's "was this body stored for this URL before?".
CREATE INDEX captures_url ON captures(url, payload_digest);
-- fetched_at: an incremental export (--since) reads from a time onwards.
CREATE INDEX captures_fetched ON captures(fetched_at);
