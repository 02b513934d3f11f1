-- change_signal: what revisit compares beside the SimHash (issue 19), one row per
-- page with revisit state, in its own table so that the revisit table's policy
-- columns and these evolve apart.
--
-- text_digest and title_digest are the digests of the normalised article body and
-- headline (numbers and times masked), page_digest that of the raw body; all uint64
-- stored as the int64 with the same bits. fallback is 1 when the page had no
-- recognisable article. reason is the revisit.ChangeReason of the last comparison;
-- change_at, change_distance and change_reason describe the last comparison that
-- counted as a change. prev_text is the headline and article text of the copy the
-- last change replaced (written on changes only): `show URL` prints its difference
-- with the stored page's main text.
CREATE TABLE revisit_change (
    url             TEXT    NOT NULL PRIMARY KEY,
    text_digest     INTEGER NOT NULL DEFAULT 0,
    title_digest    INTEGER NOT NULL DEFAULT 0,
    page_digest     INTEGER NOT NULL DEFAULT 0,
    fallback        INTEGER NOT NULL DEFAULT 0,
    reason          INTEGER NOT NULL DEFAULT 0,
    change_at       INTEGER NOT NULL DEFAULT 0,
    change_distance INTEGER NOT NULL DEFAULT -1,
    change_reason   INTEGER NOT NULL DEFAULT 0,
    prev_text       TEXT    NOT NULL DEFAULT ''
) WITHOUT ROWID;
