-- 0017_captures_found_by_url_row: a capture keeps the row id (seq) of its URL's row
-- when the store has one, and is found by it: captures_seq (seq, payload_digest)
-- instead of captures_url (url, payload_digest). URLs in text order are scattered,
-- so a batch's captures each wrote a random leaf of captures_url at commit (0.85 WAL
-- frames a stored page in a throughput crawl); seqs follow discovery order, which a
-- crawl's fetches roughly follow, so a batch's entries share a few leaves.
--
-- A capture of a URL with no row (a redirect hop or a rendered page's own request
-- the crawl never queued) keeps seq NULL and stays in captures_url, now partial; so
-- do the captures stored before this version (rewriting each row to fill seq would
-- rewrite its body). A URL's captures are therefore those with its seq and those
-- with seq NULL under its text: every read asks both.
ALTER TABLE captures ADD COLUMN seq INTEGER;
DROP INDEX captures_url;
CREATE INDEX captures_url ON captures(url, payload_digest) WHERE seq IS NULL;
CREATE INDEX captures_seq ON captures(seq, payload_digest) WHERE seq IS NOT NULL;
