package store

import (
	"context"
	"database/sql"
	"time"
)

// SiteHostCount is how many URLs of one site and host an earlier run handed to its
// lanes (processed or failed): what the page budgets "in total" start from.
type SiteHostCount struct {
	Site, Host string
	N          int64
}

// FetchedBySiteHost counts the URLs processed or failed, by site and host (one scan
// of the URL table, at start, when a total page budget is set).
func (s *Store) FetchedBySiteHost() ([]SiteHostCount, error) {
	var out []SiteHostCount
	err := s.each(context.Background(), `SELECT site, host, COUNT(*) FROM urls WHERE state IN (2, 3) GROUP BY site, host`,
		func(rows *sql.Rows) error {
			var c SiteHostCount
			if err := rows.Scan(&c.Site, &c.Host, &c.N); err != nil {
				return err
			}
			out = append(out, c)
			return nil
		})
	return out, err
}

// StoredBySite counts the stored pages of each site (the Sites pane's "stored",
// restored at start).
func (s *Store) StoredBySite() (map[string]int64, error) {
	out := map[string]int64{}
	err := s.each(context.Background(), `SELECT site, COUNT(*) FROM urls WHERE page != 0 GROUP BY site`,
		func(rows *sql.Rows) error {
			var site string
			var n int64
			if err := rows.Scan(&site, &n); err != nil {
				return err
			}
			out[site] = n
			return nil
		})
	return out, err
}

// ParkedURLs returns up to limit URLs of site and host ("" for any) deferred beyond
// after: those a total page budget set aside, earlier runs' included, for the
// operator's lifting of the budget to bring back (the state index finds the deferred
// URLs).
func (s *Store) ParkedURLs(site, host string, after time.Time, limit int) ([]string, error) {
	q := `SELECT url FROM urls WHERE state = 4 AND deferred_until > ?`
	args := []any{after.UnixNano()}
	if site != "" {
		q += ` AND site = ?`
		args = append(args, site)
	}
	if host != "" {
		q += ` AND host = ?`
		args = append(args, host)
	}
	q += ` ORDER BY seq LIMIT ?`
	args = append(args, limit)
	return s.strings(q, args...)
}
