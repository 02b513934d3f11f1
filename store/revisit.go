package store

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"
)

// SaveRevisit queues storing r (insert or overwrite by URL). To keep a page and its
// revisit state in one transaction, set Page.Revisit and use SavePage/ReplacePage.
func (s *Store) SaveRevisit(r Revisit) {
	r.Policy = slices.Clone(r.Policy)
	s.submit(&writeOp{what: "save revisit state", key: r.URL, apply: func(w *writer) (func(), error) {
		return nil, w.upsertRevisit(&r, 0)
	}})
}

// SetRevisitNext queues setting next for each of urls that has revisit state (the
// scheduler parks requeued pages at a huge next, M2). Unknown URLs are ignored.
func (s *Store) SetRevisitNext(urls []string, next time.Time) {
	urls = slices.Clone(urls)
	key := ""
	if len(urls) > 0 {
		key = urls[0]
	}
	s.submit(&writeOp{what: "set revisit next", key: key, apply: func(w *writer) (func(), error) {
		n := nanos(next)
		for _, u := range urls {
			if _, err := w.exec(w.st.setRevisitNext, n, u); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}})
}

// QueueRevisits parks each of queue and of park whose next is still the one read
// (DueRevisits) and, in the same transaction, puts each of queue it parked back in
// the crawl queue: its URL unprocessed, as a queued URL (a stop or a kill before
// its fetch resumes it). It returns the URLs of queue it queued once the write is
// committed. A page whose next was written since (a fetch's result queued before
// this write) keeps it and is left out, its URL as it was. nil when the write failed
// or the store is closed: the store's error says why (Err).
//
// One transaction, so that no commit leaves a page parked with its URL still
// fetched: neither due nor queued, it was never revisited again.
func (s *Store) QueueRevisits(queue, park []DueRevisit, at time.Time) []string {
	queue, park = slices.Clone(queue), slices.Clone(park)
	key := ""
	if len(queue) > 0 {
		key = queue[0].URL
	} else if len(park) > 0 {
		key = park[0].URL
	}
	var queued []string // set after the commit, read after the Flush that follows it
	s.submit(&writeOp{what: "queue revisits", key: key, apply: func(w *writer) (func(), error) {
		n := nanos(at)
		var set []string // applied again from the start when the batch is replayed
		for _, d := range park {
			if _, err := w.exec(w.st.setRevisitNextIf, n, d.URL, nanos(d.Next)); err != nil {
				return nil, err
			}
		}
		for _, d := range queue {
			res, err := w.exec(w.st.setRevisitNextIf, n, d.URL, nanos(d.Next))
			if err != nil {
				return nil, err
			}
			if k, err := res.RowsAffected(); err != nil || k == 0 {
				continue
			}
			if err := w.queueURL(d.URL); err != nil {
				return nil, err
			}
			set = append(set, d.URL)
		}
		return func() { queued = set }, nil
	}})
	_ = s.Flush() // its error is the store's (Err); a write rolled back left queued nil
	return queued
}

// QueueRevisitsNow queues, for each of urls, parking its page (next = park, when it
// has revisit state) and putting its URL back in the crawl queue (unprocessed), in
// one transaction, whatever its next: a refetch asked for now (a hint, a round, the
// operator's). Parked, a page waiting in the queue is not the scheduler's to take
// again; its fetch gives it its next due time. Unknown URLs are ignored.
func (s *Store) QueueRevisitsNow(urls []string, park time.Time) {
	urls = slices.Clone(urls)
	key := ""
	if len(urls) > 0 {
		key = urls[0]
	}
	s.submit(&writeOp{what: "queue revisits", key: key, apply: func(w *writer) (func(), error) {
		n := nanos(park)
		for _, u := range urls {
			if _, err := w.exec(w.st.setRevisitNext, n, u); err != nil {
				return nil, err
			}
			if err := w.queueURL(u); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}})
}

// queueURL sets url unprocessed inside the open transaction, as SetState does.
func (w *writer) queueURL(url string) error {
	if err := w.writeStart(url); err != nil {
		return err
	}
	_, err := w.exec(w.st.setState, int(Unprocessed), 0, "", nowNanos(), url)
	return err
}

// upsertRevisit writes r inside the open transaction, with its change signal when
// r has one; without, a stored signal stays as it was. The row is keyed by its URL's
// row id, seq, which the caller passes when it has it (SavePage), else 0: it is
// looked up, and state for a URL the store never saw (a fetched page always has
// one) adds the URL, processed, as SavePage does.
func (w *writer) upsertRevisit(r *Revisit, seq int64) error {
	if seq == 0 {
		var row [2]int64
		found, err := w.queryInts(w.st.findURL, row[:], r.URL)
		if err != nil {
			return err
		}
		if !found {
			self := []URL{{URL: r.URL, Host: hostOf(r.URL)}}
			out, err := w.insertURLs(self, Processed, nowNanos(), make([]linkOutcome, 0, 1))
			if err != nil {
				return err
			}
			row[0] = out[0].seq
		}
		seq = row[0]
	}
	var err error
	if c := r.Change; c != nil {
		err = w.write(w.st.upsertRevisitChange, r.URL, r.Class, nanos(r.First), int64(r.T), r.X,
			nanos(r.Last), nanos(r.Next), int64(r.Hash), r.HasHash, r.Fetches, r.Distance, zeroIfNaN(r.Freq), zeroIfNaN(r.Price), r.Policy,
			finiteOr(r.Fresh, -1), finiteOr(r.Age, 0), r.Behind,
			int64(c.Text), int64(c.Title), int64(c.Page), c.Fallback, c.Reason, nanos(c.ChangeAt),
			c.ChangeDistance, c.ChangeReason, c.PrevText, c.Shift, seq)
	} else {
		err = w.write(w.st.upsertRevisit, r.URL, r.Class, nanos(r.First), int64(r.T), r.X,
			nanos(r.Last), nanos(r.Next), int64(r.Hash), r.HasHash, r.Fetches, r.Distance, zeroIfNaN(r.Freq), zeroIfNaN(r.Price), r.Policy,
			finiteOr(r.Fresh, -1), finiteOr(r.Age, 0), r.Behind, seq)
	}
	return err
}

// revisitColumns are the columns scanRevisit reads, policy state last.
const revisitColumns = `url, class, first, t, x, last, next, hash, has_hash, fetches, distance, freq, price, fresh, age, behind`

// scanRevisit reads one row selected with revisitColumns, plus policy when withPolicy.
func scanRevisit(row interface{ Scan(...any) error }, withPolicy bool) (Revisit, error) {
	var r Revisit
	var first, t, last, next, hash int64
	dst := []any{&r.URL, &r.Class, &first, &t, &r.X, &last, &next, &hash, &r.HasHash, &r.Fetches,
		&r.Distance, &r.Freq, &r.Price, &r.Fresh, &r.Age, &r.Behind}
	if withPolicy {
		dst = append(dst, &r.Policy)
	}
	err := row.Scan(dst...)
	r.First, r.T, r.Last, r.Next, r.Hash = fromNanos(first), time.Duration(t), fromNanos(last), fromNanos(next), uint64(hash)
	return r, err
}

// Revisit returns url's revisit state, or ErrNotFound when the page was never
// fetched (or fetched before revisit state was kept).
func (s *Store) Revisit(url string) (Revisit, error) {
	r, err := scanRevisit(s.rdb.QueryRowContext(context.Background(),
		`SELECT `+revisitColumns+`, policy FROM revisit WHERE seq = (SELECT seq FROM urls WHERE url = ?)`, url), true)
	if err == nil {
		r.Change, err = s.RevisitChange(url)
	}
	return r, s.readErr(err)
}

// Revisits returns the revisit state of those of urls that have one, in no
// particular order.
func (s *Store) Revisits(urls []string) ([]Revisit, error) {
	var out []Revisit
	err := s.inChunks(urls, `SELECT `+revisitColumns+`, policy FROM revisit
		WHERE seq IN (SELECT seq FROM urls WHERE url IN (%s))`, func(row interface{ Scan(...any) error }) error {
		r, err := scanRevisit(row, true)
		out = append(out, r)
		return err
	})
	return out, err
}

// DueRevisits returns the first limit pages by ascending next (ties in URL order),
// the scheduler's question (M2, seed 001 step 3). It reads the index on next alone,
// so it costs the same with a thousand pages or millions.
func (s *Store) DueRevisits(limit int) ([]DueRevisit, error) {
	rows, err := s.rdb.QueryContext(context.Background(),
		`SELECT url, next FROM revisit INDEXED BY revisit_next ORDER BY next, url LIMIT ?`, limit)
	if err != nil {
		return nil, s.readErr(err)
	}
	defer rows.Close()
	out := make([]DueRevisit, 0, min(limit, 1024))
	for rows.Next() {
		var d DueRevisit
		var next int64
		if err := rows.Scan(&d.URL, &next); err != nil {
			return nil, s.readErr(err)
		}
		d.Next = fromNanos(next)
		out = append(out, d)
	}
	return out, s.readErr(rows.Err())
}

// RevisitQueue returns the full state of the first limit pages by ascending next
// whose next is before notAfter (the console's due queue), without policy state.
func (s *Store) RevisitQueue(limit int, notAfter time.Time) ([]Revisit, error) {
	rows, err := s.rdb.QueryContext(context.Background(), `SELECT `+revisitColumns+`
		FROM revisit INDEXED BY revisit_next WHERE next < ? ORDER BY next, url LIMIT ?`, nanos(notAfter), limit)
	if err != nil {
		return nil, s.readErr(err)
	}
	defer rows.Close()
	var out []Revisit
	for rows.Next() {
		r, err := scanRevisit(rows, false)
		if err != nil {
			return nil, s.readErr(err)
		}
		out = append(out, r)
	}
	return out, s.readErr(rows.Err())
}

// RevisitSummary is the part of a page's revisit state the engine sums over every
// page at start: its class, its learned interval t/x and its budget share.
type RevisitSummary struct {
	Class       string
	T           time.Duration
	X           int
	Freq, Price float64
	Fresh, Age  float64 // the page's expected freshness and age (Fresh -1: none)
	Behind      bool    // the budget cannot follow the page
}

// EachRevisitSummary calls fn with the summary of every page's revisit state, in the
// order of their URLs' rows (the estimator's budget sums and the console's class
// counts and interval histogram, at engine start). It reads five columns per row,
// about a second per million pages, and stops at fn's first error, which it returns.
func (s *Store) EachRevisitSummary(fn func(RevisitSummary) error) error {
	rows, err := s.rdb.QueryContext(context.Background(), `SELECT class, t, x, freq, price, fresh, age, behind FROM revisit`)
	if err != nil {
		return s.readErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var r RevisitSummary
		var t int64
		if err := rows.Scan(&r.Class, &t, &r.X, &r.Freq, &r.Price, &r.Fresh, &r.Age, &r.Behind); err != nil {
			return s.readErr(err)
		}
		r.T = time.Duration(t)
		if err := fn(r); err != nil {
			return err
		}
	}
	return s.readErr(rows.Err())
}

// inChunkSize keeps IN lists well below SQLite's bound-parameter limit.
const inChunkSize = 500

// inChunks runs query (with one %s for the placeholder list) over keys in chunks and
// calls scan for every row.
func (s *Store) inChunks(keys []string, query string, scan func(row interface{ Scan(...any) error }) error) error {
	ctx := context.Background()
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), inChunkSize)]
		keys = keys[len(chunk):]
		args := make([]any, len(chunk))
		for i, k := range chunk {
			args[i] = k
		}
		marks := strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",")
		rows, err := s.rdb.QueryContext(ctx, strings.Replace(query, "%s", marks, 1), args...)
		if err != nil {
			return s.readErr(err)
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				rows.Close()
				return s.readErr(err)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return s.readErr(err)
		}
	}
	return nil
}

// BehindRevisits returns up to limit pages the revisit budget cannot follow (Behind:
// they change far faster than they are fetched) and that are still revisited, in URL
// order, with their full state: what the console shows as given up. It reads the
// partial index on behind pages alone.
func (s *Store) BehindRevisits(limit int) ([]Revisit, error) {
	rows, err := s.rdb.QueryContext(context.Background(), `SELECT `+revisitColumns+`, policy
		FROM revisit INDEXED BY revisit_behind WHERE behind = 1 AND next < ? ORDER BY url LIMIT ?`,
		nanos(farFuture), limit)
	if err != nil {
		return nil, s.readErr(err)
	}
	defer rows.Close()
	var out []Revisit
	for rows.Next() {
		r, err := scanRevisit(rows, true)
		if err != nil {
			return nil, s.readErr(err)
		}
		out = append(out, r)
	}
	return out, s.readErr(rows.Err())
}

// farFuture is later than any real due time and earlier than the "never" the
// engine parks retired pages at (2200): pages past their class window are not
// listed as behind.
var farFuture = time.Date(2199, 1, 1, 0, 0, 0, 0, time.UTC)

// zeroIfNaN returns x, or 0 when x is NaN: SQLite stores a NaN bound as NULL, which
// the NOT NULL freq and price columns refuse, and the whole batch with it.
func zeroIfNaN(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}

// finiteOr returns x, or def when x is NaN or infinite: SQLite stores NaN as NULL,
// which the NOT NULL columns refuse, and an infinity would poison the sums.
func finiteOr(x, def float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return def
	}
	return x
}
