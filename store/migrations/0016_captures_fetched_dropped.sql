-- 0016_captures_fetched_dropped: the index on captures.fetched_at goes. No query
-- reads it: the export walks captures by id (WHERE id > ? AND fetched_at >= ?
-- ORDER BY id, which SQLite runs on the rowid, the index never), and every other
-- read finds captures by URL (captures_url). Each capture still wrote an entry in
-- it, a leaf more at every commit.
DROP INDEX IF EXISTS captures_fetched;
