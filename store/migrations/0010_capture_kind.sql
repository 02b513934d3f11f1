-- 0010_capture_kind: what a capture is. '' (every capture before this migration)
-- is an HTTP exchange as it crossed the wire: the crawler's own fetches and, for a
-- page rendered in the headless browser, each request the page made through the
-- crawler. 'rendered' is the DOM the browser built of the page at url: its body is
-- the serialized DOM, status and heads are empty, and fetched_at is the fetched_at
-- of the response it was built from (the WARC export writes it as a conversion
-- record referring to that response).
ALTER TABLE captures ADD COLUMN kind TEXT NOT NULL DEFAULT '';
