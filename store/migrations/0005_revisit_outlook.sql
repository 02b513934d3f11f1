-- 0005_revisit_outlook: where each page's revisit schedule is heading (issue 15),
-- summed per class at start for the console (revisit.Outlook). fresh and age are the
-- expected freshness (share of time) and age (days) of the page at the frequency the
-- estimator plans for it, under its change-rate posterior; fresh -1 means "no
-- estimate" (rows written before this version, and the seed policy's). behind is 1
-- when the page probably changes over ten times as often as it is fetched: what the
-- budget gives up. The partial index lists those pages without a scan; it holds only
-- them, so it costs nothing for the others.
ALTER TABLE revisit ADD COLUMN fresh REAL NOT NULL DEFAULT -1;
ALTER TABLE revisit ADD COLUMN age REAL NOT NULL DEFAULT 0;
ALTER TABLE revisit ADD COLUMN behind INTEGER NOT NULL DEFAULT 0;
CREATE INDEX revisit_behind ON revisit(url) WHERE behind = 1;
