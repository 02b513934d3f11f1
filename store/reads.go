package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/store/internal/bodycodec"
)

// Reads run on the read-only pool. In WAL mode each sees the last committed state at
// its start and never waits for the writer; what is still queued for the writer is
// not visible until it commits (call Flush first to read your own writes).

const urlColumns = `seq, url, host, parent_hash, depth, class, site, keyword, state, lane,
	attempts, err_kind, deferred_until, discovered_at, updated_at`

// scanURL reads one row selected with urlColumns.
func scanURL(row interface{ Scan(...any) error }) (URL, error) {
	var u URL
	var parent, deferred, discovered, updated int64
	err := row.Scan(&u.Seq, &u.URL, &u.Host, &parent, &u.Depth, &u.Class, &u.Site, &u.Keyword,
		&u.State, &u.Lane, &u.Attempts, &u.ErrKind, &deferred, &discovered, &updated)
	u.ParentHash = uint64(parent)
	u.DeferredUntil, u.DiscoveredAt, u.UpdatedAt = fromNanos(deferred), fromNanos(discovered), fromNanos(updated)
	return u, err
}

// Queued returns up to limit URLs waiting to be fetched — Unprocessed, or Deferred
// whose time has passed at now — with seq > afterSeq, in seq (discovery) order. now
// is the caller's clock, the one its deferrals' times were taken on. Page through
// the queue by passing the last seq seen; a deferred URL whose time passes behind the
// cursor shows up again when the cursor restarts at 0 (or via DueDeferred).
func (s *Store) Queued(now time.Time, afterSeq int64, limit int) ([]URL, error) {
	// Each arm walks urls_state (state, seq) in order from the cursor and stops after
	// limit rows, so only up to 2*limit rows are ever merged, however long the queue.
	return s.queryURLs(`SELECT `+urlColumns+` FROM (
		SELECT * FROM (SELECT * FROM urls WHERE state = 0 AND seq > ?1 ORDER BY seq LIMIT ?3)
		UNION ALL
		SELECT * FROM (SELECT * FROM urls WHERE state = 4 AND seq > ?1 AND deferred_until <= ?2 ORDER BY seq LIMIT ?3)
	) ORDER BY seq LIMIT ?3`, afterSeq, now.UnixNano(), limit)
}

// Unfinished returns up to limit URLs still queued (unprocessed, not deferred) or
// in progress, by seq: at the end of a crawl there should be none (engine's end
// check); one found there was lost on its way to the queue.
func (s *Store) Unfinished(limit int) ([]URL, error) {
	return s.queryURLs(`SELECT `+urlColumns+` FROM (
		SELECT * FROM (SELECT * FROM urls WHERE state = 0 ORDER BY seq LIMIT ?1)
		UNION ALL
		SELECT * FROM (SELECT * FROM urls WHERE state = 1 ORDER BY seq LIMIT ?1)
	) ORDER BY seq LIMIT ?1`, limit)
}

// DueDeferred returns up to limit Deferred URLs whose time has passed at now,
// earliest due first, whatever their seq. now is the caller's clock, the one its
// deferrals' times were taken on.
func (s *Store) DueDeferred(now time.Time, limit int) ([]URL, error) {
	return s.queryURLs(`SELECT `+urlColumns+` FROM urls
		WHERE state = 4 AND deferred_until <= ?
		ORDER BY deferred_until, seq LIMIT ?`, now.UnixNano(), limit)
}

func (s *Store) queryURLs(query string, args ...any) ([]URL, error) {
	rows, err := s.rdb.QueryContext(context.Background(), query, args...)
	if err != nil {
		return nil, s.readErr(err)
	}
	defer rows.Close()
	var out []URL
	for rows.Next() {
		u, err := scanURL(rows)
		if err != nil {
			return nil, s.readErr(err)
		}
		out = append(out, u)
	}
	return out, s.readErr(rows.Err())
}

// URLState returns what the store knows about url, or ErrNotFound.
func (s *Store) URLState(url string) (URL, error) {
	u, err := scanURL(s.rdb.QueryRowContext(context.Background(),
		`SELECT `+urlColumns+` FROM urls WHERE url = ?`, url))
	return u, s.readErr(err)
}

// URLStates returns what the store knows about those of urls it has, in no
// particular order (the revisit scheduler rebuilds a batch of tasks with it).
func (s *Store) URLStates(urls []string) ([]URL, error) {
	var out []URL
	err := s.inChunks(urls, `SELECT `+urlColumns+` FROM urls WHERE url IN (%s)`, func(row interface{ Scan(...any) error }) error {
		u, err := scanURL(row)
		out = append(out, u)
		return err
	})
	return out, err
}

// PageValidators returns the ETag and Last-Modified stored with url's page, for a
// conditional GET when it is fetched again (M2), or ErrNotFound.
func (s *Store) PageValidators(url string) (etag, lastModified string, err error) {
	err = s.rdb.QueryRowContext(context.Background(), `SELECT etag, last_modified FROM pages
		WHERE id = (SELECT page FROM urls WHERE url = ?)`, url).
		Scan(&etag, &lastModified)
	return etag, lastModified, s.readErr(err)
}

// Counts returns URLs per state and the pages' count and sizes. It reads indexes
// only, so it stays cheap on a large crawl.
func (s *Store) Counts() (Counts, error) {
	ctx := context.Background()
	var c Counts
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot for both queries
	if err != nil {
		return c, s.readErr(err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT state, COUNT(*) FROM urls GROUP BY state`)
	if err != nil {
		return c, s.readErr(err)
	}
	for rows.Next() {
		var st State
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			rows.Close()
			return c, s.readErr(err)
		}
		c.URLs += n
		switch st {
		case Unprocessed:
			c.Unprocessed = n
		case InProgress:
			c.InProgress = n
		case Processed:
			c.Processed = n
		case Failed:
			c.Failed = n
		case Deferred:
			c.Deferred = n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, s.readErr(err)
	}
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(bytes), 0), COALESCE(SUM(stored_bytes), 0)
		FROM pages INDEXED BY pages_fetch`).Scan(&c.Pages, &c.BytesStored, &c.BytesCompressed)
	return c, s.readErr(err)
}

// PageURLs returns the URLs of all stored pages, sorted.
func (s *Store) PageURLs() ([]string, error) {
	return s.strings(`SELECT url FROM urls WHERE page != 0 ORDER BY url`)
}

// HasHost says whether any URL of host is in the store, in any state. Without an
// index on hosts it scans the URL table when none is: for an operator's command,
// not a UI frame.
func (s *Store) HasHost(host string) (bool, error) {
	var ok bool
	err := s.rdb.QueryRowContext(context.Background(), `SELECT EXISTS(SELECT 1 FROM urls WHERE host = ?)`, host).Scan(&ok)
	return ok, s.readErr(err)
}

// SeedHosts lists the hosts of the crawl's seeds (URLs at depth 0 that no page
// linked to: seeds, entries and searches, steered seeds): what a crawl resumed
// without its seeds scopes itself by. It scans the URL table: called once, at a
// start without seeds.
func (s *Store) SeedHosts() ([]string, error) {
	return s.strings(`SELECT DISTINCT host FROM urls WHERE depth = 0 AND parent_hash = 0 ORDER BY host`)
}

// strings runs a read query of one text column and returns its values in order.
func (s *Store) strings(q string, args ...any) ([]string, error) {
	rows, err := s.rdb.QueryContext(context.Background(), q, args...)
	if err != nil {
		return nil, s.readErr(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, s.readErr(err)
		}
		out = append(out, v)
	}
	return out, s.readErr(rows.Err())
}

// Page returns the stored page for url with its body decompressed, or ErrNotFound.
func (s *Store) Page(url string) (Page, error) {
	var p Page
	var fetched, durMS, simhash int64
	var codec int
	var stored []byte
	err := s.rdb.QueryRowContext(context.Background(), `SELECT `+pageColumns+` FROM pages
		WHERE id = (SELECT page FROM urls WHERE url = ?)`, url).
		Scan(&p.URL, &fetched, &p.Status, &p.ContentType, &p.Bytes, new(int64), &codec, &stored,
			&durMS, &p.Lane, &p.Egress, &p.ETag, &p.LastModified, &simhash, &p.FinalURL)
	if err != nil {
		return Page{}, s.readErr(err)
	}
	p.FetchedAt, p.Duration, p.SimHash = fromNanos(fetched), time.Duration(durMS)*time.Millisecond, uint64(simhash)
	if p.Body, err = bodycodec.Decompress(stored, codec, p.Bytes); err != nil {
		return Page{}, fmt.Errorf("store: page %s: body: %w", url, err)
	}
	return p, nil
}

// RecentEvents returns the newest n events, oldest first (log order).
func (s *Store) RecentEvents(n int) ([]Event, error) {
	rows, err := s.rdb.QueryContext(context.Background(), `SELECT id, at, level, lane, host, msg
		FROM (SELECT * FROM events ORDER BY id DESC LIMIT ?) ORDER BY id`, n)
	if err != nil {
		return nil, s.readErr(err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Level, &e.Lane, &e.Host, &e.Msg); err != nil {
			return nil, s.readErr(err)
		}
		e.At = fromNanos(at)
		out = append(out, e)
	}
	return out, s.readErr(rows.Err())
}

// GetMeta returns the value stored under key, or ErrNotFound.
func (s *Store) GetMeta(key string) ([]byte, error) {
	var v []byte
	err := s.rdb.QueryRowContext(context.Background(), `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	return v, s.readErr(err)
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict, "ok" when the
// file is sound.
func (s *Store) IntegrityCheck() (string, error) {
	rows, err := s.rdb.QueryContext(context.Background(), `PRAGMA integrity_check`)
	if err != nil {
		return "", s.readErr(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", s.readErr(err)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), s.readErr(rows.Err())
}

// readErr maps sql.ErrNoRows to ErrNotFound and names the database in other errors.
func (s *Store) readErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	default:
		return fmt.Errorf("store: %s: %w", s.path, err)
	}
}
