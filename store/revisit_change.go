package store

import (
	"context"
	"database/sql"
	"errors"
)

// upsertRevisitChangeSQL is upsertRevisitSQL that also writes the change signal
// (has_change = 1); prev_text only when ?27 (Shift) is set, else the stored one stays.
// The URL's row id is ?28.
var upsertRevisitChangeSQL = `INSERT INTO revisit(url, class, first, t, x, last, next, hash, has_hash,
	fetches, distance, freq, price, policy, fresh, age, behind, has_change, text_digest, title_digest,
	page_digest, fallback, reason, change_at, change_distance, change_reason, prev_text, seq)
	VALUES(` + revisitValues + `,
	1, ` + params(18, 8) + `, CASE WHEN ?27 THEN ?26 ELSE '' END, ?28)
	ON CONFLICT(seq) DO UPDATE SET ` + revisitUpdates + `, has_change = 1,
	text_digest = excluded.text_digest, title_digest = excluded.title_digest,
	page_digest = excluded.page_digest, fallback = excluded.fallback, reason = excluded.reason,
	change_at = excluded.change_at, change_distance = excluded.change_distance,
	change_reason = excluded.change_reason,
	prev_text = CASE WHEN ?27 THEN ?26 ELSE revisit.prev_text END`

// RevisitChange returns url's change signal, or nil (no error) when none was kept
// (pages fetched before it existed).
func (s *Store) RevisitChange(url string) (*RevisitChange, error) {
	var c RevisitChange
	var text, title, page, at int64
	err := s.rdb.QueryRowContext(context.Background(), `SELECT text_digest, title_digest, page_digest,
		fallback, reason, change_at, change_distance, change_reason, prev_text
		FROM revisit WHERE seq = (SELECT seq FROM urls WHERE url = ?) AND has_change = 1`, url).Scan(&text, &title, &page, &c.Fallback, &c.Reason,
		&at, &c.ChangeDistance, &c.ChangeReason, &c.PrevText)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.readErr(err)
	}
	c.Text, c.Title, c.Page, c.ChangeAt = uint64(text), uint64(title), uint64(page), fromNanos(at)
	return &c, nil
}

// RevisitChanges returns the change signal of those of urls that have one, keyed by
// URL, without the main texts (the console's due queue reads it every refresh).
func (s *Store) RevisitChanges(urls []string) (map[string]RevisitChange, error) {
	out := make(map[string]RevisitChange, len(urls))
	err := s.inChunks(urls, `SELECT url, fallback, reason, change_at, change_distance, change_reason
		FROM revisit WHERE has_change = 1 AND seq IN (SELECT seq FROM urls WHERE url IN (%s))`, func(row interface{ Scan(...any) error }) error {
		var u string
		var c RevisitChange
		var at int64
		if err := row.Scan(&u, &c.Fallback, &c.Reason, &at, &c.ChangeDistance, &c.ChangeReason); err != nil {
			return err
		}
		c.ChangeAt = fromNanos(at)
		out[u] = c
		return nil
	})
	return out, err
}
