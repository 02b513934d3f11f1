-- 0011_fold_side_tables: two side tables keyed by a page's URL move into the rows
-- they describe, so that storing a page writes two URL-keyed rows fewer: every
-- URL-keyed B-tree a page touches costs the writer a random leaf to update, and to
-- log at each commit.
--
-- The change signal (revisit_change, 0007) moves into the page's revisit row. The
-- columns mean what they meant there; has_change is 1 when a change signal was kept
-- (a row of revisit_change existed), 0 for state written without one.
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

-- The page's metadata (page_meta, 0009) moves into its pages row, columns as they
-- were there. A page without metadata has them all empty (it had no row).
ALTER TABLE pages ADD COLUMN published TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN published_from TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN published_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN modified TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN modified_from TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN headline TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN headline_from TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN authors TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN authors_from TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN language TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN language_from TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN canonical TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN canonical_from TEXT NOT NULL DEFAULT '';
UPDATE pages SET published = m.published, published_from = m.published_from,
    published_at = m.published_at, modified = m.modified, modified_from = m.modified_from,
    headline = m.headline, headline_from = m.headline_from, authors = m.authors,
    authors_from = m.authors_from, language = m.language, language_from = m.language_from,
    canonical = m.canonical, canonical_from = m.canonical_from
    FROM page_meta AS m WHERE m.url = pages.url;
DROP TABLE page_meta;
