package store

import (
	"context"
	"slices"
	"time"
)

// SaveRound queues a round's end in ONE transaction (M3: results go to the store in
// one batch at the end of the round): its results, in the order given (the engine
// groups them by site and keyword), stamped with end, and the cost table rows it
// updated.
func (s *Store) SaveRound(end time.Time, results []Result, costs []Cost) {
	results, costs = slices.Clone(results), slices.Clone(costs)
	s.submit(&writeOp{what: "save round", key: end.UTC().Format(time.RFC3339), apply: func(w *writer) (func(), error) {
		ins, err := w.dc.PrepareContext(w.ctx, `INSERT INTO results(url, keyword, site, kind, host, cost,
			fetched_at, round) VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(url, keyword) DO UPDATE SET
			site = excluded.site, kind = excluded.kind, host = excluded.host, cost = excluded.cost,
			fetched_at = excluded.fetched_at, round = excluded.round`)
		if err != nil {
			return nil, err
		}
		defer ins.Close()
		for _, r := range results {
			if _, err := w.exec(ins, r.URL, r.Keyword, r.Site, r.Kind, r.Host, int64(r.Cost),
				nanos(r.FetchedAt), nanos(end)); err != nil {
				return nil, err
			}
		}
		for _, c := range costs {
			if _, err := w.execSQL(`INSERT INTO costs(site, keyword, cost, pages, round)
				VALUES(?, ?, ?, ?, ?) ON CONFLICT(site, keyword) DO UPDATE SET cost = excluded.cost,
				pages = excluded.pages, round = excluded.round`,
				c.Site, c.Keyword, int64(c.Cost), c.Pages, nanos(c.Round)); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}})
}

// Results returns the stored results by site, keyword and URL.
func (s *Store) Results() ([]Result, error) {
	rows, err := s.rdb.QueryContext(context.Background(), `SELECT url, site, keyword, kind, host, cost,
		fetched_at, round FROM results ORDER BY site, keyword, url`)
	if err != nil {
		return nil, s.readErr(err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		var r Result
		var cost, fetched, round int64
		if err := rows.Scan(&r.URL, &r.Site, &r.Keyword, &r.Kind, &r.Host, &cost, &fetched, &round); err != nil {
			return nil, s.readErr(err)
		}
		r.Cost, r.FetchedAt, r.Round = time.Duration(cost), fromNanos(fetched), fromNanos(round)
		out = append(out, r)
	}
	return out, s.readErr(rows.Err())
}

// Costs returns the cost table by site and keyword.
func (s *Store) Costs() ([]Cost, error) {
	rows, err := s.rdb.QueryContext(context.Background(), `SELECT site, keyword, cost, pages, round
		FROM costs ORDER BY site, keyword`)
	if err != nil {
		return nil, s.readErr(err)
	}
	defer rows.Close()
	var out []Cost
	for rows.Next() {
		var c Cost
		var cost, round int64
		if err := rows.Scan(&c.Site, &c.Keyword, &cost, &c.Pages, &round); err != nil {
			return nil, s.readErr(err)
		}
		c.Cost, c.Round = time.Duration(cost), fromNanos(round)
		out = append(out, c)
	}
	return out, s.readErr(rows.Err())
}
