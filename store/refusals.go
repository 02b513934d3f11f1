package store

import "context"

// AddRefusal queues recording a punished refusal. Refusals are rare (a handful per
// host and ban), so the statement is not prepared.
func (s *Store) AddRefusal(r Refusal) {
	s.submit(&writeOp{what: "add refusal", key: r.URL, apply: func(w *writer) (func(), error) {
		_, err := w.execSQL(`INSERT INTO refusals(url, at, host, egress, status, vendor, evidence, action)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?)`, r.URL, nanos(r.At), r.Host, r.Egress, r.Status, r.Vendor, r.Evidence, r.Action)
		return nil, err
	}})
}

// Refusals returns the refusals recorded for url, oldest first.
func (s *Store) Refusals(url string) ([]Refusal, error) {
	rows, err := s.rdb.QueryContext(context.Background(), `SELECT url, at, host, egress, status, vendor, evidence, action
		FROM refusals WHERE url = ? ORDER BY id`, url)
	if err != nil {
		return nil, s.readErr(err)
	}
	defer rows.Close()
	var out []Refusal
	for rows.Next() {
		var r Refusal
		var at int64
		if err := rows.Scan(&r.URL, &at, &r.Host, &r.Egress, &r.Status, &r.Vendor, &r.Evidence, &r.Action); err != nil {
			return nil, s.readErr(err)
		}
		r.At = fromNanos(at)
		out = append(out, r)
	}
	return out, s.readErr(rows.Err())
}
