-- 0011_change_in_revisit: the change signal moves into the revisit row it belongs to
-- (it was the table revisit_change, 0007), so that a fetch writes one row keyed by
-- its URL instead of two: every URL-keyed B-tree a page touches costs the writer a
-- random leaf to update and to log at each commit. The columns mean what they meant
-- there; has_change is 1 when a change signal was kept (a row of revisit_change
-- existed), 0 for state written without one (pages fetched before 0007).
ALTER TABLE revisit ADD COLUMN has_change INTEGER NOT NULL DEFAULT 0;
ALTER TABLE revisit ADD COLUMN text_digest INTEGER NOT NULL DEFAULT 0;
ALTER TABLE revisit ADD COLUMN title_digest INTEGER NOT NULL DEFAULT 0;
ALTER TABLE revisit ADD COLUMN page_digest INTEGER NOT NULL DEFAULT 0;
ALTER TABLE revisit ADD COLUMN fallback INTEGER NOT NULL DEFAULT 0;
ALTER TABLE revisit ADD COLUMN reason INTEGER NOT NULL DEFAULT 0;
ALTER TABLE revisit ADD COLUMN change_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE revisit ADD COLUMN change_distance INTEGER NOT NULL DEFAULT -1;
ALTER TABLE revisit ADD COLUMN change_reason INTEGER NOT NULL DEFAULT 0;
ALTER TABLE revisit ADD COLUMN prev_text TEXT NOT NULL DEFAULT '';
UPDATE revisit SET has_change = 1, text_digest = c.text_digest, title_digest = c.title_digest,
    page_digest = c.page_digest, fallback = c.fallback, reason = c.reason, change_at = c.change_at,
    change_distance = c.change_distance, change_reason = c.change_reason, prev_text = c.prev_text
    FROM revisit_change AS c WHERE c.url = revisit.url;
DROP TABLE revisit_change;
